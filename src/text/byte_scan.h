// Fast byte scanning primitives for search: counting newlines and finding
// a literal in a buffer, with SSE2 on x86-64 and portable fallbacks.
//
// Search spends nearly all its time in these two loops (every byte of every
// searched value goes through both), so they are written for throughput:
// 16 bytes per step, no per-line work.
//
// Thread safety: everything here is immutable after construction.

#ifndef CTXKIT_TEXT_BYTE_SCAN_H_
#define CTXKIT_TEXT_BYTE_SCAN_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace ctxkit::text {

// The number of '\n' bytes in [data, data + size).
uint64_t CountNewlines(const char* data, size_t size);

// A rough rank of how often `byte` occurs in text, code and logs: 0 for the
// rarest, 255 for the most common (space, 'e', ...). Used to pick the bytes
// a literal search keys on.
uint8_t ByteFrequencyRank(uint8_t byte);

// Finds an exact byte string. Keys on the two rarest bytes of the needle
// (by ByteFrequencyRank) at their offsets: a 16-byte vector compare of both
// filters candidates, memcmp confirms them. Falls back to memmem when the
// filter keeps hitting false candidates (a needle of common bytes).
class LiteralFinder {
 public:
  LiteralFinder() = default;
  explicit LiteralFinder(std::string needle);

  // Offset of the first occurrence at or after `from`, or npos. An empty
  // needle matches at `from` (when from <= haystack.size()).
  size_t Find(std::string_view haystack, size_t from) const;

  const std::string& needle() const { return needle_; }

 private:
  size_t FindPair(const char* data, size_t size, size_t from) const;

  std::string needle_;
  // The two keyed offsets into needle_ (i1 != i2 unless size 1).
  size_t i1_ = 0;
  size_t i2_ = 0;
};

}  // namespace ctxkit::text

#endif  // CTXKIT_TEXT_BYTE_SCAN_H_
