// Lines of a ByteSource, found by streaming: locate a range of lines
// without reading past it, and a sparse index for repeated seeks.
//
// The line model (as `wc -l` plus a final unterminated line, and as Python's
// str.splitlines() for '\n'): a line is the bytes up to and including a
// '\n', or the bytes after the last '\n' when the source does not end with
// one. "" has 0 lines, "a" 1, "a\n" 1, "a\nb" 2, "\n\n" 2. Only '\n' ends a
// line; a '\r' before it is part of the line. Lines are numbered from 0
// here; user-facing line numbers (search) are 1-based.
//
// Thread safety: LineIndex is an immutable value after Build; the free
// functions share nothing.

#ifndef CTXKIT_TEXT_LINE_INDEX_H_
#define CTXKIT_TEXT_LINE_INDEX_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ctxkit/status.h"
#include "text/byte_source.h"

namespace ctxkit::text {

// Where a line begins.
struct LinePosition {
  uint64_t line = 0;
  uint64_t offset = 0;
};

// The result of LocateLines: lines [first_line, end_line) occupy bytes
// [begin_byte, end_byte) of the source.
struct LineSpan {
  uint64_t first_line = 0;  // The requested first line, or the line count
                            // when the source has fewer lines.
  uint64_t end_line = 0;    // Lines before this one are complete in range.
  uint64_t begin_byte = 0;
  uint64_t end_byte = 0;
  // True when the span reached max_span_bytes before line `last` began:
  // end_byte == begin_byte + max_span_bytes falls inside line end_line,
  // which is then only partly covered.
  bool cut = false;
  // The number of lines of the whole source, known when the scan happened
  // to reach its end (always when `last` is past the last line).
  std::optional<uint64_t> total_lines;
  // True when LocateLines set its `bytes` to the span's bytes (they lay in
  // the last block it read), so the caller need not read them again.
  bool has_bytes = false;
};

// Finds lines [first, last) (REQUIRES: first <= last), scanning forward
// from `from` (a position where a line begins: {0, 0} or a LineIndex
// checkpoint). Reads blocks that grow from 64 KiB up to `block_bytes` and
// stops as soon as line `last` begins, or when the span would exceed
// `max_span_bytes`; so a range near the start of a huge source costs a few
// KiB of reads. With `bytes`, the span's bytes when the last block read
// holds them all (LineSpan::has_bytes).
Result<LineSpan> LocateLines(ByteSource& source, uint64_t first, uint64_t last,
                             LinePosition from = {},
                             uint64_t max_span_bytes = UINT64_MAX,
                             uint64_t block_bytes = kDefaultBlockBytes,
                             std::string* bytes = nullptr);

// A sparse line index: the line count plus a checkpoint (line, offset) at
// least every kLineStride lines and every kByteStride bytes, so a seek
// scans at most about that much. Memory: 16 bytes per checkpoint, at most
// size/kByteStride + lines/kLineStride + 1 of them.
class LineIndex {
 public:
  static constexpr uint64_t kLineStride = 4096;
  static constexpr uint64_t kByteStride = 1ull << 20;

  // Streams the whole source once, `block_bytes` at a time.
  static Result<LineIndex> Build(ByteSource& source,
                                 uint64_t block_bytes = kDefaultBlockBytes);

  uint64_t total_lines() const { return total_lines_; }
  uint64_t size_bytes() const { return size_bytes_; }
  // The last checkpoint at or before `line`.
  LinePosition Checkpoint(uint64_t line) const;
  // Approximate heap bytes held.
  uint64_t memory_bytes() const;

 private:
  uint64_t total_lines_ = 0;
  uint64_t size_bytes_ = 0;
  std::vector<LinePosition> checkpoints_;  // Sorted; checkpoints_[0] = {0,0}.
};

}  // namespace ctxkit::text

#endif  // CTXKIT_TEXT_LINE_INDEX_H_
