// Len: the size of a stored value in bytes, lines, items and chunks.

#include <memory>
#include <optional>

#include "core/status_macros.h"
#include "ctxkit/explore.h"
#include "explore/view_source.h"
#include "text/json_items.h"
#include "text/line_index.h"

namespace ctxkit {

namespace {

Result<LenResult> LenPinned(View& view, const Ref& ref, const LenOptions& o) {
  LenResult r;
  r.ref = ref;
  r.type = ref.type;
  r.bytes = ref.size_bytes;
  explore::ViewByteSource src(view, ref);
  if (ref.type == ValueType::kStream) {
    std::vector<uint64_t> bounds = explore::StreamChunkBounds(view, ref);
    if (!bounds.empty()) r.chunks = bounds.size() - 1;
  }
  const bool count = o.count || ref.size_bytes <= o.count_limit_bytes;
  std::shared_ptr<const text::LineIndex> index =
      explore::CachedLineIndex(view, ref);
  if (index == nullptr && count) {
    CTXKIT_ASSIGN_OR_RETURN(index, explore::GetLineIndex(view, ref, src));
  }
  if (index != nullptr) r.lines = index->total_lines();
  if (count) {
    CTXKIT_ASSIGN_OR_RETURN(std::optional<text::JsonContainer> kind,
                            text::SniffJsonContainer(src));
    if (explore::ItemsAreLines(ref, kind)) {
      r.items = r.lines;  // A chat stored one message per line.
    } else if (kind.has_value()) {
      Result<uint64_t> items = text::CountJsonItems(src);
      // Content that only looks like JSON has no item count; not an error.
      if (items.ok()) r.items = *items;
    }
  }
  r.bytes_read = src.bytes_read();
  return r;
}

}  // namespace

Result<LenResult> Len(View& view, std::string_view key,
                      const LenOptions& options) {
  CTXKIT_ASSIGN_OR_RETURN(Ref ref, view.Pin(key, options.lookup));
  return LenPinned(view, ref, options);
}

Result<LenResult> Len(View& view, const Ref& ref, const LenOptions& options) {
  CTXKIT_ASSIGN_OR_RETURN(Ref pinned, view.Pin(ref));
  return LenPinned(view, pinned, options);
}

}  // namespace ctxkit
