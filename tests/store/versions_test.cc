// Versions: Set appends, ids never change, static vs dynamic refs, Remove
// tombstones, revival after Remove; plus the basic verbs' happy paths.

#include <string>
#include <thread>
#include <vector>

#include "store/test_util.h"

namespace ctxkit::testing {
namespace {

class VersionsTest : public StoreTest {};

std::string ValueOf(int n) { return "content of version " + std::to_string(n); }

TEST_F(VersionsTest, SetGetRoundTripAndOverwrite) {
  ASSERT_OK(view().Set("k", "one"));
  ASSERT_OK_AND_ASSIGN(std::string v, view().Get("k"));
  EXPECT_EQ(v, "one");
  ASSERT_OK(view().Set("k", "two"));
  ASSERT_OK_AND_ASSIGN(v, view().Get("k"));
  EXPECT_EQ(v, "two");
}

TEST_F(VersionsTest, EmptyAndBinaryValuesAreByteExact) {
  ASSERT_OK(view().Set("empty", ""));
  ASSERT_OK_AND_ASSIGN(std::string e, view().Get("empty"));
  EXPECT_EQ(e, "");
  std::string bin = RandomBytes(1, 4096);
  bin[0] = '\0';
  bin[4095] = '\0';
  ASSERT_OK(view().Set("bin", bin));
  ASSERT_OK_AND_ASSIGN(std::string b, view().Get("bin"));
  EXPECT_EQ(b, bin);
  ASSERT_OK_AND_ASSIGN(ObjectMeta m, view().Stat("bin"));
  EXPECT_EQ(m.size_bytes, 4096u);
}

TEST_F(VersionsTest, StaticRefPinsVersionDynamicFollowsLatest) {
  ASSERT_OK_AND_ASSIGN(Ref first, view().Set("doc", ValueOf(1)));
  LookupOptions v1;
  v1.version = 1;
  ASSERT_OK_AND_ASSIGN(Ref pinned, view().RefOf("doc", v1));
  ASSERT_TRUE(pinned.is_static());
  ASSERT_OK_AND_ASSIGN(Ref dynamic, view().RefOf("doc"));
  ASSERT_FALSE(dynamic.is_static());
  for (int n = 2; n <= 10; ++n) {
    ASSERT_OK_AND_ASSIGN(Ref r, view().Set("doc", ValueOf(n)));
    EXPECT_EQ(r.id, first.id) << "id changed at version " << n;
    ASSERT_OK_AND_ASSIGN(std::string s, view().Resolve(pinned));
    EXPECT_EQ(s, ValueOf(1));
    ASSERT_OK_AND_ASSIGN(std::string d, view().Resolve(dynamic));
    EXPECT_EQ(d, ValueOf(n));
  }
  // Through the wire form too.
  ASSERT_OK_AND_ASSIGN(Ref p2, ParseRef(FormatRef(pinned)));
  ASSERT_OK_AND_ASSIGN(std::string s, view().Resolve(p2));
  EXPECT_EQ(s, ValueOf(1));
  // Every version is addressable.
  for (int n = 1; n <= 10; ++n) {
    LookupOptions lo;
    lo.version = n;
    ASSERT_OK_AND_ASSIGN(std::string g, view().Get("doc", lo));
    EXPECT_EQ(g, ValueOf(n));
    ASSERT_OK_AND_ASSIGN(Ref r, view().RefOf("doc", lo));
    EXPECT_EQ(r.version, static_cast<uint64_t>(n));
    EXPECT_EQ(r.size_bytes, ValueOf(n).size());
    ASSERT_OK_AND_ASSIGN(std::string rv, view().Resolve(r));
    EXPECT_EQ(rv, ValueOf(n));
  }
  LookupOptions v11;
  v11.version = 11;
  EXPECT_THAT(view().Get("doc", v11), StatusIs(StatusCode::kNotFound));
}

TEST_F(VersionsTest, VersionsListsHistoryOldestFirst) {
  SetOptions o;
  o.producer = "tool:test";
  for (int n = 1; n <= 5; ++n) ASSERT_OK(view().Set("h", ValueOf(n), o));
  ASSERT_OK_AND_ASSIGN(std::vector<VersionMeta> vs, view().Versions("h"));
  ASSERT_EQ(vs.size(), 5u);
  for (int n = 1; n <= 5; ++n) {
    const VersionMeta& v = vs[n - 1];
    EXPECT_EQ(v.version, static_cast<uint64_t>(n));
    EXPECT_EQ(v.state, VersionState::kPresent);
    EXPECT_EQ(v.type, ValueType::kText);
    EXPECT_EQ(v.size_bytes, ValueOf(n).size());
    EXPECT_EQ(v.content_hash, Sha256Hex(ValueOf(n)));
    EXPECT_EQ(v.producer, "tool:test");
    EXPECT_GT(v.created_unix_ns, 0);
    if (n > 1) {
      EXPECT_GE(v.created_unix_ns, vs[n - 2].created_unix_ns);
    }
  }
  ASSERT_OK_AND_ASSIGN(ObjectMeta m, view().Stat("h"));
  EXPECT_EQ(m.version, 5u);
  EXPECT_EQ(m.size_bytes, ValueOf(5).size());
  EXPECT_LE(m.created_unix_ns, m.updated_unix_ns);
  EXPECT_EQ(m.created_unix_ns, vs.front().created_unix_ns);
  EXPECT_EQ(m.updated_unix_ns, vs.back().created_unix_ns);
}

TEST_F(VersionsTest, RemoveLeavesTombstoneAndStaticRefsStillResolve) {
  ASSERT_OK_AND_ASSIGN(Ref first, view().Set("gone", ValueOf(1)));
  ASSERT_OK(view().Set("gone", ValueOf(2)));
  LookupOptions v1;
  v1.version = 1;
  ASSERT_OK_AND_ASSIGN(Ref pinned, view().RefOf("gone", v1));
  ASSERT_OK_AND_ASSIGN(Ref dynamic, view().RefOf("gone"));
  StoreStats before = *store_->Stats();

  ASSERT_OK(view().Remove("gone"));

  EXPECT_THAT(view().Get("gone"), StatusIs(StatusCode::kNotFound));
  EXPECT_THAT(view().RefOf("gone"), StatusIs(StatusCode::kNotFound));
  EXPECT_THAT(view().Resolve(dynamic), StatusIs(StatusCode::kNotFound));
  EXPECT_THAT(view().Remove("gone"), StatusIs(StatusCode::kNotFound));
  ASSERT_OK_AND_ASSIGN(std::string old, view().Resolve(pinned));
  EXPECT_EQ(old, ValueOf(1));
  ASSERT_OK_AND_ASSIGN(std::vector<VersionMeta> vs, view().Versions("gone"));
  ASSERT_EQ(vs.size(), 3u);
  EXPECT_EQ(vs[2].version, 3u);
  EXPECT_EQ(vs[2].state, VersionState::kDeleted);
  EXPECT_EQ(vs[2].content_hash, "");
  // The tombstone itself is not a readable version.
  LookupOptions v3;
  v3.version = 3;
  EXPECT_THAT(view().Get("gone", v3), StatusIs(StatusCode::kNotFound));
  Ref tomb = pinned;
  tomb.version = 3;
  EXPECT_THAT(view().Resolve(tomb), StatusIs(StatusCode::kNotFound));

  // Not listed any more.
  for (const ObjectMeta& m : ListAll(view(), {})) EXPECT_NE(m.key, "gone");

  StoreStats after = *store_->Stats();
  EXPECT_EQ(after.objects, before.objects);
  EXPECT_EQ(after.live_objects + 1, before.live_objects);
  EXPECT_EQ(after.versions, before.versions + 1);

  // Set after Remove revives the same object with a new version.
  ASSERT_OK_AND_ASSIGN(Ref revived, view().Set("gone", "back"));
  EXPECT_EQ(revived.id, first.id);
  ASSERT_OK_AND_ASSIGN(vs, view().Versions("gone"));
  ASSERT_EQ(vs.size(), 4u);
  EXPECT_EQ(vs[3].version, 4u);
  EXPECT_EQ(vs[3].state, VersionState::kPresent);
  ASSERT_OK_AND_ASSIGN(std::string now, view().Get("gone"));
  EXPECT_EQ(now, "back");
  ASSERT_OK_AND_ASSIGN(std::string d, view().Resolve(dynamic));
  EXPECT_EQ(d, "back");
  ASSERT_OK_AND_ASSIGN(old, view().Resolve(pinned));
  EXPECT_EQ(old, ValueOf(1));
  EXPECT_EQ(store_->Stats()->live_objects, before.live_objects);
}

// store.h: LookupOptions::version N is NotFound "when it does not exist or
// is a tombstone" -- so earlier versions of a removed key stay addressable
// by number, like its Versions() history.
TEST_F(VersionsTest, OlderVersionsOfARemovedKeyStayAddressable) {
  ASSERT_OK(view().Set("gone", ValueOf(1)));
  ASSERT_OK(view().Set("gone", ValueOf(2)));
  ASSERT_OK(view().Remove("gone"));
  LookupOptions v1;
  v1.version = 1;
  ASSERT_OK_AND_ASSIGN(std::string g1, view().Get("gone", v1));
  EXPECT_EQ(g1, ValueOf(1));
  ASSERT_OK_AND_ASSIGN(Ref pinned, view().RefOf("gone", v1));
  EXPECT_EQ(pinned.version, 1u);
  LookupOptions v3;
  v3.version = 3;
  EXPECT_THAT(view().Get("gone", v3), StatusIs(StatusCode::kNotFound));
}

TEST_F(VersionsTest, HistorySurvivesReopen) {
  ASSERT_OK_AND_ASSIGN(Ref first, view().Set("p", "a"));
  ASSERT_OK(view().Set("p", "bb"));
  ASSERT_OK(view().Remove("p"));
  ASSERT_OK(view().Set("p", "ccc"));
  std::string before = Snapshot(view());
  Reopen();
  EXPECT_EQ(Snapshot(view()), before);
  ASSERT_OK_AND_ASSIGN(std::string v, view().Get("p"));
  EXPECT_EQ(v, "ccc");
  ASSERT_OK_AND_ASSIGN(Ref r, view().RefOf("p"));
  EXPECT_EQ(r.id, first.id);
  LookupOptions lo;
  lo.version = 2;
  ASSERT_OK_AND_ASSIGN(v, view().Get("p", lo));
  EXPECT_EQ(v, "bb");
}

TEST_F(VersionsTest, RemoveAndVersionsErrorPaths) {
  EXPECT_THAT(view().Remove("nope"), StatusIs(StatusCode::kNotFound));
  EXPECT_THAT(view().Versions("nope"), StatusIs(StatusCode::kNotFound));
  EXPECT_THAT(view().Stat("nope"), StatusIs(StatusCode::kNotFound));
  EXPECT_THAT(view().Get("nope"), StatusIs(StatusCode::kNotFound));
  EXPECT_THAT(view().Remove(""), StatusIs(StatusCode::kInvalidArgument));
  EXPECT_THAT(view().Versions(std::string(257, 'x')),
              StatusIs(StatusCode::kInvalidArgument));
  EXPECT_THAT(view().Stat("a\nb"), StatusIs(StatusCode::kInvalidArgument));
  EXPECT_THAT(view().Get(std::string("a\0b", 3)),
              StatusIs(StatusCode::kInvalidArgument));
}

TEST_F(VersionsTest, StatReportsLatestMetadata) {
  SetOptions o;
  o.type = ValueType::kResult;
  o.tags = {"x", "y"};
  o.scope = "agent";
  ASSERT_OK_AND_ASSIGN(Ref r, view().Set("res", "12345", o));
  ASSERT_OK_AND_ASSIGN(ObjectMeta m, view().Stat("res"));
  EXPECT_EQ(m.id, r.id);
  EXPECT_EQ(m.key, "res");
  EXPECT_EQ(m.scope, Scope::Agent("alice"));
  EXPECT_EQ(m.type, ValueType::kResult);
  EXPECT_EQ(m.size_bytes, 5u);
  EXPECT_EQ(m.version, 1u);
  EXPECT_THAT(m.tags, ::testing::UnorderedElementsAre("x", "y"));
  EXPECT_TRUE(m.persistent);
  // Set replaces the tags.
  o.tags = {"z"};
  ASSERT_OK(view().Set("res", "123", o));
  ASSERT_OK_AND_ASSIGN(m, view().Stat("res"));
  EXPECT_THAT(m.tags, ::testing::ElementsAre("z"));
  EXPECT_EQ(m.version, 2u);
  EXPECT_EQ(m.size_bytes, 3u);
  EXPECT_LE(m.created_unix_ns, m.updated_unix_ns);
}

TEST_F(VersionsTest, SetWithoutTagsReplacesTagsWithNone) {
  // store.h: SetOptions::tags "Replaces the object's tags".
  SetOptions tagged;
  tagged.tags = {"a"};
  ASSERT_OK(view().Set("k", "1", tagged));
  ASSERT_OK(view().Set("k", "2"));
  ASSERT_OK_AND_ASSIGN(ObjectMeta m, view().Stat("k"));
  EXPECT_TRUE(m.tags.empty());
}

TEST_F(VersionsTest, ReadRangeOfRemovedObject) {
  ASSERT_OK_AND_ASSIGN(Ref written, view().Set("k", "0123456789"));
  const Ref dyn = written.Dynamic();
  LookupOptions v1;
  v1.version = 1;
  ASSERT_OK_AND_ASSIGN(Ref pinned, view().RefOf("k", v1));
  ASSERT_OK(view().Remove("k"));
  EXPECT_THAT(view().ReadRange(dyn, 0, 4), StatusIs(StatusCode::kNotFound));
  ASSERT_OK_AND_ASSIGN(std::string part, view().ReadRange(pinned, 2, 3));
  EXPECT_EQ(part, "234");
}

TEST_F(VersionsTest, StatsCountObjectsVersionsAndContent) {
  StoreStats s0 = *store_->Stats();
  EXPECT_EQ(s0.objects, 0u);
  EXPECT_EQ(s0.versions, 0u);
  EXPECT_EQ(s0.memory_ceiling_bytes, options_.memory_ceiling_bytes);
  ASSERT_OK(view().Set("a", "1111"));
  ASSERT_OK(view().Set("a", "22"));
  // Small contents are kept inline, one copy per version (only blob files
  // are deduplicated: see store.h, StoreStats::content_bytes).
  ASSERT_OK(view().Set("b", "1111"));
  StoreStats s = *store_->Stats();
  EXPECT_EQ(s.objects, 2u);
  EXPECT_EQ(s.live_objects, 2u);
  EXPECT_EQ(s.versions, 3u);
  EXPECT_EQ(s.content_bytes, 10u);
  SetOptions tmp;
  tmp.persist = false;
  ASSERT_OK(view().Set("t", "session only", tmp));
  s = *store_->Stats();
  EXPECT_EQ(s.objects, 2u) << "session-only values are not durable objects";
  EXPECT_EQ(s.session_objects, 1u);
}

TEST_F(VersionsTest, ConcurrentThreadsOnOneStoreLoseNothing) {
  constexpr int kThreads = 4;
  constexpr int kPerThread = 100;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([this, t] {
      auto v = store_->OpenView("agent" + std::to_string(t), "");
      ASSERT_OK(v);
      for (int i = 0; i < kPerThread; ++i) {
        std::string key = "t" + std::to_string(t) + "/" + std::to_string(i);
        ASSERT_OK(v->Set(key, Payload(t * 1000 + i)));
        ASSERT_OK(v->Set("shared", key));
        ASSERT_OK_AND_ASSIGN(std::string got, v->Get(key));
        ASSERT_EQ(got, Payload(t * 1000 + i));
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) {
    for (int i = 0; i < kPerThread; ++i) {
      std::string key = "t" + std::to_string(t) + "/" + std::to_string(i);
      ASSERT_OK_AND_ASSIGN(std::string got, view().Get(key));
      ASSERT_EQ(got, Payload(t * 1000 + i)) << key;
    }
  }
  ASSERT_OK_AND_ASSIGN(std::vector<VersionMeta> vs, view().Versions("shared"));
  ASSERT_EQ(vs.size(), static_cast<size_t>(kThreads * kPerThread));
  for (size_t i = 0; i < vs.size(); ++i) EXPECT_EQ(vs[i].version, i + 1);
}

}  // namespace
}  // namespace ctxkit::testing
