// The streaming algorithms of src/text/ against naive models, with tiny
// blocks so every line, item and match straddles block boundaries.

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "text/byte_source.h"
#include "text/json_items.h"
#include "text/line_index.h"
#include "text/line_search.h"

namespace ctxkit::text {
namespace {

std::vector<std::string> NaiveLines(const std::string& s) {
  std::vector<std::string> lines;
  size_t at = 0;
  while (at < s.size()) {
    size_t nl = s.find('\n', at);
    size_t end = nl == std::string::npos ? s.size() : nl + 1;
    lines.push_back(s.substr(at, end - at));
    at = end;
  }
  return lines;
}

std::string RandomLines(uint64_t seed, size_t n) {
  std::mt19937_64 rng(seed);
  std::string s;
  for (size_t i = 0; i < n; ++i) {
    const size_t len = rng() % 5 == 0 ? rng() % 300 : rng() % 12;
    for (size_t j = 0; j < len; ++j) s += "abcxyz needle"[rng() % 13];
    s += '\n';
  }
  if (seed % 2 == 1) s += "tail needle";
  return s;
}

TEST(LineIndexTest, LocateLinesMatchesTheModel) {
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    const std::string s = RandomLines(seed, 400);
    const std::vector<std::string> lines = NaiveLines(s);
    Result<LineIndex> index = [&] {
      StringByteSource src(s);
      return LineIndex::Build(src, 7);
    }();
    ASSERT_TRUE(index.ok());
    EXPECT_EQ(index->total_lines(), lines.size());
    for (uint64_t first : {0, 1, 13, 200, 399, 400, 401, 500}) {
      for (uint64_t count : {0, 1, 5, 1000}) {
        StringByteSource src(s);
        const LinePosition from = index->Checkpoint(first);
        Result<LineSpan> span =
            LocateLines(src, first, first + count, from, UINT64_MAX, 5);
        ASSERT_TRUE(span.ok());
        std::string want;
        const uint64_t f = std::min<uint64_t>(first, lines.size());
        const uint64_t e = std::min<uint64_t>(first + count, lines.size());
        for (uint64_t i = f; i < e; ++i) want += lines[i];
        EXPECT_EQ(span->first_line, f);
        EXPECT_EQ(span->end_line, e);
        EXPECT_EQ(s.substr(span->begin_byte, span->end_byte - span->begin_byte),
                  want)
            << "seed " << seed << " first " << first << " count " << count;
      }
    }
  }
}

TEST(LineIndexTest, TheSpansBytesComeWithItWhenTheScanHeldThem) {
  const std::string s = RandomLines(7, 400);
  const uint64_t max_span = 300;
  for (uint64_t block : {5, 64, 1 << 20}) {
    for (uint64_t first : {0, 1, 13, 200, 399, 400, 401}) {
      for (uint64_t count : {0, 1, 5, 1000}) {
        StringByteSource src(s);
        std::string bytes = "stale";
        Result<LineSpan> span =
            LocateLines(src, first, first + count, {}, max_span, block, &bytes);
        ASSERT_TRUE(span.ok());
        const std::string want =
            s.substr(span->begin_byte, span->end_byte - span->begin_byte);
        if (span->has_bytes) {
          EXPECT_EQ(bytes, want) << "block " << block << " first " << first;
        }
      }
    }
  }
  // A span at the start of a large source, found in the first block.
  std::string big;
  for (int i = 0; i < 100000; ++i) big += "line " + std::to_string(i) + "\n";
  StringByteSource src(big);
  std::string bytes;
  Result<LineSpan> span =
      LocateLines(src, 0, 10, {}, UINT64_MAX, kDefaultBlockBytes, &bytes);
  ASSERT_TRUE(span.ok());
  EXPECT_TRUE(span->has_bytes);
  EXPECT_EQ(bytes, big.substr(0, span->end_byte));
  EXPECT_EQ(bytes.substr(0, 7), "line 0\n");
}

TEST(LineIndexTest, StopsReadingAtTheLastWantedLine) {
  std::string s;
  for (int i = 0; i < 100000; ++i) s += "line " + std::to_string(i) + "\n";
  StringByteSource src(s);
  Result<LineSpan> span = LocateLines(src, 0, 10);
  ASSERT_TRUE(span.ok());
  EXPECT_FALSE(span->total_lines.has_value());
  EXPECT_LE(src.bytes_read(), 64u << 10);
  EXPECT_LT(src.bytes_read(), s.size() / 10);
}

TEST(JsonItemsTest, MatchesTheModelWithTinyBlocks) {
  const std::string doc =
      " [ 1 ,\"a,]\\\"b\", {\"k\": [1, {\"x\": \"]\"}]},\n[],\t-2.5e3 , true "
      "] ";
  const std::vector<std::string> items = {
      "1", R"("a,]\"b")", R"({"k": [1, {"x": "]"}]})", "[]", "-2.5e3", "true"};
  for (uint64_t block : {1, 2, 3, 64}) {
    for (uint64_t first = 0; first <= 7; ++first) {
      StringByteSource src(doc);
      Result<JsonItemSpan> span =
          LocateJsonItems(src, first, first + 2, UINT64_MAX, block);
      ASSERT_TRUE(span.ok()) << span.status().ToString();
      std::vector<std::string> want;
      for (uint64_t i = first; i < first + 2 && i < items.size(); ++i) {
        want.push_back(items[i]);
      }
      EXPECT_EQ(span->items, want) << "block " << block << " first " << first;
    }
    StringByteSource src(doc);
    Result<uint64_t> n = CountJsonItems(src, block);
    ASSERT_TRUE(n.ok());
    EXPECT_EQ(*n, items.size());
  }
}

