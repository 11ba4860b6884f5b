#include "text/json_items.h"

#include <algorithm>
#include <string>

#include "core/status_macros.h"

namespace ctxkit::text {

namespace {

constexpr uint64_t kFirstBlockBytes = 64ull << 10;

bool IsJsonSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

}  // namespace

Result<std::optional<JsonContainer>> SniffJsonContainer(ByteSource& source) {
  std::string block;
  for (uint64_t pos = 0; pos < source.size(); pos += block.size()) {
    CTXKIT_RETURN_IF_ERROR(source.Read(pos, 4096, &block));
    if (block.empty()) break;
    for (char c : block) {
      if (IsJsonSpace(c)) continue;
      if (c == '[') return std::optional<JsonContainer>(JsonContainer::kArray);
      if (c == '{') return std::optional<JsonContainer>(JsonContainer::kObject);
      return std::optional<JsonContainer>();
    }
  }
  return std::optional<JsonContainer>();
}

Result<JsonItemSpan> LocateJsonItems(ByteSource& source, uint64_t first,
                                     uint64_t last, uint64_t max_span_bytes,
                                     uint64_t block_bytes) {
  if (first > last) {
    return Status::InvalidArgument("LocateJsonItems: first > last");
  }
  JsonItemSpan span;
  span.first = first;
  block_bytes = std::max<uint64_t>(block_bytes, 1);
  uint64_t want = std::min(kFirstBlockBytes, block_bytes);

  // Scanner state.
  bool started = false;  // Saw the opening bracket.
  int64_t depth = 0;
  bool in_string = false;
  bool escape = false;
  uint64_t index = 0;       // The item being scanned.
  bool in_item = false;     // Between an item's first byte and its end.
  uint64_t item_begin = 0;  // Source offset of the item's first byte.
  uint64_t item_end = 0;    // One past its last non-whitespace byte.
  uint64_t used = 0;        // Bytes of returned items so far.
  std::string current;      // The wanted item being collected.
  bool collecting = false;

  auto want_index = [&](uint64_t i) { return i >= first && i < last; };
  std::string block;
  uint64_t pos = 0;
  const uint64_t size = source.size();
  for (;;) {
    if (started && index >= last) break;
    if (pos >= size) {
      if (!started) {
        return Status::FailedPrecondition("not a JSON array or object");
      }
      return Status::InvalidArgument(
          "not valid JSON: the top-level container does not end");
    }
    CTXKIT_RETURN_IF_ERROR(source.Read(pos, want, &block));
    if (block.empty()) {
      return Status::InvalidArgument(
          "not valid JSON: the top-level container does not end");
    }
    want = std::min(want * 2, block_bytes);
    size_t i = 0;
    bool done = false;
    // Appends block[from, to) to the wanted item, honouring the byte cap.
    auto collect = [&](size_t from, size_t to) {
      if (!collecting || from >= to) return;
      current.append(block, from, to - from);
    };
    size_t collect_from = 0;
    auto over_cap = [&]() {
      return collecting && used + (item_end - item_begin) > max_span_bytes;
    };
    // The cap: keep what fits of the current item as the partial one.
    auto cut_here = [&](size_t i) -> JsonItemSpan {
      collect(collect_from, i + 1);
      current.resize(max_span_bytes - used);
      if (span.items.empty()) span.begin_byte = item_begin;
      span.end_byte = item_begin + current.size();
      span.partial = std::move(current);
      span.cut = true;
      return std::move(span);
    };
    for (; i < block.size(); ++i) {
      const char c = block[i];
      const uint64_t at = pos + i;
      if (!started) {
        if (IsJsonSpace(c)) continue;
        if (c == '[') {
          span.kind = JsonContainer::kArray;
        } else if (c == '{') {
          span.kind = JsonContainer::kObject;
        } else {
          return Status::FailedPrecondition("not a JSON array or object");
        }
        started = true;
        depth = 1;
        continue;
      }
      if (in_string) {
        item_end = at + 1;
        if (escape) {
          escape = false;
        } else if (c == '\\') {
          escape = true;
        } else if (c == '"') {
          in_string = false;
        }
        if (over_cap()) return cut_here(i);
        continue;
      }
      if (IsJsonSpace(c)) continue;
      const bool closes = (c == ']' || c == '}') && depth == 1;
      const bool separates = c == ',' && depth == 1;
      if (closes || separates) {
        if (in_item) {
          // The item [item_begin, item_end) is complete.
          if (collecting) {
            collect(collect_from, item_end > pos ? item_end - pos : 0);
            current.resize(item_end - item_begin);
            if (span.items.empty()) span.begin_byte = item_begin;
            span.end_byte = item_end;
            used += current.size();
            span.items.push_back(std::move(current));
            current.clear();
            collecting = false;
          }
          in_item = false;
          ++index;
        } else if (separates) {
          return Status::InvalidArgument("not valid JSON: an empty item");
        }
        if (closes) {
          span.total = index;
          depth = 0;
          done = true;
          break;
        }
        if (index >= last) {
          done = true;
          break;
        }
        continue;
      }
      if (!in_item) {
        in_item = true;
        item_begin = at;
        if (want_index(index)) {
          collecting = true;
          collect_from = i;
          current.clear();
        }
      }
      item_end = at + 1;
      if (c == '"') {
        in_string = true;
      } else if (c == '[' || c == '{') {
        ++depth;
      } else if (c == ']' || c == '}') {
        --depth;
      }
      if (over_cap()) return cut_here(i);
    }
    if (!done) collect(collect_from, block.size());
    collect_from = 0;
    pos += block.size();
    if (done) break;
  }
  if (span.total.has_value()) span.first = std::min(first, *span.total);
  if (span.items.empty()) {
    // Nothing returned: an empty range, or past the end. Point at where
    // the requested item would begin.
    span.begin_byte = span.end_byte = in_item ? item_begin : pos;
  }
  return span;
}

Result<uint64_t> CountJsonItems(ByteSource& source, uint64_t block_bytes) {
  CTXKIT_ASSIGN_OR_RETURN(
      JsonItemSpan span,
      LocateJsonItems(source, UINT64_MAX, UINT64_MAX, UINT64_MAX, block_bytes));
  if (!span.total.has_value()) {
    return Status::Internal("JSON item count did not reach the end");
  }
  return *span.total;
}

}  // namespace ctxkit::text
