// Tiers: session-only values (resident / spilled), the memory ceiling under
// pressure, EndSession, and session-only values vanishing with their
// instance.

#include <sys/wait.h>

#include <atomic>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "store/test_util.h"

namespace ctxkit::testing {
namespace {

// Whether any regular file under `dir` contains `needle`.
std::string FileHolding(const std::string& dir, std::string_view needle) {
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    std::ifstream in(e.path(), std::ios::binary);
    std::string data((std::istreambuf_iterator<char>(in)),
                     std::istreambuf_iterator<char>());
    if (data.find(needle) != std::string::npos) return e.path().string();
  }
  return "";
}

// A session-only payload with a marker that no durable file should hold.
std::string Marked(uint64_t seed, size_t n) {
  std::string v = "SESSION-ONLY-MARKER-7f3a9c" + RandomBytes(seed, n);
  return v;
}

class TiersTest : public StoreTest {
 protected:
  static SetOptions SessionOnly(std::string scope = "") {
    SetOptions o;
    o.persist = false;
    o.scope = std::move(scope);
    return o;
  }
};

TEST_F(TiersTest, SmallSessionOnlyValuesStayResident) {
  Options o = options_;
  o.spill_threshold_bytes = 4096;
  Reopen(o);
  StoreStats s0 = *store_->Stats();
  std::string value = RandomBytes(1, 1000);
  ASSERT_OK_AND_ASSIGN(Ref r, view().Set("small", value, SessionOnly()));
  EXPECT_TRUE(r.is_session_only());
  EXPECT_EQ(r.size_bytes, 1000u);
  StoreStats s = *store_->Stats();
  EXPECT_EQ(s.session_objects, s0.session_objects + 1);
  EXPECT_GE(s.session_resident_bytes, s0.session_resident_bytes + 1000);
  EXPECT_EQ(s.session_spilled_bytes, s0.session_spilled_bytes);
  EXPECT_EQ(s.spills, s0.spills);
  EXPECT_GE(s.memory_used_bytes, 1000u);
  EXPECT_EQ(s.objects, s0.objects) << "session-only never reaches the db";
  EXPECT_EQ(s.versions, s0.versions);
  ASSERT_OK_AND_ASSIGN(std::string got, view().Get("small"));
  EXPECT_EQ(got, value);
  ASSERT_OK_AND_ASSIGN(got, view().Resolve(r));
  EXPECT_EQ(got, value);
  ASSERT_OK_AND_ASSIGN(ObjectMeta m, view().Stat("small"));
  EXPECT_FALSE(m.persistent);
  EXPECT_EQ(m.size_bytes, 1000u);
}

TEST_F(TiersTest, SessionOnlyValuesAboveThresholdSpill) {
  Options o = options_;
  o.spill_threshold_bytes = 4096;
  Reopen(o);
  StoreStats s0 = *store_->Stats();
  std::string big = Marked(2, 50000);
  ASSERT_OK_AND_ASSIGN(Ref r, view().Set("big", big, SessionOnly()));
  StoreStats s = *store_->Stats();
  EXPECT_GE(s.session_spilled_bytes, s0.session_spilled_bytes + big.size());
  EXPECT_GE(s.spills, s0.spills + 1);
  EXPECT_LT(s.session_resident_bytes, s0.session_resident_bytes + big.size())
      << "a value above the threshold is not resident";
  EXPECT_EQ(s.objects, s0.objects);
  ASSERT_OK_AND_ASSIGN(std::string got, view().Get("big"));
  EXPECT_EQ(got, big);
  ASSERT_OK_AND_ASSIGN(got, view().ReadRange(r, 40000, 20000));
  EXPECT_EQ(got, big.substr(40000));
  // Exactly at the threshold stays resident; one above spills.
  StoreStats s1 = *store_->Stats();
  ASSERT_OK(view().Set("at", std::string(4096, 'a'), SessionOnly()));
  StoreStats s2 = *store_->Stats();
  EXPECT_EQ(s2.spills, s1.spills) << "4096 bytes == threshold: resident";
  ASSERT_OK(view().Set("above", std::string(4097, 'b'), SessionOnly()));
  StoreStats s3 = *store_->Stats();
  EXPECT_EQ(s3.spills, s2.spills + 1) << "4097 bytes > threshold: spilled";
  // The spill area is private (an unlinked file): no file under the store
  // home holds the spilled bytes, and the database never sees them.
  EXPECT_EQ(FileHolding(home(), "SESSION-ONLY-MARKER-7f3a9c"), "");
}

TEST_F(TiersTest, SessionOnlyVersionsAndRemove) {
  ASSERT_OK_AND_ASSIGN(Ref first, view().Set("t", "one", SessionOnly()));
  ASSERT_OK_AND_ASSIGN(Ref second, view().Set("t", "two", SessionOnly()));
  EXPECT_EQ(first.id, second.id);
  LookupOptions v1;
  v1.version = 1;
  ASSERT_OK_AND_ASSIGN(std::string g, view().Get("t", v1));
  EXPECT_EQ(g, "one");
  ASSERT_OK_AND_ASSIGN(std::vector<VersionMeta> vs, view().Versions("t"));
  ASSERT_EQ(vs.size(), 2u);
  EXPECT_EQ(vs[1].content_hash, Sha256Hex("two"));
  ASSERT_OK(view().Remove("t"));
  EXPECT_THAT(view().Get("t"), StatusIs(StatusCode::kNotFound));
  ASSERT_OK_AND_ASSIGN(vs, view().Versions("t"));
  ASSERT_EQ(vs.size(), 3u);
  EXPECT_EQ(vs[2].state, VersionState::kDeleted);
}

TEST_F(TiersTest, SessionOnlyMemoryStaysUnderCeilingWithSpills) {
  constexpr uint64_t kCeiling = 64 * 1024;
  Options o = options_;
  o.memory_ceiling_bytes = kCeiling;
  o.spill_threshold_bytes = 16 * 1024;
  Reopen(o);
  EXPECT_EQ(store_->Stats()->memory_ceiling_bytes, kCeiling);
  std::vector<std::string> values;
  uint64_t written = 0;
  for (int i = 0; written < 8 * kCeiling; ++i) {
    // Sizes below the threshold: only memory pressure makes them spill.
    values.push_back(RandomBytes(100 + i, 2000 + (i * 977) % 12000));
    written += values.back().size();
    ASSERT_OK(
        view().Set("v" + std::to_string(i), values.back(), SessionOnly()));
    StoreStats s = *store_->Stats();
    ASSERT_LE(s.memory_used_bytes, kCeiling) << "after value " << i;
    ASSERT_LE(s.session_resident_bytes, kCeiling);
  }
  StoreStats s = *store_->Stats();
  EXPECT_GT(s.spills, 0u);
  EXPECT_GT(s.session_spilled_bytes, 0u);
  EXPECT_EQ(s.session_objects, values.size());
  EXPECT_EQ(s.session_resident_bytes + s.session_spilled_bytes, written);
  // Everything reads back byte-exact, in both orders, under the ceiling.
  for (size_t i = 0; i < values.size(); ++i) {
    ASSERT_OK_AND_ASSIGN(std::string got, view().Get("v" + std::to_string(i)));
    ASSERT_EQ(got, values[i]) << i;
    ASSERT_LE(store_->Stats()->memory_used_bytes, kCeiling);
  }
  for (size_t i = values.size(); i-- > 0;) {
    ASSERT_OK_AND_ASSIGN(std::string got, view().Get("v" + std::to_string(i)));
    ASSERT_EQ(got, values[i]) << i;
    ASSERT_LE(store_->Stats()->memory_used_bytes, kCeiling);
  }
}

TEST_F(TiersTest, DurableCacheStaysUnderCeilingAndEvicts) {
  constexpr uint64_t kCeiling = 64 * 1024;
  Options o = options_;
  o.memory_ceiling_bytes = kCeiling;
  o.durability = Durability::kProcess;  // Speed; the ceiling is the point.
  Reopen(o);
  std::vector<std::string> values;
  uint64_t written = 0;
  for (int i = 0; written < 6 * kCeiling; ++i) {
    values.push_back(RandomBytes(500 + i, 1000 + (i * 1931) % 20000));
    written += values.back().size();
    ASSERT_OK(view().Set("d" + std::to_string(i), values.back()));
    ASSERT_LE(store_->Stats()->memory_used_bytes, kCeiling) << i;
  }
  for (int round = 0; round < 2; ++round) {
    for (size_t i = 0; i < values.size(); ++i) {
      ASSERT_OK_AND_ASSIGN(std::string got,
                           view().Get("d" + std::to_string(i)));
      ASSERT_EQ(got, values[i]) << i;
      ASSERT_LE(store_->Stats()->memory_used_bytes, kCeiling) << i;
    }
  }
  StoreStats s = *store_->Stats();
  EXPECT_GT(s.evictions, 0u) << "reading 6x the ceiling twice must evict";
  EXPECT_GT(s.cached_values, 0u) << "some values are cached";
}

TEST_F(TiersTest, MixedDurableAndSessionOnlyStayUnderCeiling) {
  constexpr uint64_t kCeiling = 128 * 1024;
  Options o = options_;
  o.memory_ceiling_bytes = kCeiling;
  o.spill_threshold_bytes = 32 * 1024;
  o.durability = Durability::kProcess;
  Reopen(o);
  std::vector<std::pair<std::string, std::string>> kv;
  uint64_t written = 0;
  for (int i = 0; written < 5 * kCeiling; ++i) {
    std::string key = "m" + std::to_string(i);
    std::string value = RandomBytes(900 + i, 3000 + (i * 4099) % 40000);
    written += value.size();
    SetOptions so;
    so.persist = i % 2 == 0;
    ASSERT_OK(view().Set(key, value, so));
    kv.emplace_back(key, std::move(value));
    ASSERT_LE(store_->Stats()->memory_used_bytes, kCeiling) << i;
    // Read an older one back as we go: the cache keeps being exercised.
    const auto& [old_key, old_value] = kv[(i * 7) % kv.size()];
    ASSERT_OK_AND_ASSIGN(std::string got, view().Get(old_key));
    ASSERT_EQ(got, old_value);
    ASSERT_LE(store_->Stats()->memory_used_bytes, kCeiling) << i;
  }
  for (const auto& [key, value] : kv) {
    ASSERT_OK_AND_ASSIGN(std::string got, view().Get(key));
    ASSERT_EQ(got, value) << key;
  }
}

TEST_F(TiersTest, LargeDurableValueAboveCeilingIsStillReadable) {
  constexpr uint64_t kCeiling = 64 * 1024;
  Options o = options_;
  o.memory_ceiling_bytes = kCeiling;
  Reopen(o);
  std::string big = RandomBytes(77, 1 << 20);
  ASSERT_OK_AND_ASSIGN(Ref r, view().Set("huge", big));
  EXPECT_LE(store_->Stats()->memory_used_bytes, kCeiling);
  ASSERT_OK_AND_ASSIGN(std::string got, view().Get("huge"));
  EXPECT_EQ(got, big);
  EXPECT_LE(store_->Stats()->memory_used_bytes, kCeiling);
  ASSERT_OK_AND_ASSIGN(got, view().ReadRange(r, 500000, 10));
  EXPECT_EQ(got, big.substr(500000, 10));
  // The same for a session-only value bigger than the ceiling.
  SetOptions tmp;
  tmp.persist = false;
  ASSERT_OK(view().Set("huge-tmp", big, tmp));
  EXPECT_LE(store_->Stats()->memory_used_bytes, kCeiling);
  ASSERT_OK_AND_ASSIGN(got, view().Get("huge-tmp"));
  EXPECT_EQ(got, big);
}

TEST_F(TiersTest, EndSessionDropsOnlyThatSessionsValues) {
  Options o = options_;
  o.spill_threshold_bytes = 1024;
  Reopen(o);
  View s1 = MakeView("alice", "s1");
  View s2 = MakeView("bob", "s2");
  ASSERT_OK_AND_ASSIGN(Ref small1, s1.Set("a", "small", SessionOnly()));
  ASSERT_OK_AND_ASSIGN(Ref big1,
                       s1.Set("b", RandomBytes(5, 10000), SessionOnly()));
  ASSERT_OK(s1.Set("c", "in session scope", SessionOnly("session")));
  ASSERT_OK(s1.Set("durable", "stays"));
  ASSERT_OK(s2.Set("x", "other session", SessionOnly()));
  ASSERT_OK(s2.Set("y", RandomBytes(6, 10000), SessionOnly()));
  StoreStats before = *store_->Stats();
  EXPECT_EQ(before.session_objects, 5u);

  ASSERT_OK(store_->EndSession("s1"));

  for (std::string key : {"a", "b", "c"}) {
    EXPECT_THAT(s1.Get(key), StatusIs(StatusCode::kNotFound)) << key;
  }
  EXPECT_FALSE(s1.Resolve(small1).ok());
  EXPECT_FALSE(s1.Resolve(big1).ok());
  ASSERT_OK_AND_ASSIGN(std::string v, s1.Get("durable"));
  EXPECT_EQ(v, "stays");
  ASSERT_OK_AND_ASSIGN(v, s2.Get("x"));
  EXPECT_EQ(v, "other session");
  ASSERT_OK_AND_ASSIGN(v, s2.Get("y"));
  EXPECT_EQ(v, RandomBytes(6, 10000));
  StoreStats after = *store_->Stats();
  EXPECT_EQ(after.session_objects, 2u);
  EXPECT_LT(after.session_spilled_bytes, before.session_spilled_bytes);
  EXPECT_LT(after.session_resident_bytes, before.session_resident_bytes);
  for (const ObjectMeta& m : ListAll(s1, {})) {
    EXPECT_TRUE(m.key == "durable" || m.key == "x" || m.key == "y")
        << DescribeMeta(m);
  }
  // The session may be used again afterwards.
  ASSERT_OK(s1.Set("a", "new", SessionOnly()));
  ASSERT_OK_AND_ASSIGN(v, s1.Get("a"));
  EXPECT_EQ(v, "new");
}

TEST_F(TiersTest, SessionOnlyStreamGrowsPastThresholdAndSpills) {
  Options o = options_;
  o.spill_threshold_bytes = 4096;
  Reopen(o);
  std::string model;
  Ref r;
  for (int i = 0; i < 40; ++i) {
    std::string chunk = RandomBytes(40 + i, 100 + i * 37);
    ASSERT_OK_AND_ASSIGN(r, view().Append("tmp-stream", chunk, SessionOnly()));
    model += chunk;
    ASSERT_OK_AND_ASSIGN(std::string got, view().Get("tmp-stream"));
    ASSERT_EQ(got, model) << "after append " << i;
  }
  EXPECT_TRUE(r.is_session_only());
  EXPECT_EQ(r.size_bytes, model.size());
  ASSERT_OK_AND_ASSIGN(std::string part, view().ReadRange(r, 1000, 5000));
  EXPECT_EQ(part, model.substr(1000, 5000));
  LookupOptions v1;
  v1.version = 1;
  ASSERT_OK_AND_ASSIGN(std::string first, view().Get("tmp-stream", v1));
  EXPECT_EQ(first, RandomBytes(40, 100));
  StoreStats s = *store_->Stats();
  EXPECT_GT(s.spills + s.session_spilled_bytes, 0u)
      << "a " << model.size() << "-byte session-only stream never spilled";
  EXPECT_EQ(s.objects, 0u);
  ASSERT_OK(store_->EndSession("s1"));
  EXPECT_THAT(view().Get("tmp-stream"), StatusIs(StatusCode::kNotFound));
  EXPECT_EQ(store_->Stats()->session_objects, 0u);
}

TEST_F(TiersTest, ConcurrentMixedWorkloadUnderTinyCeiling) {
  constexpr uint64_t kCeiling = 48 * 1024;
  Options o = options_;
  o.memory_ceiling_bytes = kCeiling;
  o.spill_threshold_bytes = 8 * 1024;
  o.durability = Durability::kProcess;
  Reopen(o);
  std::vector<std::thread> threads;
  std::atomic<bool> over_ceiling{false};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      auto v = store_->OpenView("w" + std::to_string(t),
                                "sess" + std::to_string(t % 2));
      ASSERT_OK(v);
      for (int i = 0; i < 60; ++i) {
        std::string key = "t" + std::to_string(t) + "/" + std::to_string(i);
        std::string value = RandomBytes(t * 100 + i, 500 + (i * 1543) % 15000);
        SetOptions so;
        so.persist = i % 2 == 0;
        ASSERT_OK(v->Set(key, value, so));
        ASSERT_OK_AND_ASSIGN(std::string got, v->Get(key));
        ASSERT_EQ(got, value);
        if (i % 10 == 0) {
          ASSERT_OK(v->List({}));
        }
        if (store_->Stats()->memory_used_bytes > kCeiling) over_ceiling = true;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_FALSE(over_ceiling.load());
  // Everything still readable after the storm.
  for (int t = 0; t < 4; ++t) {
    View v = MakeView("w" + std::to_string(t), "sess" + std::to_string(t % 2));
    for (int i = 0; i < 60; ++i) {
      std::string key = "t" + std::to_string(t) + "/" + std::to_string(i);
      ASSERT_OK_AND_ASSIGN(std::string got, v.Get(key));
      ASSERT_EQ(got, RandomBytes(t * 100 + i, 500 + (i * 1543) % 15000));
    }
  }
  ASSERT_OK(store_->EndSession("sess0"));
  ASSERT_OK(store_->EndSession("sess1"));
  StoreStats s = *store_->Stats();
  EXPECT_EQ(s.session_objects, 0u);
  EXPECT_EQ(s.session_resident_bytes, 0u);
  EXPECT_EQ(s.session_spilled_bytes, 0u);
}

TEST_F(TiersTest, EndSessionValidatesId) {
  EXPECT_THAT(store_->EndSession("bad id"),
              StatusIs(StatusCode::kInvalidArgument));
}

TEST_F(TiersTest, SessionOnlyValuesAreGoneAfterReopen) {
  ASSERT_OK(view().Set("durable", "d"));
  ASSERT_OK_AND_ASSIGN(Ref tmp, view().Set("tmp", "temporary", SessionOnly()));
  ASSERT_OK_AND_ASSIGN(Ref big,
                       view().Set("tmp-big", Marked(9, 100000), SessionOnly()));
  std::string wire = FormatRef(tmp);
  Reopen();
  EXPECT_THAT(view().Get("tmp"), StatusIs(StatusCode::kNotFound));
  EXPECT_THAT(view().Get("tmp-big"), StatusIs(StatusCode::kNotFound));
  ASSERT_OK_AND_ASSIGN(Ref parsed, ParseRef(wire));
  auto r = view().Resolve(parsed);
  EXPECT_THAT(r, StatusIsOneOf(std::vector<StatusCode>{StatusCode::kUnavailable,
                                                       StatusCode::kNotFound}));
  EXPECT_FALSE(view().Resolve(big).ok());
  for (const ObjectMeta& m : ListAll(view(), {})) {
    EXPECT_EQ(m.key, "durable") << DescribeMeta(m);
  }
  StoreStats s = *store_->Stats();
  EXPECT_EQ(s.session_objects, 0u);
  EXPECT_EQ(s.session_spilled_bytes, 0u);
  ASSERT_OK_AND_ASSIGN(std::string v, view().Get("durable"));
  EXPECT_EQ(v, "d");
  // No spill file is left behind under the home.
  EXPECT_EQ(FileHolding(home(), "SESSION-ONLY-MARKER-7f3a9c"), "");
}

TEST_F(TiersTest, SessionOnlyRefIsUnavailableInAnotherInstance) {
  ASSERT_OK_AND_ASSIGN(Ref tmp, view().Set("tmp", "mine", SessionOnly()));
  std::unique_ptr<Store> second = OpenSecond();
  ASSERT_NE(second, nullptr);
  auto other = second->OpenView("alice", "s1");
  ASSERT_OK(other);
  ASSERT_OK_AND_ASSIGN(Ref parsed, ParseRef(FormatRef(tmp)));
  auto r = other->Resolve(parsed);
  EXPECT_THAT(r, StatusIs(StatusCode::kUnavailable));
  EXPECT_THAT(other->ReadRange(parsed, 0, 2),
              StatusIs(StatusCode::kUnavailable));
  // Nor is it visible by name there.
  EXPECT_THAT(other->Get("tmp"), StatusIs(StatusCode::kNotFound));
  // Still fine in the owner.
  ASSERT_OK_AND_ASSIGN(std::string v, view().Resolve(parsed));
  EXPECT_EQ(v, "mine");
}

TEST_F(TiersTest, SessionOnlyRefIsUnavailableInAnotherProcess) {
  ASSERT_OK_AND_ASSIGN(Ref tmp, view().Set("tmp", "mine", SessionOnly()));
  ASSERT_OK_AND_ASSIGN(Ref durable, view().Set("dur", "durable value"));
  {
    Child c = SpawnChild({{"resolve", options_.home, FormatRef(tmp)}});
    ASSERT_GT(c.pid, 0);
    std::string out = ReadAll(c.result_fd);
    int status = WaitChild(c.pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
    EXPECT_EQ(out.substr(0, out.find('\n')), "unavailable") << out;
  }
  {
    // The same child job resolves a durable ref fine: the check above is not
    // a broken child.
    Child c = SpawnChild({{"resolve", options_.home, FormatRef(durable)}});
    ASSERT_GT(c.pid, 0);
    std::string out = ReadAll(c.result_fd);
    int status = WaitChild(c.pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
    EXPECT_EQ(out, "ok\n" + Sha256Hex("durable value"));
  }
}

}  // namespace
}  // namespace ctxkit::testing
