// View::Rename: an object keeps its id, history and tags under a new key
// (what a file watcher needs to track a move), in every instance.

#include <string>
#include <vector>

#include "store/test_util.h"

namespace ctxkit::testing {
namespace {

class RenameTest : public StoreTest {};

TEST_F(RenameTest, KeepsIdVersionsAndTagsUnderTheNewKey) {
  SetOptions tagged;
  tagged.tags = {"kind:file"};
  ASSERT_OK_AND_ASSIGN(Ref v1, view().Set("file:/a.txt", "one", tagged));
  ASSERT_OK(view().Set("file:/a.txt", "two", tagged));
  ASSERT_OK_AND_ASSIGN(Ref pinned, view().RefOf("file:/a.txt", {"", 1}));

  ASSERT_OK_AND_ASSIGN(Ref moved, view().Rename("file:/a.txt", "file:/b.txt"));
  EXPECT_EQ(moved.id, v1.id);
  EXPECT_EQ(moved.key, "file:/b.txt");
  EXPECT_FALSE(moved.is_static());

  EXPECT_THAT(view().Get("file:/a.txt"), StatusIs(StatusCode::kNotFound));
  ASSERT_OK_AND_ASSIGN(std::string latest, view().Get("file:/b.txt"));
  EXPECT_EQ(latest, "two");
  ASSERT_OK_AND_ASSIGN(std::vector<VersionMeta> history,
                       view().Versions("file:/b.txt"));
  ASSERT_EQ(history.size(), 2u);
  ASSERT_OK_AND_ASSIGN(ObjectMeta meta, view().Stat("file:/b.txt"));
  EXPECT_EQ(meta.tags, std::vector<std::string>{"kind:file"});
  // Refs carry their key: one taken under the old key no longer resolves,
  // the same version under the new key does.
  EXPECT_THAT(view().Resolve(pinned), StatusIs(StatusCode::kNotFound));
  ASSERT_OK_AND_ASSIGN(Ref repinned, view().RefOf("file:/b.txt", {"", 1}));
  ASSERT_OK_AND_ASSIGN(std::string first, view().Resolve(repinned));
  EXPECT_EQ(first, "one");
  // The next write under the new key continues the same history.
  ASSERT_OK_AND_ASSIGN(Ref v3, view().Set("file:/b.txt", "three"));
  EXPECT_EQ(v3.id, v1.id);
  ASSERT_OK_AND_ASSIGN(history, view().Versions("file:/b.txt"));
  EXPECT_EQ(history.size(), 3u);
}

TEST_F(RenameTest, ALiveTargetIsAlreadyExistsAndChangesNothing) {
  ASSERT_OK(view().Set("a", "A"));
  ASSERT_OK(view().Set("b", "B"));
  EXPECT_THAT(view().Rename("a", "b"), StatusIs(StatusCode::kAlreadyExists));
  ASSERT_OK_AND_ASSIGN(std::string a, view().Get("a"));
  ASSERT_OK_AND_ASSIGN(std::string b, view().Get("b"));
  EXPECT_EQ(a, "A");
  EXPECT_EQ(b, "B");
}

TEST_F(RenameTest, ARemovedTargetKeepsItsHistoryAndTheLiveObjectWins) {
  ASSERT_OK(view().Set("b", "old b"));
  ASSERT_OK_AND_ASSIGN(Ref old_b, view().RefOf("b", {"", 1}));
  ASSERT_OK(view().Remove("b"));
  ASSERT_OK_AND_ASSIGN(Ref a, view().Set("a", "A"));
  ASSERT_OK_AND_ASSIGN(Ref moved, view().Rename("a", "b"));
  EXPECT_EQ(moved.id, a.id);
  ASSERT_OK_AND_ASSIGN(std::string b, view().Get("b"));
  EXPECT_EQ(b, "A");
  ASSERT_OK_AND_ASSIGN(std::string old, view().Resolve(old_b));
  EXPECT_EQ(old, "old b");
}

TEST_F(RenameTest, ValidatesKeysAndRefusesMissingOrSessionOnlyValues) {
  EXPECT_THAT(view().Rename("missing", "x"), StatusIs(StatusCode::kNotFound));
  ASSERT_OK(view().Set("a", "A"));
  EXPECT_THAT(view().Rename("a", ""), StatusIs(StatusCode::kInvalidArgument));
  EXPECT_THAT(view().Rename("a", std::string("bad\0key", 7)),
              StatusIs(StatusCode::kInvalidArgument));
  SetOptions ephemeral;
  ephemeral.persist = false;
  ASSERT_OK(view().Set("tmp", "t", ephemeral));
  EXPECT_THAT(view().Rename("tmp", "tmp2"),
              StatusIs(StatusCode::kFailedPrecondition));
  ASSERT_OK(view().Remove("a"));
  EXPECT_THAT(view().Rename("a", "b"), StatusIs(StatusCode::kNotFound));
}

TEST_F(RenameTest, RenamingToTheSameKeyIsANoOp) {
  ASSERT_OK_AND_ASSIGN(Ref a, view().Set("a", "A"));
  ASSERT_OK_AND_ASSIGN(Ref same, view().Rename("a", "a"));
  EXPECT_EQ(same.id, a.id);
  ASSERT_OK_AND_ASSIGN(std::string v, view().Get("a"));
  EXPECT_EQ(v, "A");
}

TEST_F(RenameTest, StaysInItsScope) {
  SetOptions agent;
  agent.scope = "agent";
  ASSERT_OK(view().Set("k", "mine", agent));
  ASSERT_OK(view().Set("k2", "global"));
  LookupOptions in_agent;
  in_agent.scope = "agent";
  // k2 exists only in global, so renaming into the agent scope is free.
  ASSERT_OK_AND_ASSIGN(Ref moved, view().Rename("k", "k2", in_agent));
  EXPECT_EQ(moved.scope, Scope::Agent("alice"));
  ASSERT_OK_AND_ASSIGN(std::string v, view().Get("k2", in_agent));
  EXPECT_EQ(v, "mine");
  LookupOptions in_global;
  in_global.scope = "global";
  ASSERT_OK_AND_ASSIGN(v, view().Get("k2", in_global));
  EXPECT_EQ(v, "global");
}

TEST_F(RenameTest, ASecondInstanceSeesTheNewKey) {
  std::unique_ptr<Store> second = OpenSecond();
  ASSERT_OK_AND_ASSIGN(View other, second->OpenView("alice", "s1"));
  ASSERT_OK(view().Set("a", "A"));
  // Warm the other instance's caches for both names, absence included.
  ASSERT_OK(other.Get("a"));
  EXPECT_THAT(other.Get("b"), StatusIs(StatusCode::kNotFound));
  ASSERT_OK(view().Rename("a", "b"));
  EXPECT_THAT(other.Get("a"), StatusIs(StatusCode::kNotFound));
  ASSERT_OK_AND_ASSIGN(std::string b, other.Get("b"));
  EXPECT_EQ(b, "A");
}

}  // namespace
}  // namespace ctxkit::testing
