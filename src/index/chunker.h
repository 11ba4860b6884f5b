// Token-bounded chunking of one stored value, read by range. Both
// FindRelevant (the chunks it indexes) and Chunk (include/ctxkit/chunk.h)
// use it, so they split a value identically.
//
// The value is cut into pieces at natural boundaries, which are then
// packed greedily into chunks of at most `max_tokens` o200k tokens:
//
//   - Text: a piece is a line (through its '\n'). A blank line ends a
//     paragraph: a strong boundary.
//   - JSON (the first non-whitespace byte is '[' or '{'): a piece also ends
//     after each top-level item (a ',' at depth 1, the opening and closing
//     bracket of the top-level container, a newline at depth 0 as between
//     NDJSON records), with the spaces and one newline that follow it.
//     Those are the strong boundaries. The scan only tracks strings and
//     nesting depth: malformed JSON still chunks, just at fewer item
//     boundaries.
//
// When the next piece does not fit, the chunk being built is cut at its
// last strong boundary if that keeps at least half of the budget in the
// chunk, otherwise after its last piece. A piece over the budget on its own
// is cut inside at token boundaries (well-formed UTF-8) or at character
// boundaries (ill-formed UTF-8), never splitting a character unless a single
// character is itself over the budget.
//
// Every chunk's `tokens` is the exact Tokenizer::Count of its bytes, and is
// never more than `max_tokens`: pieces are packed by their own counts, then
// the chunk is counted whole and trailing pieces are moved to the next
// chunk if BPE merges across a boundary made it longer.
//
// Chunks tile the value: in order, without gaps or overlaps. The value is
// read in 1 MiB blocks; a piece longer than a block is cut at the block
// end, so memory stays bounded by a block plus the chunk being built.

#ifndef CTXKIT_INDEX_CHUNKER_H_
#define CTXKIT_INDEX_CHUNKER_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "ctxkit/status.h"

namespace ctxkit::index {

struct Chunk {
  uint64_t offset = 0;  // Byte offset in the value.
  std::string text;     // The bytes [offset, offset + text.size()).
  uint32_t tokens = 0;  // Exact o200k_base count of `text`.
  // Lines, 0-based: the line holding the first byte, and one past the line
  // holding the last byte (a line ends after its '\n').
  uint64_t line_begin = 0;
  uint64_t line_end = 0;
  bool valid_utf8 = true;  // Whether `text` is well-formed UTF-8.
};

// Reads up to `length` bytes at `offset` ("" past the end).
using RangeReader =
    std::function<Result<std::string>(uint64_t offset, uint64_t length)>;
using ChunkSink = std::function<Status(Chunk chunk)>;

// Splits the `size` bytes that `read` serves into chunks, in order, and
// passes each to `emit`. Stops at the first error of either callback.
// A value whose exact o200k_base count fits `max_tokens` is one chunk.
// `known_tokens`: that count when the caller has it (recorded at write
// time), so a small value is not tokenized again.
// REQUIRES: max_tokens >= 1.
Status ChunkValue(uint64_t size, const RangeReader& read, uint32_t max_tokens,
                  const ChunkSink& emit,
                  std::optional<uint64_t> known_tokens = std::nullopt);

}  // namespace ctxkit::index

#endif  // CTXKIT_INDEX_CHUNKER_H_
