// The search fast paths against naive models: newline counting and the
// two-byte literal filter (src/text/byte_scan.h), pushed input of any piece
// size (text::LineSearcher), required literals of regexes and the RE2
// prefilter (src/explore/), and View::Scan over every kind of storage.

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "explore/regex_literals.h"
#include "explore/regex_matcher.h"
#include "explore_test_util.h"
#include "text/byte_scan.h"
#include "text/line_search.h"

namespace ctxkit {
namespace {

std::string RandomText(uint64_t seed, size_t n, std::string_view alphabet) {
  std::mt19937_64 rng(seed);
  std::string s(n, ' ');
  for (char& c : s) c = alphabet[rng() % alphabet.size()];
  return s;
}

TEST(ByteScanTest, CountNewlinesMatchesStdCount) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    const std::string s = RandomText(seed, seed * 977 + 70000, "ab\n\n\xff");
    for (size_t skip : {0, 1, 7, 15, 16, 17}) {
      const std::string_view v = std::string_view(s).substr(skip);
      EXPECT_EQ(text::CountNewlines(v.data(), v.size()),
                static_cast<uint64_t>(std::count(v.begin(), v.end(), '\n')));
    }
  }
  // Every byte a newline: the per-byte counters must not overflow.
  const std::string all(100000, '\n');
  EXPECT_EQ(text::CountNewlines(all.data(), all.size()), all.size());
  EXPECT_EQ(text::CountNewlines(all.data(), 0), 0u);
}

TEST(ByteScanTest, LiteralFinderMatchesStringFind) {
  const std::vector<std::string> needles = {"a",
                                            "ab",
                                            "ba",
                                            "aab",
                                            "needle",
                                            "xyzzy",
                                            "zz",
                                            "aaaa",
                                            "\xff\xfe",
                                            "a\xff",
                                            "abcabcabcabcabcabcabcab"};
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    // Small alphabets force many candidates and the memmem fallback.
    const std::string hay = RandomText(seed, 5000 + seed * 311,
                                       seed % 3 == 0 ? "ab" : "abcz \xff\xfe");
    for (const std::string& needle : needles) {
      text::LiteralFinder finder(needle);
      for (size_t from : {size_t{0}, size_t{1}, size_t{33}, hay.size() - 3,
                          hay.size(), hay.size() + 1}) {
        size_t want =
            from > hay.size() ? std::string::npos : hay.find(needle, from);
        EXPECT_EQ(finder.Find(hay, from), want)
            << "needle '" << needle << "' from " << from << " seed " << seed;
      }
      // Every occurrence, in order.
      size_t at = 0;
      for (;;) {
        const size_t want = hay.find(needle, at);
        ASSERT_EQ(finder.Find(hay, at), want);
        if (want == std::string::npos) break;
        at = want + 1;
      }
    }
  }
  // A needle at the very end, and one longer than the haystack.
  text::LiteralFinder tail("zq");
  EXPECT_EQ(tail.Find(std::string(40, 'a') + "zq", 0), 40u);
  EXPECT_EQ(text::LiteralFinder("abc").Find("ab", 0), std::string::npos);
  EXPECT_EQ(text::LiteralFinder("").Find("ab", 1), 1u);
}

struct Hit {
  uint64_t line;
  uint64_t offset;
  uint64_t line_offset;
  std::string preview;
  size_t before;
  size_t after;
  bool operator==(const Hit&) const = default;
};

std::vector<Hit> Collect(const std::string& s, const text::LineMatcher& m,
                         const std::vector<size_t>& pieces, uint32_t context,
                         uint64_t max_line) {
  text::LineSearchOptions o;
  o.context_lines = context;
  o.max_line_bytes = max_line;
  std::vector<Hit> got;
  text::MatchSink sink = [&](text::LineMatch lm) {
    got.push_back({lm.line, lm.byte_offset, lm.line_offset, lm.preview,
                   lm.before.size(), lm.after.size()});
    return true;
  };
  text::LineSearcher searcher(m, o, sink);
  size_t at = 0;
  for (size_t i = 0; at < s.size(); ++i) {
    const size_t n = std::min(pieces[i % pieces.size()], s.size() - at);
    searcher.Feed(std::string_view(s).substr(at, n));
    at += n;
  }
  searcher.Finish();
  return got;
}

TEST(LineSearcherTest, AnyPieceSizesGiveTheSameMatches) {
  auto m = text::LiteralMatcher::Create("needle");
  ASSERT_TRUE(m.ok());
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    std::mt19937_64 rng(seed);
    std::string s;
    for (int i = 0; i < 400; ++i) {
      static const char* kWords[] = {"ab", " ", "needle", "\r", "x"};
      const size_t len = rng() % 7 == 0 ? rng() % 200 : rng() % 8;
      for (size_t j = 0; j < len; ++j) s += kWords[rng() % 5];
      s += '\n';
    }
    if (seed % 2 == 1) s += "unterminated needle";
    const std::vector<Hit> want = Collect(s, *m, {s.size()}, 2, 16 << 20);
    ASSERT_FALSE(want.empty());
    for (const std::vector<size_t>& pieces :
         std::vector<std::vector<size_t>>{{1}, {2, 3}, {17}, {64, 1, 4096}}) {
      EXPECT_EQ(Collect(s, *m, pieces, 2, 16 << 20), want)
          << "seed " << seed << " piece " << pieces[0];
    }
  }
}

