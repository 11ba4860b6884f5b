// Byte pair encoding of one pre-tokenized piece.
//
// The result is exactly tiktoken's: start from single bytes, then
// repeatedly merge the adjacent pair whose concatenation has the lowest
// rank (the leftmost such pair on ties) until no adjacent pair is a token.
// tiktoken finds each minimum with a linear scan, which is quadratic in the
// piece length; that is the fastest way for the short pieces of ordinary
// text, so we do the same below a threshold. Longer pieces use a heap
// keyed by (rank, position) over a doubly linked list of parts,
// O(n log n). From kChunkedMergeMin bytes on (a megabyte of letters
// without a space is one piece), or for a run of one byte value longer
// than kLinearScanMergeLimit, the piece is merged in chunks of
// kMergeChunk bytes that stay in the caches, joined where they meet with a
// check that makes the result exact (docs/tokenizer.md, "Long pieces").
// For a piece whose joins would not stay local, the heap remains, or from
// kBucketMergeMin bytes one bucket of positions per rank (the same merges
// in the same order, each step O(1) but for the order within a rank).

#ifndef CTXKIT_TEXT_BYTE_PAIR_MERGE_H_
#define CTXKIT_TEXT_BYTE_PAIR_MERGE_H_

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "text/rank_table.h"

namespace ctxkit::text {

// Which merge a piece takes: by its length (kAuto), or, for tests and
// benchmarks that compare them, the heap, the buckets or the chunks
// whatever its length.
enum class LongMergeKind { kAuto, kHeap, kBuckets, kChunks };

// Appends the tokens of `piece` to `*out`.
// REQUIRES: !piece.empty().
void BytePairEncode(const RankTable& ranks, std::string_view piece,
                    std::vector<uint32_t>* out,
                    LongMergeKind kind = LongMergeKind::kAuto);

// Returns the number of tokens BytePairEncode would append.
// REQUIRES: !piece.empty().
size_t BytePairCount(const RankTable& ranks, std::string_view piece);

// Pieces up to this many bytes use the linear-scan merge (exposed so tests
// can cover both paths on either side of it).
inline constexpr size_t kLinearScanMergeLimit = 128;
// Pieces of at least this many bytes use the buckets (their setup, a table
// indexed by rank, costs more than the heap saves on shorter pieces).
inline constexpr size_t kBucketMergeMin = 64 * 1024;
// Pieces of at least this many bytes, and longer runs of one byte value,
// are merged in chunks of kMergeChunk bytes, joined where they meet (exact:
// see ChunkedMerge); the heap and the buckets remain for inputs that defeat
// the chunks.
inline constexpr size_t kChunkedMergeMin = 8 * 1024;
inline constexpr size_t kMergeChunk = 64;

}  // namespace ctxkit::text

#endif  // CTXKIT_TEXT_BYTE_PAIR_MERGE_H_
