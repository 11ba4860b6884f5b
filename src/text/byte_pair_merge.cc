#include "text/byte_pair_merge.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>

namespace ctxkit::text {
namespace {

// Merges a short piece the way tiktoken does: parts as a compact array,
// each holding the rank of itself merged with its right neighbour.
template <typename Sink>
void MergeShort(const RankTable& ranks, std::string_view piece, Sink&& sink) {
  const size_t n = piece.size();
  uint32_t start[kLinearScanMergeLimit + 1];
  uint32_t pair_rank[kLinearScanMergeLimit];  // Rank of parts i and i+1.
  uint32_t token[kLinearScanMergeLimit];      // Rank of part i itself.
  for (size_t i = 0; i < n; ++i) {
    start[i] = static_cast<uint32_t>(i);
    token[i] = ranks.ByteRank(static_cast<unsigned char>(piece[i]));
  }
  start[n] = static_cast<uint32_t>(n);
  size_t parts = n;
  auto rank_of = [&](size_t i) {  // Parts i and i+1; REQUIRES i+1 < parts.
    return ranks.Find(piece.substr(start[i], start[i + 2] - start[i]));
  };
  for (size_t i = 0; i + 1 < parts; ++i) pair_rank[i] = rank_of(i);
  while (parts > 1) {
    uint32_t best = kNoRank;
    size_t at = 0;
    for (size_t i = 0; i + 1 < parts; ++i) {
      if (pair_rank[i] < best) {  // Strict: the leftmost minimum wins.
        best = pair_rank[i];
        at = i;
      }
    }
    if (best == kNoRank) break;
    token[at] = best;
    // Drop part at+1 by shifting the tail left by one.
    std::memmove(&start[at + 1], &start[at + 2],
                 (parts - at - 1) * sizeof(start[0]));
    std::memmove(&token[at + 1], &token[at + 2],
                 (parts - at - 2) * sizeof(token[0]));
    std::memmove(&pair_rank[at + 1], &pair_rank[at + 2],
                 (parts - at - 2) * sizeof(pair_rank[0]));
    --parts;
    if (at + 1 < parts) pair_rank[at] = rank_of(at);
    if (at > 0) pair_rank[at - 1] = rank_of(at - 1);
  }
  for (size_t i = 0; i < parts; ++i) sink(token[i]);
}

// Merges a long piece with a heap. Parts are identified by the offset of
// their first byte; next_/prev_ link the live parts. The heap holds one
// entry per live part that has a mergeable right neighbour, keyed by
// (rank of the pair, offset): the same order tiktoken's leftmost-minimum
// scan picks, so the merges happen in the same sequence.
class LongMerge {
 public:
  LongMerge(const RankTable& ranks, std::string_view piece)
      : ranks_(ranks),
        piece_(piece),
        n_(static_cast<uint32_t>(piece.size())),
        next_(new uint32_t[n_]),
        prev_(new uint32_t[n_]),
        heap_pos_(new uint32_t[n_]) {
    heap_.reserve(n_);
    for (uint32_t i = 0; i < n_; ++i) {
      next_[i] = i + 1;
      prev_[i] = i - 1;  // Unused for part 0.
      heap_pos_[i] = kNotInHeap;
    }
    for (uint32_t i = 0; i + 1 < n_; ++i) {
      const uint32_t r = PairRank(i);
      if (r != kNoRank) {
        heap_pos_[i] = static_cast<uint32_t>(heap_.size());
        heap_.push_back(Entry{r, i});
      }
    }
    // Floyd's heapify: O(n) instead of n pushes.
    for (size_t k = heap_.size() / kArity + 1; k-- > 0;) {
      if (k < heap_.size()) SiftDown(k);
    }
  }

  template <typename Sink>
  void Run(Sink&& sink) {
    while (!heap_.empty()) {
      const uint32_t i = heap_[0].part;
      const uint32_t j = next_[i];  // The right part, merged into i.
      const uint32_t k = next_[j];
      next_[i] = k;
      if (k < n_) prev_[k] = i;
      Remove(j);
      Update(i, k < n_ ? PairRank(i) : kNoRank);
      if (i > 0) Update(prev_[i], PairRank(prev_[i]));
    }
    for (uint32_t i = 0; i < n_; i = next_[i]) {
      sink(ranks_.Find(piece_.substr(i, next_[i] - i)));
    }
  }