TEST(LineSearcherTest, OverlongLinesKeepLineNumbers) {
  auto m = text::LiteralMatcher::Create("x");
  ASSERT_TRUE(m.ok());
  // Line 2 is 1000 bytes long, searched in windows of 64 bytes.
  const std::string s = "a\n" + std::string(999, 'b') + "x\nx\n";
  for (size_t piece : {1, 10, 100, 5000}) {
    const std::vector<Hit> got = Collect(s, *m, {piece}, 0, 64);
    ASSERT_EQ(got.size(), 2u) << "piece " << piece;
    EXPECT_EQ(got[0].line, 2u) << "piece " << piece;
    EXPECT_EQ(got[0].offset, 1001u) << "piece " << piece;
    EXPECT_EQ(got[0].line_offset, 2u) << "piece " << piece;
    EXPECT_EQ(got[1].line, 3u);
    EXPECT_EQ(got[1].offset, 1003u);
  }
}

TEST(RegexLiteralsTest, FindsOnlyWhatEveryMatchContains) {
  using explore::RequiredLiteral;
  EXPECT_EQ(RequiredLiteral("needle"), "needle");
  EXPECT_EQ(RequiredLiteral(R"(needle-\w+ error 5\d\d)"), "needle-");
  EXPECT_EQ(RequiredLiteral(R"(\d+ zq)"), " zq");
  EXPECT_EQ(RequiredLiteral("abc?"), "ab");
  EXPECT_EQ(RequiredLiteral("abc*"), "ab");
  EXPECT_EQ(RequiredLiteral("abc{0,3}"), "ab");
  EXPECT_EQ(RequiredLiteral("xabc+"), "xabc");
  EXPECT_EQ(RequiredLiteral(R"(a\.b)"), "a.b");
  EXPECT_EQ(RequiredLiteral("a.b"), "b");  // The rarer run.
  EXPECT_EQ(RequiredLiteral("zq(a|b)"), "zq");
  EXPECT_EQ(RequiredLiteral("[xyz]+qj"), "qj");
  EXPECT_EQ(RequiredLiteral("é+x"), "é");  // A whole character repeats.
  EXPECT_EQ(RequiredLiteral(R"(\pLzq\x41jq\p{Greek}qz)"), "zq");
  EXPECT_EQ(RequiredLiteral(R"(\Qzz\Eab)"), "ab");
  // Nothing is required, or the analysis declines.
  EXPECT_EQ(RequiredLiteral("ab|cd"), "");
  EXPECT_EQ(RequiredLiteral("(?i)abc"), "");
  EXPECT_EQ(RequiredLiteral("x(?i:abc)"), "");
  EXPECT_EQ(RequiredLiteral(R"(\d+)"), "");
  EXPECT_EQ(RequiredLiteral("a?"), "");
  EXPECT_EQ(RequiredLiteral("(abc)"), "");
  EXPECT_EQ(RequiredLiteral("[abc"), "");
}

std::vector<std::pair<size_t, size_t>> AllMatches(const text::LineMatcher& m,
                                                  std::string_view s) {
  std::vector<std::pair<size_t, size_t>> out;
  size_t from = 0;
  size_t b = 0;
  size_t e = 0;
  while (from <= s.size() && m.Find(s, from, &b, &e)) {
    out.emplace_back(b, e);
    const size_t nl = s.find('\n', b);
    if (nl == std::string_view::npos) break;
    from = nl + 1;
  }
  return out;
}

TEST(RegexPrefilterTest, SameMatchesWithAndWithoutThePrefilter) {
  const std::vector<std::string> patterns = {R"(needle-\w+ error 5\d\d)",
                                             "^ab",
                                             "ab$",
                                             R"(\bab c)",
                                             "a+b",
                                             "ba?b",
                                             "(x|y)ab",
                                             R"(ab\d)"};
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    std::string s = RandomText(seed, 20000, "abcxy 0159\n-");
    s += "\nneedle-ab error 504\nneedle- error 504\n";
    for (const std::string& p : patterns) {
      auto fast = explore::Re2Matcher::Create(p, false, false);
      // The same regex inside a group: the analysis finds no literal.
      auto slow = explore::Re2Matcher::Create("(?:" + p + ")", false, false);
      ASSERT_TRUE(fast.ok() && slow.ok()) << p;
      EXPECT_EQ((*slow)->prefilter(), "") << p;
      EXPECT_EQ(AllMatches(**fast, s), AllMatches(**slow, s))
          << p << " seed " << seed << " prefilter " << (*fast)->prefilter();
    }
  }
}

