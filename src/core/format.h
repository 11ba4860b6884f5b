// Numbers and sizes as people read them. Every face and every summary
// prints counts and sizes through these two, so "12,345 tokens" and
// "1.5 KiB" read the same in the CLI, MCP results, summaries and
// externalized contexts.

#ifndef CTXKIT_CORE_FORMAT_H_
#define CTXKIT_CORE_FORMAT_H_

#include <cstdint>
#include <string>

namespace ctxkit::core {

// Decimal digits grouped by three with commas: 0 -> "0", 12345 ->
// "12,345", 1234567 -> "1,234,567".
std::string GroupedNumber(uint64_t n);

// A size in binary units with one decimal: below 1024 the exact count
// ("312 B"); above, KiB, MiB, GiB, TiB or PiB ("1.5 KiB", "4.0 MiB"). The
// largest unit is PiB (a larger size prints as many PiB).
std::string HumanBytes(uint64_t bytes);

}  // namespace ctxkit::core

#endif  // CTXKIT_CORE_FORMAT_H_
