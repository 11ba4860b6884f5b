// Long unbroken lines: the heap merge that keeps a 10 MB line without a
// space countable in seconds (timed in bench/tokenizer_bench.cc,
// BM_CountLongLine, never here) must give tiktoken's answer. Checked against
// tiktoken on samples small enough for its quadratic merge, and for
// self-consistency on megabyte lines.

#include <gtest/gtest.h>

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

// The bucket merge (pieces from kBucketMergeMin bytes) against tiktoken on
// the single-piece lines, and against the heap merge on every line taken
// as one piece, short and long.
TEST(TokenizerLongInputTest, BucketMergeEqualsHeapMergeAndTiktoken) {
  for (Encoding encoding : {Encoding::kO200kBase, Encoding::kCl100kBase}) {
    const std::string name(EncodingName(encoding));
    auto ranks =
        text::RankTable::FromImage(text::EmbeddedRankImage(name), name,
                                   text::RankTable::ImageCheck::kQuick);
    ASSERT_TRUE(ranks.ok()) << ranks.status().ToString();
    auto merge = [&](const std::string& piece, text::LongMergeKind kind) {
      std::vector<uint32_t> out;
      text::BytePairEncode(**ranks, piece, &out, kind);
      return out;
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

}  // namespace
}  // namespace ctxkit
