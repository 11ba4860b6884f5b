// List: filters (scope, type, prefix, tags), ordering, pagination with
// cursors, limit validation.

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "store/test_util.h"

namespace ctxkit::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::UnorderedElementsAre;

std::vector<std::string> KeysOf(const std::vector<ObjectMeta>& items) {
  std::vector<std::string> keys;
  for (const auto& m : items) keys.push_back(m.key);
  return keys;
}

class ListTest : public StoreTest {
 protected:
  void SetUp() override {
    StoreTest::SetUp();
    Put("docs/a", "global", ValueType::kText, {"red", "big"});
    Put("docs/b", "global", ValueType::kJson, {"red"}, "[1]");
    Put("docs/c", "agent", ValueType::kText, {"big"});
    Put("notes/x", "session", ValueType::kMemory, {});
    Put("notes/y", "agent", ValueType::kResult, {"red", "big", "old"});
    Put("zeta", "global", ValueType::kText, {});
    ASSERT_OK(view().Append("logs/run", "line\n"));
    // Another agent's objects never show up in alice's listings.
    View bob = MakeView("bob", "s2");
    SetOptions o;
    o.scope = "agent";
    o.tags = {"red"};
    ASSERT_OK(bob.Set("docs/bob", "b", o));
    o.scope = "session";
    ASSERT_OK(bob.Set("docs/bob-session", "b", o));
    // A removed object is not listed.
    ASSERT_OK(view().Set("docs/removed", "r"));
    ASSERT_OK(view().Remove("docs/removed"));
  }

  void Put(const std::string& key, const std::string& scope, ValueType type,
           std::vector<std::string> tags, const std::string& value = "v") {
    SetOptions o;
    o.scope = scope;
    o.type = type;
    o.tags = std::move(tags);
    ASSERT_OK(view().Set(key, value, o));
  }
};

TEST_F(ListTest, EverythingTheViewSeesOrderedByKey) {
  std::vector<ObjectMeta> all = ListAll(view(), {});
  EXPECT_THAT(KeysOf(all), ElementsAre("docs/a", "docs/b", "docs/c", "logs/run",
                                       "notes/x", "notes/y", "zeta"));
  for (const ObjectMeta& m : all) {
    EXPECT_FALSE(m.id.empty());
    EXPECT_GT(m.created_unix_ns, 0);
    EXPECT_LE(m.created_unix_ns, m.updated_unix_ns);
    EXPECT_EQ(m.version, 1u) << m.key;
    EXPECT_TRUE(m.persistent);
    ASSERT_OK_AND_ASSIGN(ObjectMeta stat,
                         view().Stat(m.key, {m.scope.ToString(), 0}));
    EXPECT_EQ(DescribeMeta(stat), DescribeMeta(m));
  }
}

TEST_F(ListTest, MetadataMatchesWhatWasSet) {
  std::vector<ObjectMeta> all = ListAll(view(), {});
  std::map<std::string, ObjectMeta> by_key;
  for (auto& m : all) by_key[m.key] = m;
  EXPECT_EQ(by_key["docs/b"].type, ValueType::kJson);
  EXPECT_EQ(by_key["docs/b"].size_bytes, 3u);
  EXPECT_EQ(by_key["docs/b"].scope, Scope::Global());
  EXPECT_THAT(by_key["docs/b"].tags, ElementsAre("red"));
  EXPECT_EQ(by_key["docs/c"].scope, Scope::Agent("alice"));
  EXPECT_EQ(by_key["notes/x"].scope, Scope::Session("s1"));
  EXPECT_EQ(by_key["notes/x"].type, ValueType::kMemory);
  EXPECT_THAT(by_key["notes/y"].tags,
              UnorderedElementsAre("red", "big", "old"));
  EXPECT_EQ(by_key["logs/run"].type, ValueType::kStream);
  EXPECT_EQ(by_key["logs/run"].size_bytes, 5u);
}

