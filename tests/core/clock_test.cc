#include "core/clock.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>

namespace ctxkit::core {
namespace {

// 2024-01-15T10:30:00Z.
constexpr int64_t kStampMillis = int64_t{1705314600} * 1000;

TEST(ParseIso8601MillisTest, ReadsWholeSeconds) {
  EXPECT_EQ(ParseIso8601Millis("2024-01-15T10:30:00Z"), kStampMillis);
  EXPECT_EQ(ParseIso8601Millis("1970-01-01T00:00:00Z"), 0);
}

TEST(ParseIso8601MillisTest, ReadsMilliseconds) {
  EXPECT_EQ(ParseIso8601Millis("2024-01-15T10:30:00.123Z"), kStampMillis + 123);
  EXPECT_EQ(ParseIso8601Millis("2024-01-15T10:30:00.007Z"), kStampMillis + 7);
  // Digits past the third are ignored (microseconds, nanoseconds).
  EXPECT_EQ(ParseIso8601Millis("2024-01-15T10:30:00.123456789Z"),
            kStampMillis + 123);
}

TEST(ParseIso8601MillisTest, AShortFractionIsIgnored) {
  // Fewer than four characters after the seconds: ".5Z" is not read.
  EXPECT_EQ(ParseIso8601Millis("2024-01-15T10:30:00.5Z"), kStampMillis);
  EXPECT_EQ(ParseIso8601Millis("2024-01-15T10:30:00"), kStampMillis);
}

TEST(ParseIso8601MillisTest, ReadsTimesBeforeTheEpoch) {
  EXPECT_EQ(ParseIso8601Millis("1969-12-31T23:59:59.500Z"), -500);
}

TEST(ParseIso8601MillisTest, RefusesWhatIsNotADateAndTime) {
  EXPECT_EQ(ParseIso8601Millis(""), std::nullopt);
  EXPECT_EQ(ParseIso8601Millis("yesterday"), std::nullopt);
  EXPECT_EQ(ParseIso8601Millis("2024-01-15"), std::nullopt);
  EXPECT_EQ(ParseIso8601Millis("2024-01-15 10:30:00Z"), std::nullopt);
}

TEST(ParseIso8601MillisTest, ReadsWhatFormatIso8601Writes) {
  for (int64_t ms : {int64_t{0}, int64_t{1}, kStampMillis + 999,
                     int64_t{4102444800} * 1000 - 1}) {
    EXPECT_EQ(ParseIso8601Millis(FormatIso8601(ms * 1'000'000)), ms) << ms;
  }
}

}  // namespace
}  // namespace ctxkit::core
