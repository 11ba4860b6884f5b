// The explore layer's plumbing: reading a version pinned by View::Pin as
// a text::ByteSource through View::ReadRange, and the line-index cache.

#ifndef CTXKIT_EXPLORE_VIEW_SOURCE_H_
#define CTXKIT_EXPLORE_VIEW_SOURCE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ctxkit/ref.h"
#include "ctxkit/status.h"
#include "ctxkit/store.h"
#include "text/byte_source.h"
#include "text/json_items.h"
#include "text/line_index.h"

namespace ctxkit::explore {

// Reads one version through View::ReadRange; counts the bytes read.
class ViewByteSource : public text::ByteSource {
 public:
  ViewByteSource(View& view, Ref ref) : view_(view), ref_(std::move(ref)) {}

  uint64_t size() const override { return ref_.size_bytes; }
  Status Read(uint64_t offset, uint64_t length, std::string* out) override;

 private:
  View& view_;
  Ref ref_;
};

// The byte offsets where a stream's chunks end for the version `ref`
// names ({0, e1, e2, ..., size}), from View::Versions; empty when the view
// cannot list the history or it does not describe `ref`'s bytes.
std::vector<uint64_t> StreamChunkBounds(View& view, const Ref& ref);

// Whether the items of `ref` (PeekUnit::kItems) are its lines rather than
// JSON items: a chat stored one message per line (docs/sessions.md), which
// is any chat that is not a JSON array (`container`: SniffJsonContainer).
inline bool ItemsAreLines(const Ref& ref,
                          std::optional<text::JsonContainer> container) {
  return ref.type == ValueType::kChat &&
         container != text::JsonContainer::kArray;
}

// The process-wide cache of line indexes for pinned versions (see
// explore.h, Caching). Unpinned refs are never cached.
std::shared_ptr<const text::LineIndex> CachedLineIndex(View& view,
                                                       const Ref& ref);
void CacheLineIndex(View& view, const Ref& ref,
                    std::shared_ptr<const text::LineIndex> index);

// The line index of `ref`, from the cache or by one full scan (cached).
Result<std::shared_ptr<const text::LineIndex>> GetLineIndex(
    View& view, const Ref& ref, text::ByteSource& source);

}  // namespace ctxkit::explore

#endif  // CTXKIT_EXPLORE_VIEW_SOURCE_H_
