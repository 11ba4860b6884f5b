// Long unbroken lines: the merges that keep a 10 MB line without a space
// countable in well under a second (the heap, the buckets, the chunks;
// timed in bench/tokenizer_bench.cc, BM_CountLongLine, never here) must
// give tiktoken's answer. Checked against tiktoken on samples small enough
// for its quadratic merge, against each other on longer ones, and for
// self-consistency on megabyte lines.

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "ctxkit/tokenizer.h"
#include "text/byte_pair_merge.h"
#include "text/embedded_data.h"
#include "text/rank_table.h"
#include "text/reference.h"

namespace ctxkit {
namespace {

constexpr size_t kLongBytes = 1u << 20;

// Lines without a space of several kinds: one letter repeated, random
// letters (one single BPE piece), base64-like text, one punctuation mark
// repeated (one piece too), and digits.
std::vector<std::string> Lines(size_t size) {
  uint64_t state = 42;
  auto next = [&state] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<uint32_t>(state >> 33);
  };
  std::vector<std::string> lines(5);
  lines[0].assign(size, 'a');
  for (size_t i = 0; i < size; ++i) lines[1].push_back('a' + next() % 26);
  static constexpr char kBase64[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (size_t i = 0; i < size; ++i) lines[2].push_back(kBase64[next() % 64]);
  lines[3].assign(size, '=');
  for (size_t i = 0; i < size; ++i) lines[4].push_back('0' + next() % 10);
  return lines;
}

TEST(TokenizerLongInputTest, MegabyteLinesRoundTripAndCountConsistently) {
  const Tokenizer* tok = *Tokenizer::Get(Encoding::kO200kBase);
  for (const std::string& line : Lines(kLongBytes)) {
    const bool one_char_repeated =
        line.find_first_not_of(line[0]) == std::string::npos;
    const std::vector<uint32_t> tokens = tok->Encode(line);
    EXPECT_EQ(tok->Count(line), tokens.size()) << line.substr(0, 20);
    Result<std::string> decoded = tok->Decode(tokens);
    ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
    EXPECT_TRUE(*decoded == line) << "round trip of " << line.substr(0, 20);
    // A run of one character merges into long tokens: far fewer tokens
    // than bytes is the sign the merge ran to completion.
    if (one_char_repeated) {
      EXPECT_LT(tokens.size(), line.size() / 4) << line.substr(0, 20);
    }
  }
}

TEST(TokenizerLongInputTest, LongPiecesMatchTiktoken) {
  // 4 KB each: far above the linear-scan limit so the heap merge runs,
  // short enough for tiktoken's quadratic merge (20 KB takes a minute).
  const std::vector<std::string> lines = Lines(4096);
  for (Encoding encoding : {Encoding::kO200kBase, Encoding::kCl100kBase}) {
    const Tokenizer* tok = *Tokenizer::Get(encoding);
    Result<std::vector<std::vector<uint32_t>>> want =
        text_test::ReferenceEncode(EncodingName(encoding), lines);
    ASSERT_TRUE(want.ok()) << want.status().ToString();
    for (size_t i = 0; i < lines.size(); ++i) {
      EXPECT_TRUE(tok->Encode(lines[i]) == (*want)[i])
          << tok->name() << " line " << i;
    }
  }
}

Result<std::unique_ptr<text::RankTable>> EmbeddedRanks(
    const std::string& name) {
  return text::RankTable::FromImage(text::EmbeddedRankImage(name), name,
                                    text::RankTable::ImageCheck::kQuick);
}

// The tokens of `piece` taken as one piece, merged the way `kind` names.
std::vector<uint32_t> MergeAsOnePiece(const text::RankTable& ranks,
                                      const std::string& piece,
                                      text::LongMergeKind kind) {
  std::vector<uint32_t> out;
  text::BytePairEncode(ranks, piece, &out, kind);
  return out;
}

// The bucket merge (pieces from kBucketMergeMin bytes) against tiktoken on
// the single-piece lines, and against the heap merge on every line taken
// as one piece, short and long.
TEST(TokenizerLongInputTest, BucketMergeEqualsHeapMergeAndTiktoken) {
  for (Encoding encoding : {Encoding::kO200kBase, Encoding::kCl100kBase}) {
    const std::string name(EncodingName(encoding));
    auto ranks = EmbeddedRanks(name);
    ASSERT_TRUE(ranks.ok()) << ranks.status().ToString();
    auto merge = [&](const std::string& piece, text::LongMergeKind kind) {
      return MergeAsOnePiece(**ranks, piece, kind);
    };
    const std::vector<std::string> lines = Lines(4096);
    Result<std::vector<std::vector<uint32_t>>> want =
        text_test::ReferenceEncode(name, lines);
    ASSERT_TRUE(want.ok()) << want.status().ToString();
    for (size_t i : {0, 1, 3}) {  // One piece each.
      EXPECT_TRUE(merge(lines[i], text::LongMergeKind::kBuckets) == (*want)[i])
          << name << " line " << i;
    }
    for (size_t size : {size_t{4096}, 2 * text::kBucketMergeMin}) {
      for (const std::string& line : Lines(size)) {
        EXPECT_TRUE(merge(line, text::LongMergeKind::kBuckets) ==
                    merge(line, text::LongMergeKind::kHeap))
            << name << " " << line.substr(0, 20) << " of " << size;
      }
    }
  }
}

// Lines from small alphabets and repeated patterns, where the chunks'
// tokens disagree at most of their meeting points and the join must merge
// windows again: 'a'/'b' at random, runs of one letter of random length,
// a word repeated with and without a break, '=' and '-' mixed.
std::vector<std::string> JoinHeavyLines(size_t size, uint64_t seed) {
  uint64_t state = seed;
  auto next = [&state] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<uint32_t>(state >> 33);
  };
  std::vector<std::string> lines(5);
  while (lines[0].size() < size) lines[0].push_back("ab"[next() % 2]);
  while (lines[1].size() < size) {
    lines[1].append(1 + next() % 40, static_cast<char>('a' + next() % 3));
  }
  while (lines[2].size() < size) lines[2] += "internationalization";
  while (lines[3].size() < size) lines[3].push_back("=-"[next() % 7 == 0]);
  while (lines[4].size() < size) {
    lines[4].push_back(static_cast<char>('a' + next() % 26));
  }
  // Random CJK characters: the chunks are cut inside characters.
  lines.emplace_back();
  while (lines[5].size() < size) {
    const uint32_t c = 0x4E00 + next() % 0x5000;
    lines[5].push_back(static_cast<char>(0xE0 | c >> 12));
    lines[5].push_back(static_cast<char>(0x80 | (c >> 6 & 0x3F)));
    lines[5].push_back(static_cast<char>(0x80 | (c & 0x3F)));
  }
  for (std::string& line : lines) line.resize(size);
  return lines;
}

// The chunked merge against the heap merge (itself checked against
// tiktoken above) on every line taken as one piece, at lengths that end
// at, just after and far from a chunk's end, with several seeds.
TEST(TokenizerLongInputTest, ChunkedMergeEqualsHeapMerge) {
  for (Encoding encoding : {Encoding::kO200kBase, Encoding::kCl100kBase}) {
    const std::string name(EncodingName(encoding));
    auto ranks = EmbeddedRanks(name);
    ASSERT_TRUE(ranks.ok()) << ranks.status().ToString();
    for (size_t size : {text::kMergeChunk + 1, 8 * text::kMergeChunk,
                        8 * text::kMergeChunk + 1001, size_t{200000}}) {
      for (uint64_t seed : {1, 2, 3}) {
        std::vector<std::string> lines = JoinHeavyLines(size, seed);
        for (std::string& line : Lines(size)) lines.push_back(std::move(line));
        for (const std::string& line : lines) {
          EXPECT_TRUE(
              MergeAsOnePiece(**ranks, line, text::LongMergeKind::kChunks) ==
              MergeAsOnePiece(**ranks, line, text::LongMergeKind::kHeap))
              << name << " " << line.substr(0, 20) << " of " << size;
        }
      }
    }
  }
}

// A run of one byte value longer than the linear scan takes the chunks
// whatever its length (kAuto); the tokens are the heap's.
TEST(TokenizerLongInputTest, RunsOfOneByteMergeAsTheHeapDoes) {
  for (Encoding encoding : {Encoding::kO200kBase, Encoding::kCl100kBase}) {
    const std::string name(EncodingName(encoding));
    auto ranks = EmbeddedRanks(name);
    ASSERT_TRUE(ranks.ok()) << ranks.status().ToString();
    for (char c : {'x', '=', '-', '0', ' ', '\xff'}) {
      for (size_t size :
           {text::kLinearScanMergeLimit + 1, size_t{1023}, size_t{1024},
            size_t{4000}, text::kChunkedMergeMin - 1}) {
        const std::string run(size, c);
        EXPECT_TRUE(MergeAsOnePiece(**ranks, run, text::LongMergeKind::kAuto) ==
                    MergeAsOnePiece(**ranks, run, text::LongMergeKind::kHeap))
            << name << " " << size << " x " << int{c};
      }
    }
  }
}

}  // namespace
}  // namespace ctxkit
