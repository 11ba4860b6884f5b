// Peek: a slice of a stored value by lines, bytes, JSON items or chunks.

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "core/status_macros.h"
#include "ctxkit/explore.h"
#include "explore/view_source.h"
#include "text/json_items.h"
#include "text/line_index.h"
#include "text/preview.h"

namespace ctxkit {

std::string_view PeekUnitName(PeekUnit unit) {
  switch (unit) {
    case PeekUnit::kAuto:
      return "auto";
    case PeekUnit::kLines:
      return "lines";
    case PeekUnit::kBytes:
      return "bytes";
    case PeekUnit::kItems:
      return "items";
    case PeekUnit::kChunks:
      return "chunks";
  }
  return "auto";
}

Result<PeekUnit> ParsePeekUnit(std::string_view name) {
  for (PeekUnit u : {PeekUnit::kAuto, PeekUnit::kLines, PeekUnit::kBytes,
                     PeekUnit::kItems, PeekUnit::kChunks}) {
    if (name == PeekUnitName(u)) return u;
  }
  return Status::InvalidArgument("unknown peek unit '" + std::string(name) +
                                 "' (auto, lines, bytes, items, chunks)");
}

namespace {

// Python's slice bounds for `total` units.
uint64_t ClampIndex(int64_t i, uint64_t total) {
  if (i < 0) {
    const uint64_t back = static_cast<uint64_t>(-(i + 1)) + 1;
    return back >= total ? 0 : total - back;
  }
  return std::min<uint64_t>(static_cast<uint64_t>(i), total);
}

bool NeedsTotal(const PeekOptions& o) {
  return o.count_total || o.start < 0 || o.end < 0;
}

// Resolved non-negative bounds, or the requested ones when the total is
// unknown (then both are >= 0).
void Bounds(const PeekOptions& o, std::optional<uint64_t> total,
            uint64_t* start, uint64_t* end) {
  if (total.has_value()) {
    *start = ClampIndex(o.start, *total);
    *end = ClampIndex(o.end, *total);
  } else {
    *start = static_cast<uint64_t>(o.start);
    *end = static_cast<uint64_t>(o.end);
  }
  *end = std::max(*end, *start);
}

Status PeekBytes(text::ByteSource& src, const PeekOptions& o, PeekResult* r) {
  r->total = src.size();
  Bounds(o, r->total, &r->start, &r->end);
  const uint64_t want = std::min(r->end - r->start, o.max_bytes);
  CTXKIT_RETURN_IF_ERROR(src.Read(r->start, want, &r->text));
  r->truncated = r->start + r->text.size() < r->end;
  r->end = r->start + r->text.size();
  r->byte_begin = r->start;
  r->byte_end = r->end;
  return Status::Ok();
}

Status PeekLines(View& view, text::ByteSource& src, const PeekOptions& o,
                 PeekResult* r) {
  std::shared_ptr<const text::LineIndex> index =
      explore::CachedLineIndex(view, r->ref);
  if (index == nullptr && NeedsTotal(o)) {
    CTXKIT_ASSIGN_OR_RETURN(index, explore::GetLineIndex(view, r->ref, src));
  }
  if (index != nullptr) r->total = index->total_lines();
  uint64_t start = 0;
  uint64_t end = 0;
  Bounds(o, r->total, &start, &end);
  const text::LinePosition from =
      index != nullptr ? index->Checkpoint(start) : text::LinePosition{};
  CTXKIT_ASSIGN_OR_RETURN(
      text::LineSpan span,
      text::LocateLines(src, start, end, from, o.max_bytes,
                        text::kDefaultBlockBytes, &r->text));
  if (span.total_lines.has_value()) r->total = span.total_lines;
  if (!span.has_bytes) {
    CTXKIT_RETURN_IF_ERROR(
        src.Read(span.begin_byte, span.end_byte - span.begin_byte, &r->text));
  }
  r->start = span.first_line;
  r->end = span.end_line;
  if (span.cut) {
    r->text.resize(text::Utf8CompletePrefix(r->text));
    r->truncated = true;
    r->end = std::max(r->end, r->start + 1);
  }
  r->byte_begin = span.begin_byte;
  r->byte_end = span.begin_byte + r->text.size();
  return Status::Ok();
}

// Items of a chat stored one message per line: its lines, shaped as
// PeekItems shapes JSON items (parts without the newline, text a JSON array
// of them, a cut item dropped unless it is the only one).
Status PeekLineItems(View& view, text::ByteSource& src, const PeekOptions& o,
                     PeekResult* r) {
  CTXKIT_RETURN_IF_ERROR(PeekLines(view, src, o, r));
  // max_bytes cut the last line (not merely stopped after a whole one).
  const bool cut = r->truncated && !r->text.empty() && r->text.back() != '\n';
  std::string_view text = r->text;
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    r->parts.emplace_back(text.substr(0, nl));
    text = nl == std::string_view::npos ? "" : text.substr(nl + 1);
  }
  if (cut && r->parts.size() == 1) {
    r->text = r->parts[0];
    return Status::Ok();
  }
  if (cut) {
    r->byte_end -= r->parts.back().size();
    r->parts.pop_back();
    r->end = r->start + r->parts.size();
  }
  r->text = "[";
  for (size_t i = 0; i < r->parts.size(); ++i) {
    if (i > 0) r->text += ", ";
    r->text += r->parts[i];
  }
  r->text += "]";
  return Status::Ok();
}

Status PeekItems(View& view, text::ByteSource& src, const PeekOptions& o,
                 PeekResult* r) {
  CTXKIT_ASSIGN_OR_RETURN(std::optional<text::JsonContainer> kind,
                          text::SniffJsonContainer(src));
  if (explore::ItemsAreLines(r->ref, kind)) {
    return PeekLineItems(view, src, o, r);
  }
  if (!kind.has_value()) {
    return Status::FailedPrecondition(
        "'" + r->ref.key +
        "' is not a JSON array or object; peek it by lines or bytes");
  }
  if (NeedsTotal(o)) {
    CTXKIT_ASSIGN_OR_RETURN(uint64_t total, text::CountJsonItems(src));
    r->total = total;
  }
  uint64_t start = 0;
  uint64_t end = 0;
  Bounds(o, r->total, &start, &end);
  CTXKIT_ASSIGN_OR_RETURN(text::JsonItemSpan span,
                          text::LocateJsonItems(src, start, end, o.max_bytes));
  if (span.total.has_value()) r->total = span.total;
  r->start = span.first;
  r->end = span.first + span.items.size();
  r->byte_begin = span.begin_byte;
  r->byte_end = span.end_byte;
  const bool object = span.kind == text::JsonContainer::kObject;
  if (span.cut && span.items.empty()) {
    // Not even one item fits: the start of it, as text.
    r->text = span.partial.substr(0, text::Utf8CompletePrefix(span.partial));
    r->parts.push_back(r->text);
    r->truncated = true;
    r->end = r->start + 1;
    return Status::Ok();
  }
  r->text = object ? "{" : "[";
  for (size_t i = 0; i < span.items.size(); ++i) {
    if (i > 0) r->text += ", ";
    r->text += span.items[i];
  }
  r->text += object ? "}" : "]";
  r->truncated = span.cut;
  if (!nlohmann::json::accept(r->text)) {
    return Status::InvalidArgument("'" + r->ref.key +
                                   "' is not valid JSON; peek it by lines or "
                                   "bytes");
  }
  r->parts = std::move(span.items);
  return Status::Ok();
}

Status PeekChunks(View& view, text::ByteSource& src, const PeekOptions& o,
                  PeekResult* r) {
  std::vector<uint64_t> bounds = explore::StreamChunkBounds(view, r->ref);
  if (bounds.empty()) {
    r->chunk_bytes = kFixedChunkBytes;
    for (uint64_t at = 0; at < src.size(); at += kFixedChunkBytes) {
      bounds.push_back(at);
    }
    bounds.push_back(src.size());
  }
  const uint64_t total = bounds.size() - 1;
  r->total = total;
  Bounds(o, total, &r->start, &r->end);
  r->byte_begin = bounds[r->start];
  const uint64_t want = std::min(bounds[r->end] - r->byte_begin, o.max_bytes);
  CTXKIT_RETURN_IF_ERROR(src.Read(r->byte_begin, want, &r->text));
  r->byte_end = r->byte_begin + r->text.size();
  if (r->byte_end < bounds[r->end]) {
    r->truncated = true;
    // Chunks complete within the text, plus the cut one.
    uint64_t complete = r->start;
    while (complete < r->end && bounds[complete + 1] <= r->byte_end) {
      ++complete;
    }
    const bool partial = complete < r->end && bounds[complete] < r->byte_end;
    r->end = std::max(partial ? complete + 1 : complete, r->start + 1);
  }
  for (uint64_t c = r->start; c < r->end; ++c) {
    const uint64_t b = std::max(bounds[c], r->byte_begin) - r->byte_begin;
    const uint64_t e = std::min(bounds[c + 1], r->byte_end) - r->byte_begin;
    r->parts.push_back(r->text.substr(b, e - b));
  }
  return Status::Ok();
}

Result<PeekResult> PeekPinned(View& view, const Ref& ref,
                              const PeekOptions& o) {
  if (o.max_bytes == 0 || o.max_bytes > (1ull << 30)) {
    return Status::InvalidArgument("peek max_bytes must be 1 B - 1 GiB");
  }
  explore::ViewByteSource src(view, ref);
  PeekResult r;
  r.ref = ref;
  r.total_bytes = ref.size_bytes;
  PeekUnit unit = o.unit;
  if (unit == PeekUnit::kAuto) {
    if (ref.type == ValueType::kStream) {
      unit = PeekUnit::kChunks;
    } else if (ref.type == ValueType::kJson) {
      CTXKIT_ASSIGN_OR_RETURN(std::optional<text::JsonContainer> kind,
                              text::SniffJsonContainer(src));
      unit = kind.has_value() ? PeekUnit::kItems : PeekUnit::kLines;
    } else {
      unit = PeekUnit::kLines;
    }
  }
  r.unit = unit;
  Status s;
  switch (unit) {
    case PeekUnit::kBytes:
      s = PeekBytes(src, o, &r);
      break;
    case PeekUnit::kItems:
      s = PeekItems(view, src, o, &r);
      break;
    case PeekUnit::kChunks:
      s = PeekChunks(view, src, o, &r);
      break;
    case PeekUnit::kAuto:
    case PeekUnit::kLines:
      s = PeekLines(view, src, o, &r);
      break;
  }
  if (!s.ok()) return s;
  r.bytes_read = src.bytes_read();
  return r;
}

}  // namespace

Result<PeekResult> Peek(View& view, std::string_view key,
                        const PeekOptions& options) {
  CTXKIT_ASSIGN_OR_RETURN(Ref ref, view.Pin(key, options.lookup));
  return PeekPinned(view, ref, options);
}

Result<PeekResult> Peek(View& view, const Ref& ref,
                        const PeekOptions& options) {
  CTXKIT_ASSIGN_OR_RETURN(Ref pinned, view.Pin(ref));
  return PeekPinned(view, pinned, options);
}

Result<PeekResult> Peek(View& view, const Target& target,
                        const PeekOptions& options) {
  CTXKIT_ASSIGN_OR_RETURN(Ref pinned, view.Pin(target));
  return PeekPinned(view, pinned, options);
}

}  // namespace ctxkit
