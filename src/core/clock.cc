#include "core/clock.h"

#include <chrono>
#include <cstdio>
#include <ctime>

namespace ctxkit::core {

int64_t NowUnixNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string FormatIso8601(int64_t unix_ns) {
  int64_t secs = unix_ns / 1000000000;
  int64_t millis = (unix_ns % 1000000000) / 1000000;
  if (millis < 0) {
    millis += 1000;
    secs -= 1;
  }
  std::time_t t = static_cast<std::time_t>(secs);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ",
                tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                tm.tm_min, tm.tm_sec, static_cast<int>(millis));
  return buf;
}

std::optional<int64_t> ParseIso8601Millis(std::string_view iso) {
  const std::string text(iso);  // sscanf wants a terminated string.
  int y, mo, d, h, mi, s;
  int consumed = 0;
  if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &y, &mo, &d, &h,
                  &mi, &s, &consumed) != 6) {
    return std::nullopt;
  }
  const size_t end = static_cast<size_t>(consumed);
  int ms = 0;
  if (text.size() >= end + 4 && text[end] == '.') {
    for (size_t i = end + 1; i < end + 4 && text[i] >= '0' && text[i] <= '9';
         ++i) {
      ms = ms * 10 + (text[i] - '0');
    }
  }
  std::tm tm{};
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = s;
  return static_cast<int64_t>(timegm(&tm)) * 1000 + ms;
}

std::string FormatRfc3339Nanos(int64_t unix_ns) {
  if (unix_ns == 0) return "";
  std::time_t secs = static_cast<std::time_t>(unix_ns / 1000000000);
  std::tm tm{};
  if (gmtime_r(&secs, &tm) == nullptr) return "";
  char buf[48];
  size_t n = std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
  long nanos = static_cast<long>(unix_ns % 1000000000);
  if (nanos < 0) nanos = 0;
  std::snprintf(buf + n, sizeof(buf) - n, ".%09ldZ", nanos);
  return buf;
}

}  // namespace ctxkit::core
