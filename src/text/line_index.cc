#include "text/line_index.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "core/status_macros.h"

namespace ctxkit::text {

Result<LineSpan> LocateLines(ByteSource& source, uint64_t first, uint64_t last,
                             LinePosition from, uint64_t max_span_bytes,
                             uint64_t block_bytes, std::string* bytes) {
  if (first > last) {
    return Status::InvalidArgument("LocateLines: first > last");
  }
  if (from.line > first) {
    return Status::InvalidArgument("LocateLines: scan starts past `first`");
  }
  const uint64_t size = source.size();
  block_bytes = std::max<uint64_t>(block_bytes, 1);
  uint64_t want = std::min(kFirstScanReadBytes, block_bytes);

  LineSpan span;
  // `line` begins at byte `line_start`; `pos` is the next byte to read.
  uint64_t line = from.line;
  uint64_t line_start = from.offset;
  uint64_t pos = from.offset;
  uint64_t data_end = size;
  bool have_begin = false;
  std::string block;
  uint64_t block_at = pos;  // Where `block` begins in the source.

  auto begin_found = [&]() {
    have_begin = true;
    span.first_line = line;
    span.begin_byte = line_start;
  };
  // The span, with its bytes when the last block holds them.
  auto done = [&]() {
    if (bytes != nullptr && span.begin_byte >= block_at &&
        span.end_byte <= block_at + block.size()) {
      bytes->assign(block, span.begin_byte - block_at,
                    span.end_byte - span.begin_byte);
      span.has_bytes = true;
    }
    return span;
  };
  if (line == first) begin_found();

  while (!(have_begin && line == last) && pos < data_end) {
    uint64_t n = want;
    if (have_begin && max_span_bytes != UINT64_MAX) {
      // Never read past the byte cap of the span.
      const uint64_t cap_end = span.begin_byte + max_span_bytes;
      if (pos >= cap_end) break;
      n = std::min(n, cap_end - pos);
    }
    CTXKIT_RETURN_IF_ERROR(source.Read(pos, n, &block));
    block_at = pos;
    if (block.empty()) {  // The source is shorter than it said: its end.
      data_end = pos;
      break;
    }
    want = std::min(want * 2, block_bytes);
    size_t i = 0;
    bool stop = false;
    while (i < block.size()) {
      const void* nl = std::memchr(block.data() + i, '\n', block.size() - i);
      if (nl == nullptr) break;
      i = static_cast<const char*>(nl) - block.data() + 1;
      ++line;
      line_start = pos + i;
      if (!have_begin && line == first) begin_found();
      if (have_begin && line == last) {
        stop = true;
        break;
      }
    }
    pos += stop ? i : block.size();
  }
  if (have_begin && line == last) {
    span.end_line = line;
    span.end_byte = line_start;
    return done();
  }
  if (pos >= data_end) {
    // The end of the source: a final unterminated line counts.
    const uint64_t total = line + (line_start < data_end ? 1 : 0);
    span.total_lines = total;
    if (!have_begin) {
      span.first_line = total;
      span.begin_byte = data_end;
    }
    span.end_line = std::min(last, total);
    span.end_byte = data_end;
    return done();
  }
  // The byte cap: line `line` began at line_start and is cut.
  span.cut = true;
  span.end_line = line;
  span.end_byte = span.begin_byte + max_span_bytes;
  return done();
}

Result<LineIndex> LineIndex::Build(ByteSource& source, uint64_t block_bytes) {
  LineIndex index;
  index.size_bytes_ = source.size();
  index.checkpoints_.push_back({0, 0});
  block_bytes = std::max<uint64_t>(block_bytes, 1);
  uint64_t line = 0;
  uint64_t line_start = 0;
  std::string block;
  for (uint64_t pos = 0; pos < index.size_bytes_;) {
    CTXKIT_RETURN_IF_ERROR(source.Read(pos, block_bytes, &block));
    if (block.empty()) break;
    const char* p = block.data();
    const char* end = p + block.size();
    while (p < end) {
      const void* nl = std::memchr(p, '\n', end - p);
      if (nl == nullptr) break;
      p = static_cast<const char*>(nl) + 1;
      ++line;
      line_start = pos + (p - block.data());
      const LinePosition& last = index.checkpoints_.back();
      if (line - last.line >= kLineStride ||
          line_start - last.offset >= kByteStride) {
        index.checkpoints_.push_back({line, line_start});
      }
    }
    pos += block.size();
  }
  index.total_lines_ = line + (line_start < index.size_bytes_ ? 1 : 0);
  // A checkpoint at the very end would name a line that does not exist.
  if (index.checkpoints_.size() > 1 &&
      index.checkpoints_.back().offset >= index.size_bytes_) {
    index.checkpoints_.pop_back();
  }
  index.checkpoints_.shrink_to_fit();
  return index;
}

LinePosition LineIndex::Checkpoint(uint64_t line) const {
  auto it = std::upper_bound(
      checkpoints_.begin(), checkpoints_.end(), line,
      [](uint64_t l, const LinePosition& c) { return l < c.line; });
  return it == checkpoints_.begin() ? LinePosition{} : *std::prev(it);
}

uint64_t LineIndex::memory_bytes() const {
  return sizeof(*this) + checkpoints_.capacity() * sizeof(LinePosition);
}

}  // namespace ctxkit::text