TEST_F(ListTest, ScopeFilter) {
  ListFilter f;
  f.scope = "global";
  EXPECT_THAT(KeysOf(ListAll(view(), f)),
              ElementsAre("docs/a", "docs/b", "logs/run", "zeta"));
  f.scope = "agent";
  EXPECT_THAT(KeysOf(ListAll(view(), f)), ElementsAre("docs/c", "notes/y"));
  f.scope = "agent:alice";
  EXPECT_THAT(KeysOf(ListAll(view(), f)), ElementsAre("docs/c", "notes/y"));
  f.scope = "session";
  EXPECT_THAT(KeysOf(ListAll(view(), f)), ElementsAre("notes/x"));
  f.scope = "session:s1";
  EXPECT_THAT(KeysOf(ListAll(view(), f)), ElementsAre("notes/x"));
  f.scope = "agent:bob";
  EXPECT_THAT(view().List(f), StatusIs(StatusCode::kPermissionDenied));
  f.scope = "session:s2";
  EXPECT_THAT(view().List(f), StatusIs(StatusCode::kPermissionDenied));
  f.scope = "bogus";
  EXPECT_THAT(view().List(f), StatusIs(StatusCode::kInvalidArgument));
}

TEST_F(ListTest, TypeFilter) {
  ListFilter f;
  f.type = ValueType::kText;
  EXPECT_THAT(KeysOf(ListAll(view(), f)),
              ElementsAre("docs/a", "docs/c", "zeta"));
  f.type = ValueType::kJson;
  EXPECT_THAT(KeysOf(ListAll(view(), f)), ElementsAre("docs/b"));
  f.type = ValueType::kStream;
  EXPECT_THAT(KeysOf(ListAll(view(), f)), ElementsAre("logs/run"));
  f.type = ValueType::kChat;
  EXPECT_THAT(KeysOf(ListAll(view(), f)), ElementsAre());
}

TEST_F(ListTest, PrefixFilter) {
  ListFilter f;
  f.key_prefix = "docs/";
  EXPECT_THAT(KeysOf(ListAll(view(), f)),
              ElementsAre("docs/a", "docs/b", "docs/c"));
  f.key_prefix = "notes/y";
  EXPECT_THAT(KeysOf(ListAll(view(), f)), ElementsAre("notes/y"));
  f.key_prefix = "nothing";
  EXPECT_THAT(KeysOf(ListAll(view(), f)), ElementsAre());
  // Prefixes are literal: no LIKE/GLOB wildcards.
  f.key_prefix = "docs%";
  EXPECT_THAT(KeysOf(ListAll(view(), f)), ElementsAre());
  f.key_prefix = "do_s";
  EXPECT_THAT(KeysOf(ListAll(view(), f)), ElementsAre());
  f.key_prefix = "docs*";
  EXPECT_THAT(KeysOf(ListAll(view(), f)), ElementsAre());
  f.key_prefix = "DOCS/";
  EXPECT_THAT(KeysOf(ListAll(view(), f)), ElementsAre());
}

TEST_F(ListTest, LiteralPrefixWithWildcardCharactersInKeys) {
  ASSERT_OK(view().Set("100%/done", "x"));
  ASSERT_OK(view().Set("100x/done", "x"));
  ASSERT_OK(view().Set("a_b", "x"));
  ASSERT_OK(view().Set("axb", "x"));
  ListFilter f;
  f.key_prefix = "100%";
  EXPECT_THAT(KeysOf(ListAll(view(), f)), ElementsAre("100%/done"));
  f.key_prefix = "a_";
  EXPECT_THAT(KeysOf(ListAll(view(), f)), ElementsAre("a_b"));
}

TEST_F(ListTest, TagFilterRequiresEveryTag) {
  ListFilter f;
  f.tags = {"red"};
  EXPECT_THAT(KeysOf(ListAll(view(), f)),
              ElementsAre("docs/a", "docs/b", "notes/y"));
  f.tags = {"red", "big"};
  EXPECT_THAT(KeysOf(ListAll(view(), f)), ElementsAre("docs/a", "notes/y"));
  f.tags = {"big", "red", "old"};
  EXPECT_THAT(KeysOf(ListAll(view(), f)), ElementsAre("notes/y"));
  f.tags = {"nope"};
  EXPECT_THAT(KeysOf(ListAll(view(), f)), ElementsAre());
}

