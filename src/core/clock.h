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

// RFC 3339 UTC with nanoseconds, "2023-11-14T22:13:20.123456789Z"; "" for
// 0 (a time never set). The form every --json and MCP result uses.
std::string FormatRfc3339Nanos(int64_t unix_ns);

}  // namespace ctxkit::core

#endif  // CTXKIT_CORE_CLOCK_H_
