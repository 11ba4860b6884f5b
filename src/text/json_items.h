// The top-level items of a JSON array or object, found by streaming.
//
// A structural scan (strings, escapes and nesting depth only; no values are
// parsed) walks the source block by block and stops as soon as the wanted
// items are complete, so the first items of a huge array cost a few KiB of
// reads. The scan does not validate JSON: callers that need valid output
// check the slice they got (src/explore/ does). Items are returned verbatim
// with surrounding whitespace trimmed: an array element, or an object member
// `"key": value` in document order.
//
// Thread safety: nothing shared.

#ifndef CTXKIT_TEXT_JSON_ITEMS_H_
#define CTXKIT_TEXT_JSON_ITEMS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ctxkit/status.h"
#include "text/byte_source.h"

namespace ctxkit::text {

enum class JsonContainer : uint8_t { kArray, kObject };

struct JsonItemSpan {
  JsonContainer kind = JsonContainer::kArray;
  uint64_t first = 0;  // The requested first index, or the item count when
                       // the container has fewer items.
  // Items [first, first + items.size()), each verbatim.
  std::vector<std::string> items;
  // Bytes of the source covered: from the first item's first byte to the
  // last returned item's last byte (or the partial item's end).
  uint64_t begin_byte = 0;
  uint64_t end_byte = 0;
  // True when the items would have exceeded max_span_bytes: `partial` holds
  // the first max_span_bytes-minus-used bytes of item first + items.size().
  bool cut = false;
  std::string partial;
  // The number of items, known when the scan reached the container's end.
  std::optional<uint64_t> total;
};

// Finds items [first, last) of the top-level array or object of `source`.
// FailedPrecondition when the first non-whitespace byte is not '[' or '{';
// InvalidArgument (the value is not valid JSON) when the container does not
// end before the source does.
Result<JsonItemSpan> LocateJsonItems(ByteSource& source, uint64_t first,
                                     uint64_t last,
                                     uint64_t max_span_bytes = UINT64_MAX,
                                     uint64_t block_bytes = kDefaultBlockBytes);

// Counts the top-level items by scanning the whole source (bounded memory).
Result<uint64_t> CountJsonItems(ByteSource& source,
                                uint64_t block_bytes = kDefaultBlockBytes);

// What the first non-whitespace byte says: an array, an object, or neither
// (nullopt). Reads at most a few KiB unless the source starts with a long
// run of whitespace.
Result<std::optional<JsonContainer>> SniffJsonContainer(ByteSource& source);

}  // namespace ctxkit::text

#endif  // CTXKIT_TEXT_JSON_ITEMS_H_