// RE2's compile time grows with the pattern, superlinearly for chains such
// as "a?a?a?..." (50,000 bytes took seconds): a regex is bounded, an exact
// literal is not, and errors quote only the start of a long pattern.
TEST(RegexLimitsTest, LongRegexIsRefusedLongLiteralIsNot) {
  std::string chain;
  while (chain.size() <= explore::kMaxRegexBytes) chain += "a?";
  auto refused = explore::Re2Matcher::Create(chain, false, false);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(refused.status().message().find("at most 4096 bytes"),
            std::string::npos)
      << refused.status().ToString();
  // Within the bound it compiles, and matches.
  chain.resize(explore::kMaxRegexBytes - 1);
  auto kept = explore::Re2Matcher::Create(chain + "b", false, false);
  ASSERT_TRUE(kept.ok()) << kept.status().ToString();
  size_t begin = 0;
  size_t end = 0;
  EXPECT_TRUE((*kept)->Find("xaab", 0, &begin, &end));

  // An exact literal is found by string search, in linear time; without
  // case it runs on RE2 (time up to text x pattern), so it is bounded too.
  const std::string literal(50000, 'a');
  auto exact = explore::Re2Matcher::Create(literal, true, false);
  ASSERT_TRUE(exact.ok()) << exact.status().ToString();
  EXPECT_TRUE((*exact)->Find("b" + literal + "b", 0, &begin, &end));
  EXPECT_EQ(begin, 1u);
  EXPECT_FALSE(explore::Re2Matcher::Create(literal, true, true).ok());

  auto bad =
      explore::Re2Matcher::Create("(" + std::string(3000, 'a'), false, false);
  ASSERT_FALSE(bad.ok());
  EXPECT_LT(bad.status().message().size(), 300u) << bad.status().ToString();
}

class ScanTest : public testing::ExploreTest {
 protected:
  void Tune(Options* o) override { o->memory_ceiling_bytes = 256ull << 20; }
  std::string ScanAll(const Ref& ref, uint64_t offset, uint64_t length,
                      uint64_t piece, size_t* pieces = nullptr) {
    std::string out;
    size_t n = 0;
    Status s = view().Scan(ref, offset, length, piece, [&](std::string_view p) {
      EXPECT_FALSE(p.empty());
      EXPECT_LE(p.size(), piece);
      out.append(p);
      ++n;
      return true;
    });
    EXPECT_TRUE(s.ok()) << s.ToString();
    if (pieces != nullptr) *pieces = n;
    return out;
  }
};

TEST_F(ScanTest, EveryStorageKindReadsTheSameBytes) {
  const std::string small = RandomText(1, 3000, "abc\n");
  const std::string big = RandomText(2, 300000, "abc\n\xff");
  Put("small", small);
  Put("big", big);
  SetOptions session;
  session.persist = false;
  ASSERT_TRUE(view().Set("session", big, session).ok());
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(view().Append("stream", big.substr(i * 100000, 100000)).ok());
  }
  for (const char* key : {"small", "big", "session", "stream"}) {
    auto ref = view().RefOf(key);
    ASSERT_TRUE(ref.ok()) << key;
    const std::string& want = std::string(key) == "small" ? small : big;
    EXPECT_EQ(ScanAll(*ref, 0, UINT64_MAX, 1 << 20), want) << key;
    // Unaligned ranges and pieces smaller than a page.
    EXPECT_EQ(ScanAll(*ref, 1234, 5000, 1000), want.substr(1234, 5000)) << key;
    EXPECT_EQ(ScanAll(*ref, want.size() - 10, 100, 7),
              want.substr(want.size() - 10));
    EXPECT_EQ(ScanAll(*ref, want.size(), 100, 7), "");
  }
  // A cached whole value is scanned from the cache: same bytes.
  auto ref = view().RefOf("big");
  ASSERT_TRUE(ref.ok());
  ASSERT_TRUE(view().Resolve(*ref).ok());
  EXPECT_EQ(ScanAll(*ref, 10, UINT64_MAX, 4096), big.substr(10));
}

TEST_F(ScanTest, StopsWhenTheSinkSaysSo) {
  const std::string big = RandomText(3, 200000, "ab\n");
  Put("big", big);
  auto ref = view().RefOf("big");
  ASSERT_TRUE(ref.ok());
  size_t calls = 0;
  ASSERT_TRUE(view()
                  .Scan(*ref, 0, UINT64_MAX, 4096,
                        [&](std::string_view) { return ++calls < 3; })
                  .ok());
  EXPECT_EQ(calls, 3u);
}

TEST_F(ScanTest, MissingAndForeignRefsFail) {
  Put("gone", RandomText(4, 100000, "ab\n"));
  auto ref = view().RefOf("gone");
  ASSERT_TRUE(ref.ok());
  ASSERT_TRUE(view().Remove("gone").ok());
  Status s = view().Scan(*ref, 0, UINT64_MAX, 4096,
                         [](std::string_view) { return true; });
  EXPECT_TRUE(s.IsNotFound()) << s.ToString();
}

}  // namespace
}  // namespace ctxkit
