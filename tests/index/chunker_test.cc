// The token-bounded chunker over an in-memory value.

#include "index/chunker.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "ctxkit/tokenizer.h"

namespace ctxkit::index {
namespace {

std::vector<Chunk> ChunksOf(const std::string& value, uint32_t max,
                            std::optional<uint64_t> known_tokens = {}) {
  std::vector<Chunk> out;
  RangeReader read = [&](uint64_t off, uint64_t len) -> Result<std::string> {
    return off >= value.size() ? std::string() : value.substr(off, len);
  };
  Status s = ChunkValue(
      value.size(), read, max,
      [&](Chunk c) {
        out.push_back(std::move(c));
        return Status::Ok();
      },
      known_tokens);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return out;
}

// Chunks tile the value exactly, in order; every count is exact and within
// the budget; line ranges match the bytes.
void ExpectValid(const std::string& value, const std::vector<Chunk>& chunks,
                 uint32_t max) {
  const Tokenizer* tok = *Tokenizer::Get();
  uint64_t at = 0;
  uint64_t before = 0;  // Newlines before `at`.
  for (const Chunk& c : chunks) {
    ASSERT_EQ(c.offset, at);
    ASSERT_FALSE(c.text.empty());
    ASSERT_EQ(value.substr(c.offset, c.text.size()), c.text);
    ASSERT_EQ(tok->Count(c.text), c.tokens) << "at " << c.offset;
    ASSERT_LE(c.tokens, max) << "at " << c.offset;
    ASSERT_EQ(c.line_begin, before);
    const auto inside =
        static_cast<uint64_t>(std::count(c.text.begin(), c.text.end(), '\n'));
    ASSERT_EQ(c.line_end, before + inside + (c.text.back() == '\n' ? 0 : 1));
    before += inside;
    at += c.text.size();
  }
  EXPECT_EQ(at, value.size());
}

TEST(ChunkerTest, EmptyValueHasNoChunks) {
  EXPECT_TRUE(ChunksOf("", 64).empty());
}

TEST(ChunkerTest, ZeroBudgetIsInvalid) {
  Status s = ChunkValue(
      3,
      [](uint64_t, uint64_t) -> Result<std::string> {
        return std::string("abc");
      },
      0, [](Chunk) { return Status::Ok(); });
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
}

TEST(ChunkerTest, LinesStayWholeAndChunksStayUnderTheBudget) {
  std::string v;
  for (int i = 0; i < 500; ++i) {
    v += "line number " + std::to_string(i) + " has a few words in it\n";
  }
  auto chunks = ChunksOf(v, 64);
  ExpectValid(v, chunks, 64);
  ASSERT_GT(chunks.size(), 20u);
  for (const Chunk& c : chunks) EXPECT_EQ(c.text.back(), '\n');
}

TEST(ChunkerTest, ParagraphEndsArePreferredCuts) {
  // Paragraphs of 5 lines (~50 tokens) and a budget of 80: cutting only at
  // line ends would put two paragraph pieces in most chunks.
  std::string v;
  for (int p = 0; p < 40; ++p) {
    for (int l = 0; l < 5; ++l) {
      v += "paragraph " + std::to_string(p) + " line " + std::to_string(l) +
           " says something\n";
    }
    v += "\n";
  }
  auto chunks = ChunksOf(v, 80);
  ExpectValid(v, chunks, 80);
  for (const Chunk& c : chunks) {
    EXPECT_TRUE(c.text.starts_with("paragraph ")) << c.text;
    EXPECT_TRUE(c.text.ends_with("\n\n")) << c.text;
  }
}

TEST(ChunkerTest, BlankLinesMergingAcrossCutsStayExact) {
  // "\n\n\n" merges into fewer tokens than its lines; whitespace-only lines
  // merge with the newline before them. Counts must still be exact.
  std::string v;
  std::mt19937 rng(7);
  for (int i = 0; i < 3000; ++i) {
    switch (rng() % 5) {
      case 0:
        v += "\n";
        break;
      case 1:
        v += "   \n";
        break;
      case 2:
        v += "\t\t  x = " + std::to_string(i) + ";\n";
        break;
      case 3:
        v += "  \r\n";
        break;
      default:
        v += "word " + std::to_string(i) + "\n";
        break;
    }
  }
  for (uint32_t max : {1u, 2u, 3u, 7u, 16u, 100u}) {
    ExpectValid(v, ChunksOf(v, max), max);
  }
}

TEST(ChunkerTest, LongLinesAreCutAtTokenBoundaries) {
  std::string v;
  for (int i = 0; i < 3000; ++i) v += "word" + std::to_string(i) + " ";
  v += "\u00e9t\u00e9 \u4e16\u754c \U0001F600\U0001F680";  // Multi-byte.
  auto chunks = ChunksOf(v, 100);
  ExpectValid(v, chunks, 100);
  EXPECT_GT(chunks.size(), 30u);
  // Cut at token boundaries: chunks are nearly full.
  for (size_t i = 0; i + 1 < chunks.size(); ++i) {
    EXPECT_GE(chunks[i].tokens, 95u);
    EXPECT_TRUE(chunks[i].valid_utf8);
  }
}

TEST(ChunkerTest, TinyBudgetsSplitEvenMultiTokenCharacters) {
  // An emoji is several tokens: with a budget of 1 even it is split.
  std::string v = "ab \U0001F600\U0001F680 \u4e16\u754c done\n";
  for (uint32_t max : {1u, 2u, 3u}) {
    ExpectValid(v, ChunksOf(v, max), max);
  }
}

TEST(ChunkerTest, InvalidUtf8AndHugeLines) {
  // One line longer than a read block: cut by blocks, then into pieces.
  std::string v((1u << 20) + 300000, 'a');
  for (size_t i = 0; i < v.size(); i += 1000) v[i] = '\xff';
  auto chunks = ChunksOf(v, 256);
  ExpectValid(v, chunks, 256);
  EXPECT_GT(chunks.size(), 100u);
}

TEST(ChunkerTest, BinaryContentStaysWithinTheBudget) {
  std::string v(200000, '\0');
  std::mt19937 rng(3);
  for (char& c : v) c = static_cast<char>(rng());
  for (uint32_t max : {1u, 5u, 64u, 1000u}) {
    auto chunks = ChunksOf(v, max);
    ExpectValid(v, chunks, max);
    EXPECT_TRUE(std::any_of(chunks.begin(), chunks.end(),
                            [](const Chunk& c) { return !c.valid_utf8; }));
  }
}

TEST(ChunkerTest, CompactJsonIsCutBetweenTopLevelItems) {
  std::string v = "[";
  for (int i = 0; i < 200; ++i) {
    if (i > 0) v += ",";
    v += R"({"id":)" + std::to_string(i) + R"(,"name":"item, [number] )" +
         std::to_string(i) + R"(","tags":["a","b"]})";
  }
  v += "]";
  auto chunks = ChunksOf(v, 100);
  ExpectValid(v, chunks, 100);
  ASSERT_GT(chunks.size(), 10u);
  for (size_t i = 0; i + 1 < chunks.size(); ++i) {
    // Each chunk ends right after an item's comma (or the opening '[').
    EXPECT_TRUE(chunks[i].text.ends_with("},") || chunks[i].text.ends_with("["))
        << chunks[i].text;
  }
  EXPECT_TRUE(chunks.back().text.ends_with("}]"));
}

