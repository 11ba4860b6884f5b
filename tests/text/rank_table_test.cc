// RankTable from a rank file (Parse) and from the image the build embeds
// (Image, FromImage): the same lookups either way, and a damaged image is
// refused rather than read.

#include "text/rank_table.h"

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "text/embedded_data.h"

namespace ctxkit::text {
namespace {

void PutU32(std::string* out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>(v >> (8 * i)));
}

// A rank file (docs/tokenizer.md) with the 256 bytes, then `merges`, and
// one special token.
std::string RankFile(const std::vector<std::string>& merges) {
  std::vector<std::string> tokens;
  for (int b = 0; b < 256; ++b) tokens.emplace_back(1, static_cast<char>(b));
  tokens.insert(tokens.end(), merges.begin(), merges.end());
  std::string blob;
  std::vector<uint32_t> offsets = {0};
  for (const std::string& t : tokens) {
    blob += t;
    offsets.push_back(static_cast<uint32_t>(blob.size()));
  }
  std::string out = "CTXBPE01";
  std::string name = "test_enc";
  name.resize(16, '\0');
  out += name;
  PutU32(&out, static_cast<uint32_t>(tokens.size()));
  PutU32(&out, 1);
  PutU32(&out, static_cast<uint32_t>(blob.size()));
  PutU32(&out, 0);
  for (uint32_t o : offsets) PutU32(&out, o);
  out += blob;
  PutU32(&out, static_cast<uint32_t>(tokens.size() + 10));
  PutU32(&out, 5);
  out += "<|e|>";
  return out;
}

std::span<const unsigned char> Bytes(const std::string& s) {
  return {reinterpret_cast<const unsigned char*>(s.data()), s.size()};
}

// An image copied to 4-aligned memory, as the embedded one is.
struct AlignedImage {
  explicit AlignedImage(const std::string& image)
      : words((image.size() + 3) / 4), size(image.size()) {
    std::copy(image.begin(), image.end(),
              reinterpret_cast<char*>(words.data()));
  }
  std::span<const unsigned char> span() const {
    return {reinterpret_cast<const unsigned char*>(words.data()), size};
  }
  unsigned char* data() {
    return reinterpret_cast<unsigned char*>(words.data());
  }
  std::vector<uint32_t> words;
  size_t size;
};

using Check = RankTable::ImageCheck;

TEST(RankTableTest, ImageAnswersAsTheParsedTable) {
  std::vector<std::string> merges;
  for (int i = 0; i < 3000; ++i) merges.push_back("tok" + std::to_string(i));
  const std::string file = RankFile(merges);
  auto parsed = RankTable::Parse(Bytes(file), "test_enc");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  AlignedImage image((*parsed)->Image("test_enc"));
  for (Check check : {Check::kQuick, Check::kFull}) {
    auto table = RankTable::FromImage(image.span(), "test_enc", check);
    ASSERT_TRUE(table.ok()) << table.status().ToString();
    ASSERT_EQ((*table)->size(), (*parsed)->size());
    for (uint32_t r = 0; r < (*parsed)->size(); ++r) {
      ASSERT_EQ((*table)->Bytes(r), (*parsed)->Bytes(r));
      ASSERT_EQ((*table)->Find((*parsed)->Bytes(r)), r);
    }
    EXPECT_EQ((*table)->Find("not-a-token"), kNoRank);
    EXPECT_EQ((*table)->ByteRank('a'), static_cast<uint32_t>('a'));
    ASSERT_EQ((*table)->specials().size(), 1u);
    EXPECT_EQ((*table)->specials()[0].second, "<|e|>");
  }
}

TEST(RankTableTest, DamagedImagesAreRefused) {
  std::vector<std::string> merges;
  for (int i = 0; i < 600; ++i) merges.push_back("w" + std::to_string(i));
  const std::string file = RankFile(merges);
  auto parsed = RankTable::Parse(Bytes(file), "test_enc");
  ASSERT_TRUE(parsed.ok());
  const std::string good = (*parsed)->Image("test_enc");
  const size_t n_ranks = 256 + merges.size();
  const size_t filter_bytes = std::bit_ceil(8 * n_ranks) / 8;
  const size_t slots_at =
      40 + 4 * 256 + 4 * 65536 + filter_bytes + 4 * (n_ranks + 1);
  auto refused = [](AlignedImage& image, const char* name, Check check) {
    auto t = RankTable::FromImage(image.span(), name, check);
    return !t.ok() && t.status().code() == StatusCode::kCorruption;
  };
  {
    AlignedImage image(good);
    EXPECT_TRUE(refused(image, "other_enc", Check::kQuick)) << "wrong name";
  }
  {
    AlignedImage image(good);
    image.data()[0] = 'X';
    EXPECT_TRUE(refused(image, "test_enc", Check::kQuick)) << "magic";
  }
  {
    AlignedImage image(good.substr(0, good.size() - 10));
    EXPECT_TRUE(refused(image, "test_enc", Check::kQuick)) << "truncated";
  }
  {
    // Every slot moved one place: lookups no longer find their tokens.
    std::string shifted = good;
    const std::string slots = good.substr(slots_at, 16 * 2048);  // capacity
    shifted.replace(slots_at, slots.size(),
                    slots.substr(16) + slots.substr(0, 16));
    AlignedImage image(shifted);
    EXPECT_TRUE(refused(image, "test_enc", Check::kQuick)) << "rehashed";
  }
  {
    // A slot naming a rank past the end: only the full check reads every
    // slot, and it refuses.
    AlignedImage image(good);
    size_t empty = slots_at;
    while (image.data()[empty] != 0xff) empty += 16;
    image.data()[empty] = 0x7f;  // rank 0xffffff7f.
    EXPECT_TRUE(refused(image, "test_enc", Check::kFull)) << "bad slot";
  }
  {
    // A slot whose inline bytes are not its token's: lookups of short
    // tokens trust them, so the full check compares every slot.
    AlignedImage image(good);
    size_t used = slots_at;
    while (image.data()[used] == 0xff) used += 16;
    image.data()[used + 8] ^= 1;  // The head's first byte.
    EXPECT_TRUE(refused(image, "test_enc", Check::kFull)) << "bad head";
  }
  {
    // A filter that leaves tokens out.
    AlignedImage image(good);
    const size_t filter_at = 40 + 4 * 256 + 4 * 65536;
    std::memset(image.data() + filter_at, 0, filter_bytes);
    EXPECT_TRUE(refused(image, "test_enc", Check::kQuick)) << "empty filter";
  }
  {
    // A 2-byte string given a rank that is not its token's.
    AlignedImage image(good);
    const size_t pair_ranks_at = 40 + 4 * 256;
    image.data()[pair_ranks_at + 4 * ('w' << 8 | '1')] ^= 1;
    EXPECT_TRUE(refused(image, "test_enc", Check::kFull)) << "bad pair";
  }
}

TEST(RankTableTest, EmbeddedImagesLoad) {
  for (const char* name : {"o200k_base", "cl100k_base"}) {
    auto table =
        RankTable::FromImage(EmbeddedRankImage(name), name, Check::kFull);
    ASSERT_TRUE(table.ok()) << name << ": " << table.status().ToString();
    EXPECT_GT((*table)->size(), 100000u);
  }
}

}  // namespace
}  // namespace ctxkit::text
