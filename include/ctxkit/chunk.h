// chunk: a stored value split into token-bounded chunks on natural
// boundaries, each returned as a ref to a byte range — never a copy.
//
//   ctxkit::Result<ctxkit::ChunkList> chunks =
//       ctxkit::Chunk(view, "logs/build", /*max_tokens=*/512);
//   for (const ctxkit::ChunkRange& c : chunks->chunks) {
//     // Read one chunk when (and only when) it is needed:
//     auto text = view.ReadRange(chunks->ref, c.byte_begin,
//                                c.byte_end - c.byte_begin);
//   }
//
// Boundaries. The same splitter as FindRelevant's index (so a hit of
// find_relevant with the same chunk size is one of these chunks):
//   - text: whole lines are packed while they fit; a blank line (paragraph
//     end) is the preferred cut whenever cutting there keeps the chunk at
//     least half full;
//   - JSON (the value's first non-whitespace byte is '[' or '{', whatever
//     its type): the preferred cuts are between top-level items (array
//     elements, object members, NDJSON records), then line ends — so a
//     compact one-line array is still split between its elements;
//   - a line or item over the budget on its own is cut inside, at token
//     boundaries (moved forward to a UTF-8 character boundary); only a
//     single character whose tokens exceed the budget is split inside.
// Chunks tile the value: in order, no gaps, no overlaps.
//
// Sizes. ChunkRange::tokens is the exact o200k_base count of the chunk's
// bytes (Tokenizer::Count), and it is never more than max_tokens. A blank
// or whitespace-heavy chunk can hold many bytes per token.
//
// Types. Streams are chunked by content like text (the version pinned:
// everything appended up to it); append boundaries are not used (see
// Peek with PeekUnit::kChunks for those). Ill-formed UTF-8 and binary
// content are chunked too: bytes are counted as the tokenizer counts them
// (each maximal ill-formed subpart is one U+FFFD, as tiktoken sees the
// bytes decoded), cuts avoid splitting a well-formed character, and such
// chunks have ChunkRange::valid_utf8 == false. An empty value has no
// chunks.
//
// Versions. A key is pinned to one version (its latest, or
// ChunkOptions::lookup.version) before anything is read, and
// ChunkList::ref is a static ref to it: the ranges stay valid after the
// variable changes. A ref is a capability: a static ref is chunked at its
// version; a dynamic one is pinned to the latest version when the view can
// see its key in its scope, and otherwise read as it stands (the returned
// ref is then that dynamic ref).
//
// Cost. The value is read once, by range, in 1 MiB blocks, and tokenized
// about once (each piece; runs of pieces whose counts do not simply add up,
// such as a line and the blank line after it, are counted again whole).
// Memory is a block plus one chunk plus the result (about 64 bytes per
// chunk; ForEachChunk keeps none). Nothing is cached or written.
//
// Errors. No exceptions. InvalidArgument for max_tokens outside
// 1-kMaxChunkTokens, a malformed key or ref; NotFound / PermissionDenied
// as View::Stat and View::ReadRange; Unavailable for a session-only value
// held by another process. A failure of the callback stops ForEachChunk
// and is returned as is.
//
// Thread safety: both functions are thread-safe (as View is).

#ifndef CTXKIT_CHUNK_H_
#define CTXKIT_CHUNK_H_

#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

#include "ctxkit/ref.h"
#include "ctxkit/status.h"
#include "ctxkit/store.h"

namespace ctxkit {

// The largest budget Chunk accepts (a chunk is built in memory).
inline constexpr uint32_t kMaxChunkTokens = 1u << 20;

struct ChunkOptions {
  // For a key: the scope to look in and a version (0: the latest). Ignored
  // for refs.
  LookupOptions lookup;
};

// One chunk: bytes [byte_begin, byte_end) of the version ChunkList::ref
// names.
struct ChunkRange {
  uint64_t index = 0;  // 0-based position among the value's chunks.
  uint64_t byte_begin = 0;
  uint64_t byte_end = 0;
  // Lines, 0-based and half-open like PeekOptions: the line holding the
  // first byte, and one past the line holding the last byte. A chunk cut
  // inside a long line shares that line with its neighbours.
  uint64_t line_begin = 0;
  uint64_t line_end = 0;
  uint32_t tokens = 0;     // Exact o200k_base count, <= max_tokens.
  bool valid_utf8 = true;  // False: the bytes are not well-formed UTF-8.
};

struct ChunkList {
  // A static ref to the version chunked (see Versions above).
  Ref ref;
  uint64_t total_bytes = 0;   // Bytes chunked (the version's size).
  uint64_t total_tokens = 0;  // Sum of the chunks' tokens.
  std::vector<ChunkRange> chunks;
};

// Splits the value named by `key_or_ref` — a ref's wire form ("ck:...")
// or a key looked up per options.lookup — into chunks of at most
// `max_tokens` tokens.
Result<ChunkList> Chunk(View& view, std::string_view key_or_ref,
                        uint32_t max_tokens, const ChunkOptions& options = {});

// Called with the pinned ref and each chunk, in order.
using ChunkVisitor =
    std::function<Status(const Ref& ref, const ChunkRange& chunk)>;

// Chunk without collecting the result: memory stays bounded whatever the
// number of chunks. Stops at the visitor's first error and returns it.
Status ForEachChunk(View& view, std::string_view key_or_ref,
                    uint32_t max_tokens, const ChunkVisitor& visit,
                    const ChunkOptions& options = {});

}  // namespace ctxkit

#endif  // CTXKIT_CHUNK_H_