TEST_F(ListTest, CombinedFilters) {
  ListFilter f;
  f.scope = "agent";
  f.tags = {"big"};
  f.key_prefix = "notes/";
  f.type = ValueType::kResult;
  EXPECT_THAT(KeysOf(ListAll(view(), f)), ElementsAre("notes/y"));
  f.type = ValueType::kText;
  EXPECT_THAT(KeysOf(ListAll(view(), f)), ElementsAre());
}

TEST_F(ListTest, SameKeyInSeveralScopesListedOncePerScope) {
  SetOptions o;
  o.scope = "agent";
  ASSERT_OK(view().Set("zeta", "agent zeta", o));
  o.scope = "session";
  ASSERT_OK(view().Set("zeta", "session zeta", o));
  ListFilter f;
  f.key_prefix = "zeta";
  std::vector<ObjectMeta> items = ListAll(view(), f);
  ASSERT_EQ(items.size(), 3u);
  std::set<std::string> scopes;
  for (const auto& m : items) scopes.insert(m.scope.ToString());
  EXPECT_EQ(scopes,
            (std::set<std::string>{"global", "agent:alice", "session:s1"}));
}

TEST_F(ListTest, LimitValidation) {
  ListFilter f;
  f.limit = 0;
  EXPECT_THAT(view().List(f), StatusIs(StatusCode::kInvalidArgument));
  f.limit = 10001;
  EXPECT_THAT(view().List(f), StatusIs(StatusCode::kInvalidArgument));
  f.limit = 10000;
  EXPECT_OK(view().List(f));
  f.limit = 1;
  ASSERT_OK_AND_ASSIGN(ListPage page, view().List(f));
  EXPECT_EQ(page.items.size(), 1u);
  EXPECT_FALSE(page.next_cursor.empty());
}

TEST_F(ListTest, GarbageCursorIsInvalidArgument) {
  for (std::string cursor : {"garbage", "\x01\x02", "!!!", "zzzzzzzzzzzzzzz"}) {
    ListFilter f;
    f.cursor = cursor;
    auto r = view().List(f);
    EXPECT_THAT(r, StatusIs(StatusCode::kInvalidArgument)) << cursor;
  }
}

TEST_F(ListTest, ExactPageBoundaryEndsWithEmptyCursor) {
  ListFilter f;
  f.key_prefix = "docs/";
  f.limit = 3;
  ASSERT_OK_AND_ASSIGN(ListPage page, view().List(f));
  EXPECT_EQ(page.items.size(), 3u);
  if (!page.next_cursor.empty()) {
    f.cursor = page.next_cursor;
    ASSERT_OK_AND_ASSIGN(ListPage last, view().List(f));
    EXPECT_TRUE(last.items.empty());
    EXPECT_TRUE(last.next_cursor.empty());
  }
}

TEST_F(ListTest, PaginationVisitsEveryObjectExactlyOnce) {
  std::set<std::string> expected;
  for (const auto& m : ListAll(view(), {})) {
    expected.insert(m.key + "@" + m.scope.ToString());
  }
  for (int i = 0; i < 237; ++i) {
    std::string key = "page/" + std::to_string(i * 7919 % 1000);
    SetOptions o;
    o.scope = i % 3 == 0 ? "agent" : (i % 3 == 1 ? "session" : "");
    ASSERT_OK(view().Set(key, "v", o));
    expected.insert(key + "@" +
                    (i % 3 == 0   ? "agent:alice"
                     : i % 3 == 1 ? "session:s1"
                                  : "global"));
  }
  for (size_t page_size : {size_t{1}, size_t{7}, size_t{100}, size_t{10000}}) {
    std::vector<ObjectMeta> all = ListAll(view(), {}, page_size);
    std::vector<std::string> seen;
    for (const auto& m : all) seen.push_back(m.key + "@" + m.scope.ToString());
    std::set<std::string> unique(seen.begin(), seen.end());
    EXPECT_EQ(unique.size(), seen.size()) << "duplicates at page " << page_size;
    EXPECT_EQ(unique, expected) << "page size " << page_size;
    EXPECT_TRUE(std::is_sorted(
        all.begin(), all.end(),
        [](const ObjectMeta& a, const ObjectMeta& b) { return a.key < b.key; }))
        << "page size " << page_size;
  }
  // With a filter too.
  ListFilter f;
  f.key_prefix = "page/";
  f.scope = "agent";
  EXPECT_EQ(ListAll(view(), f, 9).size(), 79u);
}

