// Garbage collection keeps what sessions name, whoever collects: the store
// itself holds every version a session pins, activates, compacts or
// renders (Store::CollectGarbage with no keep list), and a pin that races a
// collection is either refused or kept.

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "session/session_test_util.h"

namespace ctxkit::testing {
namespace {

class GcHoldsTest : public SessionStoreFixture {
 protected:
  GarbageReport CollectAll() {
    GarbageOptions o;
    o.retention_seconds = 0;
    o.apply = true;
    Result<GarbageReport> r = store().CollectGarbage(o);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : GarbageReport();
  }
  std::string Render(Session& s) {
    Result<RenderResult> r = s.Render({.budget_tokens = 20000});
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? r->request_json : "";
  }
};

TEST_F(GcHoldsTest, PinnedAndActiveVersionsSurviveACollectionWithNoKeepList) {
  std::string one, two;
  for (int i = 0; i < 50; ++i) one += "version one\n", two += "version two\n";
  ASSERT_TRUE(view().Set("doc", one).ok());
  auto s = NewSession("s1");
  ASSERT_NE(s, nullptr);
  ASSERT_TRUE(s->Activate("doc", 1).ok());
  ASSERT_TRUE(s->Pin("doc", 1).ok());
  const std::string first = Render(*s);
  ASSERT_TRUE(view().Set("doc", two).ok());
  CollectAll();
  Result<std::string> v1 = view().Get("doc", {.version = 1});
  ASSERT_TRUE(v1.ok()) << v1.status().ToString();
  EXPECT_EQ(*v1, one);
  EXPECT_NE(Render(*s), "");
  Result<RenderResult> replay = s->Replay(1);
  ASSERT_TRUE(replay.ok()) << replay.status().ToString();
  EXPECT_EQ(replay->request_json, first);
}

TEST_F(GcHoldsTest, EveryRecordedRenderReplaysAfterCollections) {
  auto s = NewSession("s1");
  ASSERT_NE(s, nullptr);
  ASSERT_TRUE(view().Set("a", "alpha").ok());
  ASSERT_TRUE(s->Activate("a").ok());
  std::vector<std::string> rendered;
  for (int i = 0; i < 4; ++i) {
    rendered.push_back(Render(*s));
    ASSERT_TRUE(view().Set("a", "alpha " + std::to_string(i)).ok());
    CollectAll();
  }
  for (size_t n = 1; n <= rendered.size(); ++n) {
    Result<RenderResult> replay = s->Replay(n);
    ASSERT_TRUE(replay.ok()) << n << ": " << replay.status().ToString();
    EXPECT_EQ(replay->request_json, rendered[n - 1]) << n;
  }
}

TEST_F(GcHoldsTest, RemovingTheSessionReleasesWhatItHeld) {
  ASSERT_TRUE(view().Set("doc", "one").ok());
  auto s = NewSession("s1");
  ASSERT_NE(s, nullptr);
  ASSERT_TRUE(s->Pin("doc", 1).ok());
  ASSERT_TRUE(view().Set("doc", "two").ok());
  EXPECT_EQ(CollectAll().kept_by_ref, 1u);
  s.reset();
  ASSERT_TRUE(Session::Remove(store(), "s1").ok());
  EXPECT_EQ(CollectAll().versions, 1u);
  EXPECT_TRUE(view().Get("doc", {.version = 1}).status().IsNotFound());
}

// Pins race collections in another thread with its own Store (as another
// process would): every acknowledged pin's version is still readable.
TEST_F(GcHoldsTest, APinRacingACollectionIsRefusedOrKept) {
  constexpr int kKeys = 40;
  for (int i = 0; i < kKeys; ++i) {
    const std::string key = "k" + std::to_string(i);
    ASSERT_TRUE(view().Set(key, "one").ok());
    ASSERT_TRUE(view().Set(key, "two").ok());
  }
  auto s = NewSession("s1");
  ASSERT_NE(s, nullptr);
  Options o;
  o.home = home();
  o.durability = Durability::kProcess;
  o.store_url = PgStoreUrlFor(o.home);
  auto other = Store::Open(o);
  ASSERT_TRUE(other.ok()) << other.status().ToString();
  std::atomic<bool> done{false};
  std::atomic<int> collections{0};
  std::thread gc([&] {
    GarbageOptions g;
    g.retention_seconds = 0;
    g.apply = true;
    do {
      Result<GarbageReport> r = (*other)->CollectGarbage(g);
      EXPECT_TRUE(r.ok()) << r.status().ToString();
      ++collections;
    } while (!done);
  });
  // Pins start once collections run, so the two overlap however the
  // threads are scheduled.
  while (collections.load() == 0) std::this_thread::yield();
  std::vector<std::string> pinned;
  int refused = 0;
  for (int i = 0; i < kKeys; ++i) {
    const std::string key = "k" + std::to_string(i);
    Status st = s->Pin(key, 1);
    if (st.ok()) {
      pinned.push_back(key);
    } else {
      EXPECT_TRUE(st.IsNotFound()) << st.ToString();
      ++refused;
    }
  }
  done = true;
  gc.join();
  EXPECT_EQ(pinned.size() + refused, static_cast<size_t>(kKeys));
  for (const std::string& key : pinned) {
    Result<std::string> v1 = view().Get(key, {.version = 1});
    EXPECT_TRUE(v1.ok()) << key << ": " << v1.status().ToString();
  }
  EXPECT_NE(Render(*s), "");
}

}  // namespace
}  // namespace ctxkit::testing