TEST(JsonItemsTest, ByteCapKeepsAPartialItem) {
  const std::string doc = R"(["aaaa", "bbbbbbbbbbbbbbbbbb"])";
  StringByteSource src(doc);
  Result<JsonItemSpan> span = LocateJsonItems(src, 0, 2, 10, 4);
  ASSERT_TRUE(span.ok());
  ASSERT_EQ(span->items.size(), 1u);
  EXPECT_TRUE(span->cut);
  EXPECT_EQ(span->partial, "\"bbb");
}

struct NaiveMatch {
  uint64_t line;
  uint64_t offset;
};

TEST(LineSearchTest, MatchesTheModelWithTinyBlocksAndContext) {
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    const std::string s = RandomLines(seed, 300);
    const std::vector<std::string> lines = NaiveLines(s);
    std::vector<NaiveMatch> want;
    uint64_t at = 0;
    for (size_t i = 0; i < lines.size(); ++i) {
      size_t p = lines[i].find("needle");
      if (p != std::string::npos) want.push_back({i + 1, at + p});
      at += lines[i].size();
    }
    for (uint64_t block : {1, 3, 17, 4096}) {
      StringByteSource src(s);
      Result<LiteralMatcher> m = LiteralMatcher::Create("needle");
      ASSERT_TRUE(m.ok());
      LineSearchOptions o;
      o.block_bytes = block;
      o.context_lines = 2;
      std::vector<LineMatch> got;
      ASSERT_TRUE(SearchLines(src, *m, o, [&](LineMatch lm) {
                    got.push_back(std::move(lm));
                    return true;
                  }).ok());
      ASSERT_EQ(got.size(), want.size())
          << "seed " << seed << " block " << block;
      for (size_t i = 0; i < got.size(); ++i) {
        EXPECT_EQ(got[i].line, want[i].line);
        EXPECT_EQ(got[i].byte_offset, want[i].offset);
        const uint64_t line = want[i].line;
        const size_t nb = std::min<uint64_t>(2, line - 1);
        ASSERT_EQ(got[i].before.size(), nb) << "line " << line;
        for (size_t k = 0; k < nb; ++k) {
          EXPECT_EQ(got[i].before[k].line, line - nb + k);
        }
        const size_t na = std::min<uint64_t>(2, lines.size() - line);
        ASSERT_EQ(got[i].after.size(), na)
            << "line " << line << " block " << block;
        for (size_t k = 0; k < na; ++k) {
          EXPECT_EQ(got[i].after[k].line, line + 1 + k);
        }
      }
    }
  }
}

}  // namespace
}  // namespace ctxkit::text
