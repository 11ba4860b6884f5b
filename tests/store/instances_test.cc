// Two Store instances on one home (as two processes would have): each sees
// the other's writes at once; no cache or memo serves stale answers.

#include <string>
#include <thread>
#include <vector>

#include "store/test_util.h"

namespace ctxkit::testing {
namespace {

class InstancesTest : public StoreTest {
 protected:
  void SetUp() override {
    StoreTest::SetUp();
    second_ = OpenSecond();
    ASSERT_NE(second_, nullptr);
    auto v = second_->OpenView("alice", "s2");
    ASSERT_OK(v);
    other_.emplace(std::move(v).value());
  }
  void TearDown() override {
    other_.reset();
    second_.reset();
    StoreTest::TearDown();
  }
  View& other() { return *other_; }

  std::unique_ptr<Store> second_;
  std::optional<View> other_;
};

TEST_F(InstancesTest, NewVersionFromOtherInstanceIsSeenByCachedReaders) {
  ASSERT_OK_AND_ASSIGN(Ref written, view().Set("k", "v1"));
  const Ref dyn = written.Dynamic();
  // Warm every cache this instance has.
  ASSERT_OK(view().Get("k"));
  ASSERT_OK(view().RefOf("k"));
  ASSERT_OK(view().Stat("k"));
  ASSERT_OK(view().Resolve(dyn));
  ASSERT_OK(other().Set("k", "a longer version two"));
  ASSERT_OK_AND_ASSIGN(std::string v, view().Get("k"));
  EXPECT_EQ(v, "a longer version two");
  ASSERT_OK_AND_ASSIGN(v, view().Resolve(dyn));
  EXPECT_EQ(v, "a longer version two");
  ASSERT_OK_AND_ASSIGN(Ref r, view().RefOf("k"));
  EXPECT_EQ(r.size_bytes, 20u) << "RefOf served a stale size";
  ASSERT_OK_AND_ASSIGN(ObjectMeta m, view().Stat("k"));
  EXPECT_EQ(m.version, 2u);
  EXPECT_EQ(m.size_bytes, 20u);
  ASSERT_OK_AND_ASSIGN(std::vector<VersionMeta> vs, view().Versions("k"));
  EXPECT_EQ(vs.size(), 2u);
}

TEST_F(InstancesTest, RemoveFromOtherInstanceIsSeen) {
  ASSERT_OK_AND_ASSIGN(Ref written, view().Set("k", "v1"));
  const Ref dyn = written.Dynamic();
  ASSERT_OK(view().Get("k"));
  ASSERT_OK(view().RefOf("k"));
  ASSERT_OK(other().Remove("k"));
  EXPECT_THAT(view().Get("k"), StatusIs(StatusCode::kNotFound));
  EXPECT_THAT(view().RefOf("k"), StatusIs(StatusCode::kNotFound));
  EXPECT_THAT(view().Stat("k"), StatusIs(StatusCode::kNotFound));
  EXPECT_THAT(view().Resolve(dyn), StatusIs(StatusCode::kNotFound));
  EXPECT_THAT(view().Remove("k"), StatusIs(StatusCode::kNotFound));
  for (const ObjectMeta& m : ListAll(view(), {})) EXPECT_NE(m.key, "k");
  // Revival from the first instance continues the same history.
  ASSERT_OK_AND_ASSIGN(Ref back, view().Set("k", "v3"));
  EXPECT_EQ(back.id, dyn.id);
  ASSERT_OK_AND_ASSIGN(std::vector<VersionMeta> vs, other().Versions("k"));
  ASSERT_EQ(vs.size(), 3u);
  EXPECT_EQ(vs[1].state, VersionState::kDeleted);
}

TEST_F(InstancesTest, PromotionFromOtherInstanceIsSeen) {
  SetOptions agent;
  agent.scope = "agent";
  ASSERT_OK_AND_ASSIGN(Ref r, view().Set("p", "v", agent));
  ASSERT_OK(view().RefOf("p"));
  ASSERT_OK_AND_ASSIGN(Ref promoted, other().Promote("p"));
  EXPECT_EQ(promoted.id, r.id);
  ASSERT_OK_AND_ASSIGN(Ref now, view().RefOf("p"));
  EXPECT_EQ(now.scope, Scope::Global()) << "stale scope from a memo";
  LookupOptions lo;
  lo.scope = "agent";
  EXPECT_THAT(view().Get("p", lo), StatusIs(StatusCode::kNotFound));
  // A conflicting promote from the first instance sees the global object.
  ASSERT_OK(view().Set("p", "again", agent));
  EXPECT_THAT(view().Promote("p"), StatusIs(StatusCode::kAlreadyExists));
}

TEST_F(InstancesTest, ConcurrentSetsOnOneKeyFromTwoInstances) {
  constexpr int kEach = 100;
  std::thread t1([&] {
    for (int i = 0; i < kEach; ++i) ASSERT_OK(view().Set("hot", "a"));
  });
  std::thread t2([&] {
    for (int i = 0; i < kEach; ++i) ASSERT_OK(other().Set("hot", "b"));
  });
  t1.join();
  t2.join();
  ASSERT_OK_AND_ASSIGN(std::vector<VersionMeta> vs, view().Versions("hot"));
  ASSERT_EQ(vs.size(), 2u * kEach);
  for (size_t i = 0; i < vs.size(); ++i) EXPECT_EQ(vs[i].version, i + 1);
  ASSERT_OK_AND_ASSIGN(Ref a, view().RefOf("hot"));
  ASSERT_OK_AND_ASSIGN(Ref b, other().RefOf("hot"));
  EXPECT_EQ(a.id, b.id) << "one key, one object";
}

TEST_F(InstancesTest, SameNewKeyCreatedByBothInstancesIsOneObject) {
  for (int i = 0; i < 20; ++i) {
    std::string key = "new/" + std::to_string(i);
    Result<Ref> ra = Status::Internal("unset");
    Result<Ref> rb = Status::Internal("unset");
    std::thread t1([&] { ra = view().Set(key, "a"); });
    std::thread t2([&] { rb = other().Set(key, "b"); });
    t1.join();
    t2.join();
    ASSERT_OK(ra);
    ASSERT_OK(rb);
    EXPECT_EQ(ra->id, rb->id) << key;
    ASSERT_OK_AND_ASSIGN(std::vector<VersionMeta> vs, view().Versions(key));
    EXPECT_EQ(vs.size(), 2u) << key;
  }
}

}  // namespace
}  // namespace ctxkit::testing
