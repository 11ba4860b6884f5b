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

}  // namespace ctxkit::core