 private:
  static constexpr uint32_t kNotInHeap = std::numeric_limits<uint32_t>::max();
  // A 4-ary heap: half the depth of a binary one, and the four children
  // share a cache line, which matters once the heap outgrows the caches.
  static constexpr size_t kArity = 4;

  struct Entry {
    uint32_t rank;
    uint32_t part;
    bool operator<(const Entry& o) const {
      return rank != o.rank ? rank < o.rank : part < o.part;
    }
  };

  // Rank of live part i merged with its right neighbour.
  // REQUIRES: next_[i] < n_.
  uint32_t PairRank(uint32_t i) const {
    return ranks_.Find(piece_.substr(i, next_[next_[i]] - i));
  }

  void Place(size_t k, Entry e) {
    heap_[k] = e;
    heap_pos_[e.part] = static_cast<uint32_t>(k);
  }

  void SiftUp(size_t k) {
    const Entry e = heap_[k];
    while (k > 0) {
      const size_t parent = (k - 1) / kArity;
      if (!(e < heap_[parent])) break;
      Place(k, heap_[parent]);
      k = parent;
    }
    Place(k, e);
  }

  void SiftDown(size_t k) {
    const Entry e = heap_[k];
    const size_t size = heap_.size();
    for (;;) {
      const size_t first = kArity * k + 1;
      if (first >= size) break;
      size_t child = first;
      const size_t last = std::min(first + kArity, size);
      for (size_t c = first + 1; c < last; ++c) {
        if (heap_[c] < heap_[child]) child = c;
      }
      if (!(heap_[child] < e)) break;
      Place(k, heap_[child]);
      k = child;
    }
    Place(k, e);
  }

  void Remove(uint32_t part) {
    const uint32_t k = heap_pos_[part];
    if (k == kNotInHeap) return;
    heap_pos_[part] = kNotInHeap;
    const Entry last = heap_.back();
    heap_.pop_back();
    if (k == heap_.size()) return;
    Place(k, last);
    SiftUp(k);
    SiftDown(heap_pos_[last.part]);
  }

  void Update(uint32_t part, uint32_t rank) {
    const uint32_t k = heap_pos_[part];
    if (rank == kNoRank) {
      Remove(part);
    } else if (k == kNotInHeap) {
      heap_.push_back(Entry{rank, part});
      SiftUp(heap_.size() - 1);
    } else {
      heap_[k].rank = rank;
      SiftUp(k);
      SiftDown(heap_pos_[part]);
    }
  }

  const RankTable& ranks_;
  const std::string_view piece_;
  const uint32_t n_;
  std::unique_ptr<uint32_t[]> next_;
  std::unique_ptr<uint32_t[]> prev_;
  std::unique_ptr<uint32_t[]> heap_pos_;
  std::vector<Entry> heap_;
};

template <typename Sink>
void Merge(const RankTable& ranks, std::string_view piece, Sink&& sink) {
  if (piece.size() == 1) {
    sink(ranks.ByteRank(static_cast<unsigned char>(piece[0])));
    return;
  }
  // A piece that is itself a token stays whole, even if merging its bytes
  // would have produced something else (tiktoken checks this first too).
  const uint32_t whole = ranks.Find(piece);
  if (whole != kNoRank) {
    sink(whole);
    return;
  }
  if (piece.size() <= kLinearScanMergeLimit) {
    MergeShort(ranks, piece, sink);
    return;
  }
  // Offsets are 32-bit to halve the memory of the long path, so a single
  // piece over 2 GiB is merged in 2 GiB slices (a documented limit: such a
  // piece is a 2 GiB run of letters or punctuation without a break).
  constexpr size_t kMaxLong = size_t{1} << 31;
  while (piece.size() > kMaxLong) {
    LongMerge(ranks, piece.substr(0, kMaxLong)).Run(sink);
    piece.remove_prefix(kMaxLong);
  }
  LongMerge(ranks, piece).Run(sink);
}

}  // namespace

void BytePairEncode(const RankTable& ranks, std::string_view piece,
                    std::vector<uint32_t>* out) {
  Merge(ranks, piece, [out](uint32_t token) { out->push_back(token); });
}

size_t BytePairCount(const RankTable& ranks, std::string_view piece) {
  size_t count = 0;
  Merge(ranks, piece, [&count](uint32_t) { ++count; });
  return count;
}

}  // namespace ctxkit::text