TEST(ChunkerTest, PrettyJsonIsCutBetweenItemsNotInside) {
  std::string v = "{\n";
  for (int i = 0; i < 60; ++i) {
    v += "  \"key" + std::to_string(i) +
         "\": {\n    \"a\": " + std::to_string(i) +
         ",\n    \"b\": \"text with words\"\n  }";
    v += i + 1 < 60 ? ",\n" : "\n";
  }
  v += "}\n";
  auto chunks = ChunksOf(v, 60);
  ExpectValid(v, chunks, 60);
  for (size_t i = 1; i < chunks.size(); ++i) {
    EXPECT_TRUE(chunks[i].text.starts_with("  \"key") ||
                chunks[i].text == "}\n")
        << chunks[i].text;
  }
}

TEST(ChunkerTest, MalformedJsonStillTiles) {
  std::string v = "[\"unterminated, {\n";
  for (int i = 0; i < 400; ++i) v += "more text, with , commas ] } [\n";
  ExpectValid(v, ChunksOf(v, 32), 32);
}

// A value whose exact count fits the budget is one chunk, whether the count
// is known (recorded when it was written) or counted; over the budget the
// known count changes nothing.
TEST(ChunkerTest, AValueThatFitsIsOneChunkCountedOrKnown) {
  const Tokenizer* tok = *Tokenizer::Get();
  const std::string values[] = {
      "one line",
      "two lines\nand a second one\n",
      "{\"a\": [1, 2, 3],\n \"b\": \"text\"}\n",
      std::string("bad utf-8 \xff\xfe here\n\n\nparagraph"),
  };
  for (const std::string& v : values) {
    const uint64_t n = tok->Count(v);
    for (uint32_t max : {static_cast<uint32_t>(n), 4u, 1000u}) {
      std::vector<Chunk> counted = ChunksOf(v, max);
      std::vector<Chunk> known = ChunksOf(v, max, n);
      ASSERT_EQ(known.size(), counted.size()) << v << " / " << max;
      for (size_t i = 0; i < known.size(); ++i) {
        EXPECT_EQ(known[i].offset, counted[i].offset);
        EXPECT_EQ(known[i].text, counted[i].text);
        EXPECT_EQ(known[i].tokens, counted[i].tokens);
        EXPECT_EQ(known[i].line_begin, counted[i].line_begin);
        EXPECT_EQ(known[i].line_end, counted[i].line_end);
        EXPECT_EQ(known[i].valid_utf8, counted[i].valid_utf8);
      }
      ExpectValid(v, known, max);
      if (n <= max) {
        EXPECT_EQ(known.size(), 1u);
      }
    }
  }
}

}  // namespace
}  // namespace ctxkit::index
