#include "core/encoding.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>

namespace ctxkit::core {
namespace {

TEST(Base36Test, RoundTripsAcrossTheRange) {
  std::mt19937_64 rng(7);
  for (uint64_t v : {uint64_t{0}, uint64_t{1}, uint64_t{35}, uint64_t{36},
                     std::numeric_limits<uint64_t>::max()}) {
    EXPECT_EQ(FromBase36(ToBase36(v)), v);
  }
  for (int i = 0; i < 10000; ++i) {
    uint64_t v = rng() >> (rng() % 64);
    ASSERT_EQ(FromBase36(ToBase36(v)), v) << v;
  }
  EXPECT_EQ(ToBase36(36), "10");
}

TEST(Base36Test, RejectsNonCanonicalForms) {
  EXPECT_FALSE(FromBase36(""));
  EXPECT_FALSE(FromBase36("01"));  // Leading zero: would not round-trip.
  EXPECT_FALSE(FromBase36("A"));   // Upper case.
  EXPECT_FALSE(FromBase36("-1"));
  EXPECT_FALSE(FromBase36("zzzzzzzzzzzzzz"));  // Overflows 64 bits.
  EXPECT_EQ(FromBase36("0"), 0u);
}

TEST(DecimalTest, CanonicalOnly) {
  EXPECT_EQ(ParseCanonicalDecimal("0"), 0u);
  EXPECT_EQ(ParseCanonicalDecimal("18446744073709551615"),
            std::numeric_limits<uint64_t>::max());
  EXPECT_FALSE(ParseCanonicalDecimal("18446744073709551616"));
  EXPECT_FALSE(ParseCanonicalDecimal("007"));
  EXPECT_FALSE(ParseCanonicalDecimal("+7"));
  EXPECT_FALSE(ParseCanonicalDecimal("a"));
}

TEST(HexTest, RoundTripsBytes) {
  std::string bytes("\x00\x01\xfe\xff", 4);
  EXPECT_EQ(ToHex(bytes), "0001feff");
  EXPECT_EQ(FromHex("0001feff"), bytes);
  EXPECT_FALSE(FromHex("abc"));
  EXPECT_FALSE(FromHex("zz"));
}

TEST(Utf8Test, AcceptsWellFormed) {
  EXPECT_TRUE(IsValidUtf8(""));
  EXPECT_TRUE(IsValidUtf8("plain ascii"));
  EXPECT_TRUE(IsValidUtf8("caf\xc3\xa9"));               // é
  EXPECT_TRUE(IsValidUtf8("\xe4\xb8\xad\xe6\x96\x87"));  // 中文
  EXPECT_TRUE(IsValidUtf8("\xf0\x9f\x98\x80"));          // U+1F600
  EXPECT_TRUE(IsValidUtf8("\xf4\x8f\xbf\xbf"));          // U+10FFFF
}

TEST(Utf8Test, RejectsMalformed) {
  EXPECT_FALSE(IsValidUtf8("\xc3"));              // Truncated.
  EXPECT_FALSE(IsValidUtf8("\xc0\xaf"));          // Overlong '/'.
  EXPECT_FALSE(IsValidUtf8("\xe0\x80\xaf"));      // Overlong.
  EXPECT_FALSE(IsValidUtf8("\xed\xa0\x80"));      // Surrogate U+D800.
  EXPECT_FALSE(IsValidUtf8("\xf4\x90\x80\x80"));  // Above U+10FFFF.
  EXPECT_FALSE(IsValidUtf8("\xff"));
  EXPECT_FALSE(IsValidUtf8("\x80"));  // Lone continuation.
}

}  // namespace
}  // namespace ctxkit::core
