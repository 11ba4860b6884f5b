// The token-bounded chunker over an in-memory value.

#include "index/chunker.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ctxkit/tokenizer.h"

namespace ctxkit::index {
namespace {

std::vector<Chunk> ChunksOf(const std::string& value, uint32_t max) {
  std::vector<Chunk> out;
  RangeReader read = [&](uint64_t off, uint64_t len) -> Result<std::string> {
    return off >= value.size() ? std::string() : value.substr(off, len);
  };
  Status s = ChunkValue(value.size(), read, max, [&](Chunk c) {
    out.push_back(std::move(c));
    return Status::Ok();
  });
  EXPECT_TRUE(s.ok()) << s.ToString();
  return out;
}

// Chunks tile the value exactly, in order.
void ExpectTiles(const std::string& value, const std::vector<Chunk>& chunks) {
  uint64_t at = 0;
  for (const Chunk& c : chunks) {
    ASSERT_EQ(c.offset, at);
    ASSERT_EQ(value.substr(c.offset, c.text.size()), c.text);
    ASSERT_FALSE(c.text.empty());
    at += c.text.size();
  }
  EXPECT_EQ(at, value.size());
}

TEST(ChunkerTest, EmptyValueHasNoChunks) {
  EXPECT_TRUE(ChunksOf("", 64).empty());
}

TEST(ChunkerTest, LinesStayWholeAndChunksStayUnderTheBudget) {
  std::string v;
  for (int i = 0; i < 500; ++i) {
    v += "line number " + std::to_string(i) + " has a few words in it\n";
  }
  auto chunks = ChunksOf(v, 64);
  ExpectTiles(v, chunks);
  ASSERT_GT(chunks.size(), 20u);
  const Tokenizer* tok = *Tokenizer::Get();
  for (const Chunk& c : chunks) {
    EXPECT_EQ(c.text.back(), '\n');  // Cut at line ends.
    EXPECT_LE(c.tokens, 64u);
    EXPECT_LE(tok->Count(c.text), 66u);  // Merges across lines: +-few.
  }
}

TEST(ChunkerTest, LongLinesAreCutAtTokenBoundaries) {
  std::string v;
  for (int i = 0; i < 3000; ++i) v += "word" + std::to_string(i) + " ";
  v += "\u00e9t\u00e9 \u4e16\u754c";  // Multi-byte characters near the end.
  auto chunks = ChunksOf(v, 100);
  ExpectTiles(v, chunks);
  EXPECT_GT(chunks.size(), 30u);
  for (const Chunk& c : chunks) EXPECT_LE(c.tokens, 101u);
}

TEST(ChunkerTest, InvalidUtf8AndHugeLines) {
  // One line longer than a read block: cut by blocks, then into pieces.
  std::string v((1u << 20) + 300000, 'a');
  for (size_t i = 0; i < v.size(); i += 1000) v[i] = '\xff';
  auto chunks = ChunksOf(v, 256);
  ExpectTiles(v, chunks);
  EXPECT_GT(chunks.size(), 100u);
}

}  // namespace
}  // namespace ctxkit::index
