// Finds the exact version a summary is about and reads what the
// summarizers need from it, by range.

#ifndef CTXKIT_SUMMARY_VALUE_SOURCE_H_
#define CTXKIT_SUMMARY_VALUE_SOURCE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ctxkit/ref.h"
#include "ctxkit/status.h"
#include "ctxkit/store.h"
#include "ctxkit/tokenizer.h"
#include "text/summarize_structural.h"

namespace ctxkit::summary {

// Counts value bytes read (SummarizerStats::bytes_read).
void AddBytesRead(uint64_t n);

// One pinned version of a value.
struct PinnedValue {
  Ref ref;  // Static: pinned to `version`.
  ValueType type = ValueType::kText;
  uint64_t size = 0;
  // Hex SHA-256 identity of the content. For a stream, a digest of the
  // per-append hashes up to this version (each append's hash covers only
  // its own bytes).
  std::string content_id;
  // Stream appends (offset/length per version), when known.
  std::vector<text::StreamChunk> chunks;
};

// Resolves the text form of a Target (a ref, or a key looked up in
// `scope`; see ctxkit/target.h) to one pinned version. The content identity
// comes from the version metadata; for a ref the view cannot list (a capability
// from another scope) it is computed by hashing the value while streaming it.
Result<PinnedValue> ResolveTarget(View& view, std::string_view key_or_ref,
                                  const ScopeName& scope);

// What the structural summarizer reads: the head (up to sample_bytes), a
// tail sample when the value is larger, whole-value counts streamed up to
// count_limit_bytes, and previews of stream chunks.
struct Material {
  Material() = default;
  Material(const Material&) = delete;  // `input` points into the strings.
  Material& operator=(const Material&) = delete;

  std::string head;
  std::string tail;
  text::StructuralInput input;  // Views into head/tail.
};
Status ReadMaterial(View& view, const PinnedValue& target,
                    uint64_t sample_bytes, uint64_t count_limit_bytes,
                    const Tokenizer& tok, Material* out);

// Streams the value through `sink` in chunks of at most `chunk` bytes,
// stopping at `size` or at the end of the value, whichever comes first.
template <typename Sink>
Status StreamValue(View& view, const Ref& ref, uint64_t size, Sink&& sink,
                   uint64_t chunk = 1u << 20) {
  for (uint64_t off = 0; off < size; off += chunk) {
    Result<std::string> part = view.ReadRange(ref, off, chunk);
    if (!part.ok()) return part.status();
    AddBytesRead(part->size());
    if (part->empty()) break;
    sink(std::string_view(*part));
    if (part->size() < chunk) break;
  }
  return Status::Ok();
}

}  // namespace ctxkit::summary

#endif  // CTXKIT_SUMMARY_VALUE_SOURCE_H_
