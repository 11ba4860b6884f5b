// Wall-clock time for created/updated stamps.

#ifndef CTXKIT_CORE_CLOCK_H_
#define CTXKIT_CORE_CLOCK_H_

#include <cstdint>
#include <string>

namespace ctxkit::core {

// Nanoseconds since the Unix epoch.
int64_t NowUnixNanos();

// "2026-11-21T14:30:22.123Z" (UTC, millisecond precision).
std::string FormatIso8601(int64_t unix_ns);

}  // namespace ctxkit::core

#endif  // CTXKIT_CORE_CLOCK_H_
