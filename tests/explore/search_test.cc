// Search: literal and RE2 regex, case folding, context, limits, scopes.

#include <string>
#include <vector>

#include "explore/explore_test_util.h"

namespace ctxkit::testing {
namespace {

class SearchTest : public ExploreTest {};

SearchOptions In(std::vector<std::string> keys) {
  SearchOptions o;
  o.keys = std::move(keys);
  o.max_results = 1000;
  return o;
}

TEST_F(SearchTest, LiteralReportsKeyLineOffsetAndPreview) {
  Put("doc", "alpha\nthe needle here\nbeta\nneedle again\n");
  EXPLORE_ASSERT_OK_AND_ASSIGN(SearchResult r,
                               Search(view(), "needle", In({"doc"})));
  ASSERT_EQ(r.matches.size(), 2u);
  EXPECT_EQ(r.matches[0].key, "doc");
  EXPECT_EQ(r.matches[0].line, 2u);
  EXPECT_EQ(r.matches[0].byte_offset, 10u);
  EXPECT_EQ(r.matches[0].line_offset, 6u);
  EXPECT_EQ(r.matches[0].match_length, 6u);
  EXPECT_EQ(r.matches[0].preview, "the needle here");
  EXPECT_EQ(r.matches[1].line, 4u);
  EXPECT_EQ(r.matches[1].byte_offset, 27u);
  EXPECT_FALSE(r.truncated);
  EXPECT_EQ(r.variables_searched, 1u);
  // Literal means literal: regex metacharacters are plain bytes.
  Put("meta", "a.c\nabc\n");
  EXPLORE_ASSERT_OK_AND_ASSIGN(r, Search(view(), "a.c", In({"meta"})));
  ASSERT_EQ(r.matches.size(), 1u);
  EXPECT_EQ(r.matches[0].line, 1u);
}

TEST_F(SearchTest, RegexUsesRe2AndStaysWithinLines) {
  Put("code", "int main() {\n  return 42;\n}\nfoo\nbar\n");
  SearchOptions o = In({"code"});
  o.regex = true;
  EXPLORE_ASSERT_OK_AND_ASSIGN(SearchResult r,
                               Search(view(), R"(return \d+;$)", o));
  ASSERT_EQ(r.matches.size(), 1u);
  EXPECT_EQ(r.matches[0].line, 2u);
  EXPECT_EQ(r.matches[0].match_length, 10u);
  // ^ and $ are line anchors.
  EXPLORE_ASSERT_OK_AND_ASSIGN(r, Search(view(), "^b", o));
  ASSERT_EQ(r.matches.size(), 1u);
  EXPECT_EQ(r.matches[0].line, 5u);
  // No match spans a newline, even through \s or a negated class.
  EXPLORE_ASSERT_OK_AND_ASSIGN(r, Search(view(), R"(foo\sbar)", o));
  EXPECT_TRUE(r.matches.empty());
  EXPLORE_ASSERT_OK_AND_ASSIGN(r, Search(view(), "foo[^x]bar", o));
  EXPECT_TRUE(r.matches.empty());
  // Empty lines match ^$ but there is no phantom line after the last '\n'.
  Put("blank", "a\n\nb\n");
  EXPLORE_ASSERT_OK_AND_ASSIGN(r, Search(view(), "^$", In({"blank"})));
  EXPECT_TRUE(r.matches.empty());  // Literal "^$".
  SearchOptions ob = In({"blank"});
  ob.regex = true;
  EXPLORE_ASSERT_OK_AND_ASSIGN(r, Search(view(), "^$", ob));
  ASSERT_EQ(r.matches.size(), 1u);
  EXPECT_EQ(r.matches[0].line, 2u);
}

TEST_F(SearchTest, BadRegexIsAClearError) {
  Put("x", "x");
  SearchOptions o;
  o.regex = true;
  auto r = Search(view(), "a(b", o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("missing )"), std::string::npos)
      << r.status().message();
  auto nl = Search(view(), "a\nb");
  EXPECT_EQ(nl.status().code(), StatusCode::kInvalidArgument);
  SearchOptions zero;
  zero.max_results = 0;
  EXPECT_EQ(Search(view(), "x", zero).status().code(),
            StatusCode::kInvalidArgument);
  auto missing = Search(view(), "x", In({"nope"}));
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
}

TEST_F(SearchTest, PathologicalRegexIsLinear) {
  // (a+)+$ backtracks exponentially in PCRE-style engines; RE2 is linear.
  std::string as(100 * 1024, 'a');
  Put("as", as + "b\n" + as + "\n");
  SearchOptions o = In({"as"});
  o.regex = true;
  EXPLORE_ASSERT_OK_AND_ASSIGN(SearchResult r, Search(view(), "(a+)+$", o));
  ASSERT_EQ(r.matches.size(), 1u);
  EXPECT_EQ(r.matches[0].line, 2u);
  EXPECT_TRUE(r.matches[0].preview_truncated);
  EXPECT_LE(r.matches[0].preview.size(), 200u);
}

TEST_F(SearchTest, CaseInsensitiveLiteralAndRegex) {
  Put("t", "Error one\nerror two\nERROR three\nStraße\n");
  SearchOptions o = In({"t"});
  o.case_insensitive = true;
  EXPLORE_ASSERT_OK_AND_ASSIGN(SearchResult r, Search(view(), "error", o));
  EXPECT_EQ(r.matches.size(), 3u);
  EXPLORE_ASSERT_OK_AND_ASSIGN(r, Search(view(), "STRASSE", o));
  EXPECT_EQ(r.matches.size(), 0u);  // Simple folding only, as RE2.
  EXPLORE_ASSERT_OK_AND_ASSIGN(r, Search(view(), "STRAẞE", o));
  EXPECT_EQ(r.matches.size(), 1u);
  o.regex = true;
  EXPLORE_ASSERT_OK_AND_ASSIGN(r, Search(view(), "^error (one|three)", o));
  EXPECT_EQ(r.matches.size(), 2u);
  o.case_insensitive = false;
  EXPLORE_ASSERT_OK_AND_ASSIGN(r, Search(view(), "^error", o));
  EXPECT_EQ(r.matches.size(), 1u);
}

TEST_F(SearchTest, ContextLines) {
  Put("t", "l1\nl2\nl3 hit\nl4\nl5\nl6 hit\nl7\n");
  SearchOptions o = In({"t"});
  o.context_lines = 2;
  EXPLORE_ASSERT_OK_AND_ASSIGN(SearchResult r, Search(view(), "hit", o));
  ASSERT_EQ(r.matches.size(), 2u);
  const SearchMatch& a = r.matches[0];
  ASSERT_EQ(a.before.size(), 2u);
  EXPECT_EQ(a.before[0].line, 1u);
  EXPECT_EQ(a.before[0].text, "l1");
  EXPECT_EQ(a.before[1].text, "l2");
  ASSERT_EQ(a.after.size(), 2u);
  EXPECT_EQ(a.after[0].line, 4u);
  EXPECT_EQ(a.after[1].text, "l5");
  const SearchMatch& b = r.matches[1];
  ASSERT_EQ(b.before.size(), 2u);
  EXPECT_EQ(b.before[0].text, "l4");
  ASSERT_EQ(b.after.size(), 1u);  // The end of the value.
  EXPECT_EQ(b.after[0].text, "l7");
}

TEST_F(SearchTest, MaxResultsStopsEarly) {
  std::string text;
  for (int i = 0; i < 100; ++i) text += "match " + std::to_string(i) + "\n";
  Put("a", text);
  Put("b", text);
  SearchOptions o;
  o.max_results = 5;
  EXPLORE_ASSERT_OK_AND_ASSIGN(SearchResult r, Search(view(), "match", o));
  ASSERT_EQ(r.matches.size(), 5u);
  EXPECT_TRUE(r.truncated);
  EXPECT_EQ(r.matches[4].line, 5u);
  EXPECT_EQ(r.variables_searched, 1u);
  o.max_results = 150;
  EXPLORE_ASSERT_OK_AND_ASSIGN(r, Search(view(), "match", o));
  ASSERT_EQ(r.matches.size(), 150u);
  EXPECT_EQ(r.matches[100].key, "b");
}

TEST_F(SearchTest, AllVisibleVariablesButNeverAnotherAgents) {
  Put("g/1", "shared token\n");
  Put("mine", "token of alice\n", ValueType::kText, "agent");
  Put("sess", "token in session\n", ValueType::kText, "session");
  View bob = Other("bob", "s2");
  ASSERT_TRUE(bob.Set("theirs", "token of bob\n", {.scope = "agent"}).ok());
  SearchOptions o;
  o.max_results = 100;
  EXPLORE_ASSERT_OK_AND_ASSIGN(SearchResult r, Search(view(), "token", o));
  std::vector<std::string> keys;
  for (const auto& m : r.matches) keys.push_back(m.key);
  EXPECT_EQ(keys, (std::vector<std::string>{"g/1", "mine", "sess"}));
  EXPLORE_ASSERT_OK_AND_ASSIGN(r, Search(view(), "bob", o));
  EXPECT_TRUE(r.matches.empty());
  EXPLORE_ASSERT_OK_AND_ASSIGN(r, Search(bob, "token", o));
  keys.clear();
  for (const auto& m : r.matches) keys.push_back(m.key);
  EXPECT_EQ(keys, (std::vector<std::string>{"g/1", "theirs"}));
  // Naming another agent's scope is refused.
  o.scope = "agent:alice";
  EXPECT_EQ(Search(bob, "token", o).status().code(),
            StatusCode::kPermissionDenied);
  // A ref is a capability.
  SearchOptions by_ref;
  by_ref.refs.push_back(*view().RefOf("mine"));
  EXPLORE_ASSERT_OK_AND_ASSIGN(r, Search(bob, "alice", by_ref));
  EXPECT_EQ(r.matches.size(), 1u);
}

TEST_F(SearchTest, PagesThroughManyVariables) {
  for (int i = 0; i < 1100; ++i) {
    SetOptions so;
    ASSERT_TRUE(
        view()
            .Set("k" + std::to_string(i), i % 100 == 0 ? "hit\n" : "-\n", so)
            .ok());
  }
  SearchOptions o;
  o.max_results = 100;
  EXPLORE_ASSERT_OK_AND_ASSIGN(SearchResult r, Search(view(), "hit", o));
  EXPECT_EQ(r.matches.size(), 11u);
  EXPECT_EQ(r.variables_searched, 1100u);
}

TEST_F(SearchTest, BinaryAndInvalidUtf8PreviewsArePrintable) {
  Put("bin", std::string("\x01\xffneedle\x00z\n", 11));
  EXPLORE_ASSERT_OK_AND_ASSIGN(SearchResult r,
                               Search(view(), "needle", In({"bin"})));
  ASSERT_EQ(r.matches.size(), 1u);
  EXPECT_EQ(r.matches[0].preview,
            "\xEF\xBF\xBD\xEF\xBF\xBDneedle\xEF\xBF\xBDz");
  EXPECT_EQ(r.matches[0].byte_offset, 2u);
  Put("empty", "");
  EXPLORE_ASSERT_OK_AND_ASSIGN(r, Search(view(), "", In({"empty"})));
  EXPECT_TRUE(r.matches.empty());
}

TEST_F(SearchTest, JsonAndStreamsAreSearchedAsText) {
  Put("j", R"({"user": "ann", "role": "admin"})", ValueType::kJson);
  ASSERT_TRUE(view().Append("s", "first line\nsec").ok());
  ASSERT_TRUE(view().Append("s", "ond admin line\n").ok());
  SearchOptions o;
  o.max_results = 10;
  EXPLORE_ASSERT_OK_AND_ASSIGN(SearchResult r, Search(view(), "admin", o));
  ASSERT_EQ(r.matches.size(), 2u);
  EXPECT_EQ(r.matches[0].key, "j");
  EXPECT_EQ(r.matches[1].key, "s");
  EXPECT_EQ(r.matches[1].line, 2u);
  EXPECT_EQ(r.matches[1].preview, "second admin line");
}

}  // namespace
}  // namespace ctxkit::testing
