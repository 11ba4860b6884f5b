// Wall-clock time for created/updated stamps.

#ifndef CTXKIT_CORE_CLOCK_H_
#define CTXKIT_CORE_CLOCK_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ctxkit::core {

// Nanoseconds since the Unix epoch.
int64_t NowUnixNanos();

// "2026-11-21T14:30:22.123Z" (UTC, millisecond precision).
std::string FormatIso8601(int64_t unix_ns);

// Unix milliseconds of an ISO 8601 UTC stamp as ctxkit and the specs it
// follows write them: "2024-01-15T10:30:00Z", optionally with ".mmm" after
// the seconds (digits after the third are ignored; the fraction counts only
// when at least four characters, its '.' included, follow the seconds). The
// fields are read as written and the zone is not looked at. nullopt when
// `iso` does not start with "YYYY-MM-DDTHH:MM:SS".
std::optional<int64_t> ParseIso8601Millis(std::string_view iso);

// RFC 3339 UTC with nanoseconds, "2023-11-14T22:13:20.123456789Z"; "" for
// 0 (a time never set). The form every --json and MCP result uses.
std::string FormatRfc3339Nanos(int64_t unix_ns);

}  // namespace ctxkit::core

#endif  // CTXKIT_CORE_CLOCK_H_
