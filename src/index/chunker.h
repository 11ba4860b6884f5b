// Token-bounded chunking of one stored value, read by range.
//
// Lines are kept whole while they fit: a chunk is a run of consecutive
// lines whose token counts add up to at most `max_tokens`. A line longer
// than that is cut inside, at token boundaries (UTF-8 text) or at character
// boundaries every 3 * max_tokens bytes (ill-formed UTF-8). The value is
// read in 1 MiB blocks, so memory stays bounded by a block plus the chunk
// being built, whatever the value's size.

#ifndef CTXKIT_INDEX_CHUNKER_H_
#define CTXKIT_INDEX_CHUNKER_H_

#include <cstdint>
#include <functional>
#include <string>

#include "ctxkit/status.h"

namespace ctxkit::index {

struct Chunk {
  uint64_t offset = 0;  // Byte offset in the value.
  std::string text;     // The bytes [offset, offset + text.size()).
  // The sum of the token counts of the chunk's lines (or pieces): the count
  // BPE gives the whole chunk can differ by a few tokens where a merge
  // spans a line break.
  uint32_t tokens = 0;
};

// Reads up to `length` bytes at `offset` ("" past the end).
using RangeReader =
    std::function<Result<std::string>(uint64_t offset, uint64_t length)>;
using ChunkSink = std::function<Status(Chunk chunk)>;

// Splits the `size` bytes that `read` serves into chunks, in order, and
// passes each to `emit`. Stops at the first error of either callback.
// REQUIRES: max_tokens >= 1.
Status ChunkValue(uint64_t size, const RangeReader& read, uint32_t max_tokens,
                  const ChunkSink& emit);

}  // namespace ctxkit::index

#endif  // CTXKIT_INDEX_CHUNKER_H_
