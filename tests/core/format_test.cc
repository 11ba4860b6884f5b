#include "core/format.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

namespace ctxkit::core {
namespace {

TEST(GroupedNumberTest, GroupsDigitsByThree) {
  EXPECT_EQ(GroupedNumber(0), "0");
  EXPECT_EQ(GroupedNumber(999), "999");
  EXPECT_EQ(GroupedNumber(1000), "1,000");
  EXPECT_EQ(GroupedNumber(12345), "12,345");
  EXPECT_EQ(GroupedNumber(1234567), "1,234,567");
  EXPECT_EQ(GroupedNumber(std::numeric_limits<uint64_t>::max()),
            "18,446,744,073,709,551,615");
}

TEST(HumanBytesTest, ExactBelowOneKibibyte) {
  EXPECT_EQ(HumanBytes(0), "0 B");
  EXPECT_EQ(HumanBytes(1023), "1023 B");
}

TEST(HumanBytesTest, BinaryUnitsWithOneDecimal) {
  EXPECT_EQ(HumanBytes(1024), "1.0 KiB");
  EXPECT_EQ(HumanBytes(1536), "1.5 KiB");
  EXPECT_EQ(HumanBytes(uint64_t{4} << 20), "4.0 MiB");
  EXPECT_EQ(HumanBytes(uint64_t{3} << 30), "3.0 GiB");
  EXPECT_EQ(HumanBytes(uint64_t{2} << 40), "2.0 TiB");
  EXPECT_EQ(HumanBytes(uint64_t{5} << 50), "5.0 PiB");
}

TEST(HumanBytesTest, PebibytesIsTheLargestUnit) {
  EXPECT_EQ(HumanBytes(uint64_t{2048} << 50), "2048.0 PiB");
}

}  // namespace
}  // namespace ctxkit::core
