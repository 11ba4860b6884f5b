// Options::read_only: an existing store is read and never written. Every
// durable write fails with PermissionDenied and leaves the store's files as
// they were; a writer that starts later is seen by a reader already open.

#include <filesystem>
#include <string>

#include "common/files.h"
#include "store/test_util.h"

namespace ctxkit::testing {
namespace {

namespace fs = std::filesystem;

class ReadOnlyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    home_ = dir_.path() + "/store";
    auto store = Store::Open(OptionsFor(home_));
    ASSERT_OK(store);
    ASSERT_OK_AND_ASSIGN(View view, (*store)->OpenView("alice", "s1"));
    ASSERT_OK(view.Set("small", "one"));
    ASSERT_OK(view.Set("small", "two"));
    ASSERT_OK(view.Set("big", std::string(200000, 'b')));
    SetOptions agent;
    agent.scope = "agent";
    ASSERT_OK(view.Set("mine", "agent value", agent));
  }

  Result<std::unique_ptr<Store>> OpenReadOnly() {
    Options o = OptionsFor(home_);
    o.read_only = true;
    return Store::Open(o);
  }

  TempDir dir_;
  std::string home_;
};

TEST_F(ReadOnlyTest, ReadsAnswerWritesAreRefusedFilesUntouched) {
  const std::string before = TreeState(home_);
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Store> store, OpenReadOnly());
  ASSERT_OK_AND_ASSIGN(View view, store->OpenView("alice", "s1"));
  ASSERT_OK_AND_ASSIGN(std::string two, view.Get("small"));
  EXPECT_EQ(two, "two");
  ASSERT_OK_AND_ASSIGN(std::string one, view.Get("small", {"", 1}));
  EXPECT_EQ(one, "one");
  ASSERT_OK_AND_ASSIGN(std::string big, view.Get("big"));
  EXPECT_EQ(big.size(), 200000u);
  ASSERT_OK_AND_ASSIGN(std::string mine, view.Get("mine"));
  EXPECT_EQ(mine, "agent value");
  ASSERT_OK_AND_ASSIGN(Ref ref, view.RefOf("small"));
  ASSERT_OK_AND_ASSIGN(std::string resolved, view.Resolve(ref));
  EXPECT_EQ(resolved, "two");
  ASSERT_OK_AND_ASSIGN(uint64_t tokens, view.CountTokens("small"));
  EXPECT_GT(tokens, 0u);

  EXPECT_THAT(view.Set("small", "three"),
              StatusIs(StatusCode::kPermissionDenied));
  EXPECT_THAT(view.Set("new", "x"), StatusIs(StatusCode::kPermissionDenied));
  EXPECT_THAT(view.Set("big2", std::string(200000, 'c')),
              StatusIs(StatusCode::kPermissionDenied));
  EXPECT_THAT(view.Append("log", "x"), StatusIs(StatusCode::kPermissionDenied));
  EXPECT_THAT(view.Remove("small"), StatusIs(StatusCode::kPermissionDenied));
  EXPECT_THAT(view.Promote("mine"), StatusIs(StatusCode::kPermissionDenied));
  GarbageOptions gc;
  gc.apply = true;
  gc.retention_seconds = 0;
  EXPECT_THAT(store->CollectGarbage(gc),
              StatusIs(StatusCode::kPermissionDenied));
  // Session-only values live in this process, and still work.
  SetOptions scratch;
  scratch.persist = false;
  ASSERT_OK(view.Set("scratch", std::string(100000, 's'), scratch));
  ASSERT_OK_AND_ASSIGN(std::string back, view.Get("scratch"));
  EXPECT_EQ(back.size(), 100000u);
  Status refused = view.Set("small", "three").status();
  EXPECT_NE(refused.message().find("read-only"), std::string::npos)
      << refused.ToString();

  ASSERT_OK_AND_ASSIGN(std::string still, view.Get("small"));
  EXPECT_EQ(still, "two");
  store.reset();
  EXPECT_EQ(TreeState(home_), before) << "a read-only store changed on disk";
}

TEST_F(ReadOnlyTest, SeesAWriterThatStartsLater) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Store> reader, OpenReadOnly());
  ASSERT_OK_AND_ASSIGN(View rview, reader->OpenView("alice", "s1"));
  ASSERT_OK_AND_ASSIGN(std::string two, rview.Get("small"));
  EXPECT_EQ(two, "two");
  {
    auto writer = Store::Open(OptionsFor(home_));
    ASSERT_OK(writer);
    ASSERT_OK_AND_ASSIGN(View wview, (*writer)->OpenView("alice", "s1"));
    ASSERT_OK(wview.Set("small", "three"));
    ASSERT_OK(wview.Set("later", "new key"));
    ASSERT_OK_AND_ASSIGN(std::string three, rview.Get("small"));
    EXPECT_EQ(three, "three") << "while the writer is open";
  }
  // The writer closed (its log checkpointed into the database).
  ASSERT_OK_AND_ASSIGN(std::string later, rview.Get("later"));
  EXPECT_EQ(later, "new key");
  ASSERT_OK_AND_ASSIGN(std::string three, rview.Get("small"));
  EXPECT_EQ(three, "three");
}

TEST_F(ReadOnlyTest, NoStoreIsNotFoundAndNothingIsCreated) {
  Options o = OptionsFor(dir_.path() + "/absent");
  o.read_only = true;
  EXPECT_THAT(Store::Open(o), StatusIs(StatusCode::kNotFound));
  EXPECT_FALSE(fs::exists(dir_.path() + "/absent"));
}

}  // namespace
}  // namespace ctxkit::testing