TEST_F(ListTest, CursorSurvivesWritesBetweenPages) {
  for (int i = 0; i < 20; ++i) {
    ASSERT_OK(
        view().Set("w/" + std::string(1, static_cast<char>('a' + i)), "v"));
  }
  ListFilter f;
  f.key_prefix = "w/";
  f.limit = 5;
  ASSERT_OK_AND_ASSIGN(ListPage p1, view().List(f));
  ASSERT_EQ(p1.items.size(), 5u);
  EXPECT_EQ(p1.items.back().key, "w/e");
  // Writes after the cursor position show up; before it they don't repeat.
  ASSERT_OK(view().Set("w/a", "new version"));
  ASSERT_OK(view().Set("w/zz", "new object"));
  std::vector<std::string> rest;
  f.cursor = p1.next_cursor;
  while (true) {
    ASSERT_OK_AND_ASSIGN(ListPage p, view().List(f));
    for (auto& m : p.items) rest.push_back(m.key);
    if (p.next_cursor.empty()) break;
    f.cursor = p.next_cursor;
  }
  ASSERT_EQ(rest.size(), 16u);
  EXPECT_EQ(rest.front(), "w/f");
  EXPECT_EQ(rest.back(), "w/zz");
}

TEST_F(ListTest, KeysAreOrderedByBytes) {
  for (std::string key : {"B", "a", "\xc3\xa9", "Z", "b", "aa", "a b"}) {
    ASSERT_OK(view().Set("ord/" + key, "v"));
  }
  ListFilter f;
  f.key_prefix = "ord/";
  EXPECT_THAT(KeysOf(ListAll(view(), f, 2)),
              ElementsAre("ord/B", "ord/Z", "ord/a", "ord/a b", "ord/aa",
                          "ord/b", "ord/\xc3\xa9"));
}

TEST_F(ListTest, PaginationWithTiesAndSessionOnlyObjects) {
  // The same keys in three scopes, some durable and some session-only:
  // small pages must still visit each (key, scope) exactly once, in key
  // order.
  std::set<std::string> expected;
  for (int i = 0; i < 30; ++i) {
    std::string key = "tie/" + std::to_string(100 + i);
    for (std::string scope : {"global", "agent", "session"}) {
      SetOptions o;
      o.scope = scope;
      o.persist = (i + scope.size()) % 3 != 0;
      ASSERT_OK(view().Set(key, "v", o));
      expected.insert(key + "@" +
                      (scope == "global"  ? std::string("global")
                       : scope == "agent" ? std::string("agent:alice")
                                          : std::string("session:s1")));
    }
  }
  ListFilter f;
  f.key_prefix = "tie/";
  for (size_t page : {size_t{1}, size_t{2}, size_t{4}, size_t{7}}) {
    std::vector<ObjectMeta> all = ListAll(view(), f, page);
    std::vector<std::string> seen;
    for (const auto& m : all) seen.push_back(m.key + "@" + m.scope.ToString());
    std::set<std::string> unique(seen.begin(), seen.end());
    EXPECT_EQ(seen.size(), expected.size()) << "page " << page;
    EXPECT_EQ(unique, expected) << "page " << page;
    EXPECT_TRUE(std::is_sorted(
        all.begin(), all.end(),
        [](const ObjectMeta& a, const ObjectMeta& b) { return a.key < b.key; }))
        << "page " << page;
  }
}

TEST_F(ListTest, SessionOnlyObjectsAreListedAsNotPersistent) {
  SetOptions tmp;
  tmp.persist = false;
  tmp.tags = {"scratch"};
  ASSERT_OK(view().Set("scratch/1", "x", tmp));
  ListFilter f;
  f.key_prefix = "scratch/";
  std::vector<ObjectMeta> items = ListAll(view(), f);
  ASSERT_EQ(items.size(), 1u);
  EXPECT_FALSE(items[0].persistent);
  EXPECT_EQ(items[0].size_bytes, 1u);
  f.key_prefix.clear();
  f.tags = {"scratch"};
  EXPECT_EQ(ListAll(view(), f).size(), 1u);
}

}  // namespace
}  // namespace ctxkit::testing
