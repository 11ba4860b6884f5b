#include "text/byte_pair_merge.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace ctxkit::text {
namespace {

// Pair ranks remembered by the ranks of the pair's two tokens (a pair's
// bytes are its tokens' bytes, so the two ranks decide the pair's rank).
// Text repeats its pairs, CJK text above all: a run of CJK characters is
// one piece, and each merge in it looks up two new pairs. A hit here is one
// load from a table that stays in L2, where RankTable::Find hashes the
// bytes and likely misses the cache twice in the vocabulary. Direct-mapped,
// one word per entry; one memo per thread, cleared when the thread merges
// with a different table.
class PairMemo {
 public:
  // This thread's memo, holding pairs of `ranks` only.
  static PairMemo& For(const RankTable& ranks) {
    thread_local std::unique_ptr<PairMemo> memo;
    if (memo == nullptr) memo.reset(new PairMemo());
    if (memo->table_id_ != ranks.id()) memo->Reset(ranks);
    return *memo;
  }

  // The rank of the pair of tokens `left` and `right`, whose bytes are
  // `bytes`, or kNoRank.
  uint32_t Rank(uint32_t left, uint32_t right, std::string_view bytes) {
    // Pairs of single bytes are read from the vocabulary's direct table,
    // which is smaller than the memo; they would crowd the memo out.
    if (!packs_ || bytes.size() == 2) return ranks_->Find(bytes);
    const uint64_t key = uint64_t{left} << kRankBits | right;
    uint64_t& entry =
        entries_[(key * 0x9E3779B97F4A7C15ull) >> (64 - kSlotBits)];
    if (entry >> kValueBits == key) {
      const uint32_t value = static_cast<uint32_t>(entry & kNoValue);
      return value == kNoValue ? kNoRank : value;
    }
    const uint32_t rank = ranks_->Find(bytes);
    entry = key << kValueBits | (rank == kNoRank ? kNoValue : rank);
    return rank;
  }

 private:
  // An entry is (left, right, rank) in 20 + 20 + 24 bits; an empty one is
  // all ones, which no key matches since no rank is 2^20 - 1.
  static constexpr int kRankBits = 20;
  static constexpr int kValueBits = 64 - 2 * kRankBits;
  static constexpr uint64_t kNoValue = (uint64_t{1} << kValueBits) - 1;
  static constexpr int kSlotBits = 16;  // 512 KiB.

  PairMemo() : entries_(new uint64_t[size_t{1} << kSlotBits]) {}

  void Reset(const RankTable& ranks) {
    ranks_ = &ranks;
    table_id_ = ranks.id();
    packs_ = ranks.size() < (uint32_t{1} << kRankBits) - 1;
    std::fill_n(entries_.get(), size_t{1} << kSlotBits, UINT64_MAX);
  }

  const RankTable* ranks_ = nullptr;
  uint64_t table_id_ = 0;  // No table has id 0.
  bool packs_ = false;     // Its ranks fit an entry; if not, no memo.
  std::unique_ptr<uint64_t[]> entries_;
};

// The smallest of ranks[0, n), reading whole groups of kMinLanes (the
// caller pads with kNoRank). SSE2 has no unsigned 32-bit minimum, so the
// ranks are compared as signed numbers with their top bit flipped.
inline constexpr size_t kMinLanes = 4;
inline uint32_t MinRank(const uint32_t* ranks, size_t n) {
#if defined(__SSE2__)
  const __m128i flip = _mm_set1_epi32(INT32_MIN);
  __m128i best = _mm_set1_epi32(INT32_MAX);  // kNoRank, flipped.
  for (size_t i = 0; i < n; i += kMinLanes) {
    const __m128i v = _mm_xor_si128(
        _mm_load_si128(reinterpret_cast<const __m128i*>(ranks + i)), flip);
    const __m128i less = _mm_cmplt_epi32(v, best);
    best = _mm_or_si128(_mm_and_si128(less, v), _mm_andnot_si128(less, best));
  }
  alignas(16) uint32_t lanes[kMinLanes];
  _mm_store_si128(reinterpret_cast<__m128i*>(lanes), _mm_xor_si128(best, flip));
  return std::min(std::min(lanes[0], lanes[1]), std::min(lanes[2], lanes[3]));
#else
  uint32_t best = kNoRank;
  for (size_t i = 0; i < n; ++i) best = std::min(best, ranks[i]);
  return best;
#endif
}

// Merges a short piece the way tiktoken does: parts as a compact array,
// each holding the rank of itself merged with its right neighbour.
template <typename Sink>
void MergeShort(const RankTable& ranks, std::string_view piece, Sink&& sink) {
  PairMemo& memo = PairMemo::For(ranks);
  const size_t n = piece.size();
  uint32_t start[kLinearScanMergeLimit + 1];
  // Rank of parts i and i+1; kNoRank from parts - 1 on, to a whole group
  // of kMinLanes, so that the minimum is taken a group at a time.
  alignas(16) uint32_t pair_rank[kLinearScanMergeLimit + kMinLanes];
  uint32_t token[kLinearScanMergeLimit];  // Rank of part i itself.
  for (size_t i = 0; i < n; ++i) {
    start[i] = static_cast<uint32_t>(i);
    token[i] = ranks.ByteRank(static_cast<unsigned char>(piece[i]));
  }
  start[n] = static_cast<uint32_t>(n);
  size_t parts = n;
  auto rank_of = [&](size_t i) {  // Parts i and i+1; REQUIRES i+1 < parts.
    return memo.Rank(token[i], token[i + 1],
                     piece.substr(start[i], start[i + 2] - start[i]));
  };
  for (size_t i = 0; i + 1 < parts; ++i) pair_rank[i] = rank_of(i);
  std::fill_n(pair_rank + std::max<size_t>(n, 1) - 1, kMinLanes, kNoRank);
  while (parts > 1) {
    // The minimum first, a group at a time, then its leftmost place: a
    // data-dependent branch per part mispredicts often on CJK pieces of
    // dozens of parts.
    const uint32_t best = MinRank(pair_rank, parts - 1);
    if (best == kNoRank) break;
    size_t at = 0;
    while (pair_rank[at] != best) ++at;
    token[at] = best;
    // Drop part at+1 by shifting the tail left by one.
    std::memmove(&start[at + 1], &start[at + 2],
                 (parts - at - 1) * sizeof(start[0]));
    std::memmove(&token[at + 1], &token[at + 2],
                 (parts - at - 2) * sizeof(token[0]));
    std::memmove(&pair_rank[at + 1], &pair_rank[at + 2],
                 (parts - at - 2) * sizeof(pair_rank[0]));
    --parts;
    pair_rank[parts - 1] = kNoRank;
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
      : memo_(PairMemo::For(ranks)),
        piece_(piece),
        n_(static_cast<uint32_t>(piece.size())),
        next_(new uint32_t[n_]),
        prev_(new uint32_t[n_]),
        token_(new uint32_t[n_]),
        heap_pos_(new uint32_t[n_]) {
    heap_.reserve(n_);
    for (uint32_t i = 0; i < n_; ++i) {
      next_[i] = i + 1;
      prev_[i] = i - 1;  // Unused for part 0.
      token_[i] = ranks.ByteRank(static_cast<unsigned char>(piece[i]));
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
      token_[i] = heap_[0].rank;
      if (k < n_) prev_[k] = i;
      Remove(j);
      Update(i, k < n_ ? PairRank(i) : kNoRank);
      if (i > 0) Update(prev_[i], PairRank(prev_[i]));
    }
    for (uint32_t i = 0; i < n_; i = next_[i]) sink(token_[i]);
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
  uint32_t PairRank(uint32_t i) {
    const uint32_t j = next_[i];
    return memo_.Rank(token_[i], token_[j], piece_.substr(i, next_[j] - i));
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

  PairMemo& memo_;
  const std::string_view piece_;
  const uint32_t n_;
  std::unique_ptr<uint32_t[]> next_;
  std::unique_ptr<uint32_t[]> prev_;
  std::unique_ptr<uint32_t[]> token_;  // The part's own rank.
  std::unique_ptr<uint32_t[]> heap_pos_;
  std::vector<Entry> heap_;
};

// The pending merges of a long piece, smallest (rank, part) first, for
// pieces too long for LongMerge's heap to stay in the caches. One bucket of
// parts per rank, found through a bitmap of the non-empty buckets in three
// levels, so finding the smallest rank takes three word scans. Within a
// rank the merges sweep left to right, so parts mostly arrive in order:
// each bucket keeps those in a sorted run read from the front, and only
// the others in a small heap. Entries are never removed early: the caller
// skips those whose pair has changed since (lazy deletion).
class RankQueue {
 public:
  explicit RankQueue(uint32_t ranks)
      : slot_of_(new uint32_t[ranks]()),
        level0_((ranks + 63) / 64),
        level1_((level0_.size() + 63) / 64),
        level2_((level1_.size() + 63) / 64) {}

  void Push(uint32_t rank, uint32_t part) {
    uint32_t& slot = slot_of_[rank];
    if (slot == 0) {
      buckets_.emplace_back();
      slot = static_cast<uint32_t>(buckets_.size());
    }
    Bucket& b = buckets_[slot - 1];
    if (b.empty()) Mark(rank);
    if (b.cursor == b.run.size() || part >= b.run.back()) {
      b.run.push_back(part);
    } else {
      b.heap.push_back(part);
      std::push_heap(b.heap.begin(), b.heap.end(), std::greater<>());
    }
  }

  // The part `d` places after the last one popped in its rank's sorted
  // run (for prefetching), or UINT32_MAX.
  uint32_t Ahead(size_t d) const {
    if (last_ == 0) return UINT32_MAX;
    const Bucket& b = buckets_[last_ - 1];
    return b.cursor + d < b.run.size() ? b.run[b.cursor + d] : UINT32_MAX;
  }

  // The smallest entry; false when there is none.
  bool Pop(uint32_t* rank, uint32_t* part) {
    size_t w2 = 0;
    while (w2 < level2_.size() && level2_[w2] == 0) ++w2;
    if (w2 == level2_.size()) return false;
    const size_t w1 = w2 * 64 + std::countr_zero(level2_[w2]);
    const size_t w0 = w1 * 64 + std::countr_zero(level1_[w1]);
    const uint32_t r =
        static_cast<uint32_t>(w0 * 64 + std::countr_zero(level0_[w0]));
    last_ = slot_of_[r];
    Bucket& b = buckets_[last_ - 1];
    if (b.cursor < b.run.size() &&
        (b.heap.empty() || b.run[b.cursor] < b.heap.front())) {
      *part = b.run[b.cursor++];
    } else {
      std::pop_heap(b.heap.begin(), b.heap.end(), std::greater<>());
      *part = b.heap.back();
      b.heap.pop_back();
    }
    if (b.empty()) {
      b.run.clear();
      b.cursor = 0;
      Unmark(r);
    }
    *rank = r;
    return true;
  }

 private:
  struct Bucket {
    std::vector<uint32_t> run;  // Sorted; [cursor, end) pending.
    size_t cursor = 0;
    std::vector<uint32_t> heap;  // Min-heap of the others.
    bool empty() const { return cursor == run.size() && heap.empty(); }
  };

  void Mark(uint32_t rank) {
    level0_[rank / 64] |= uint64_t{1} << (rank % 64);
    level1_[rank / 4096] |= uint64_t{1} << (rank / 64 % 64);
    level2_[rank / 262144] |= uint64_t{1} << (rank / 4096 % 64);
  }

  void Unmark(uint32_t rank) {
    if ((level0_[rank / 64] &= ~(uint64_t{1} << (rank % 64))) != 0) return;
    if ((level1_[rank / 4096] &= ~(uint64_t{1} << (rank / 64 % 64))) != 0) {
      return;
    }
    level2_[rank / 262144] &= ~(uint64_t{1} << (rank / 4096 % 64));
  }

  // 1 + the index in buckets_ of each rank's bucket; 0: none yet. Only the
  // pages of the ranks a piece uses are ever touched.
  std::unique_ptr<uint32_t[]> slot_of_;
  std::vector<Bucket> buckets_;
  uint32_t last_ = 0;             // slot_of_ of the last Pop's rank; 0: none.
  std::vector<uint64_t> level0_;  // Bit r: bucket r is not empty.
  std::vector<uint64_t> level1_;  // Bit w: level0_[w] != 0.
  std::vector<uint64_t> level2_;  // Bit w: level1_[w] != 0.
};

// Merges a very long piece with a RankQueue: the merges LongMerge makes, in
// the same order, with O(1) queue operations. The state of a part (its
// links, its token, its pair's rank) is one 16-byte record, so a merge
// touches a few cache lines, and the records of the merges due next in a
// rank's sweep are prefetched.
class BucketMerge {
 public:
  BucketMerge(const RankTable& ranks, std::string_view piece)
      : memo_(PairMemo::For(ranks)),
        piece_(piece),
        n_(static_cast<uint32_t>(piece.size())),
        parts_(new Part[n_]),
        queue_(ranks.size()) {
    for (uint32_t i = 0; i < n_; ++i) {
      parts_[i] =
          Part{i + 1, i - 1,
               ranks.ByteRank(static_cast<unsigned char>(piece[i])), kNoRank};
    }
    for (uint32_t i = 0; i + 1 < n_; ++i) SetPair(i, PairRank(i));
  }

  template <typename Sink>
  void Run(Sink&& sink) {
    uint32_t rank = 0, i = 0;
    while (queue_.Pop(&rank, &i)) {
      const uint32_t ahead = queue_.Ahead(kPrefetchAhead);
      if (ahead < n_) {
        __builtin_prefetch(&parts_[ahead]);
        __builtin_prefetch(piece_.data() + ahead);
      }
      Part& pi = parts_[i];
      if (pi.pair != rank) continue;  // Its pair changed since.
      const uint32_t j = pi.next;     // The right part, merged into i.
      const uint32_t k = parts_[j].next;
      pi.next = k;
      pi.token = rank;
      if (k < n_) parts_[k].prev = i;
      parts_[j].pair = kNoRank;
      SetPair(i, k < n_ ? PairRank(i) : kNoRank);
      if (i > 0) SetPair(pi.prev, PairRank(pi.prev));
    }
    for (uint32_t i = 0; i < n_; i = parts_[i].next) sink(parts_[i].token);
  }

 private:
  static constexpr size_t kPrefetchAhead = 8;

  struct Part {
    uint32_t next;
    uint32_t prev;   // Unused for part 0.
    uint32_t token;  // The part's own rank.
    uint32_t pair;   // Its pair's rank with the next part; kNoRank: none,
                     // or the part was merged away.
  };
  // Rank of live part i merged with its right neighbour.
  // REQUIRES: parts_[i].next < n_.
  uint32_t PairRank(uint32_t i) {
    const uint32_t j = parts_[i].next;
    return memo_.Rank(parts_[i].token, parts_[j].token,
                      piece_.substr(i, parts_[j].next - i));
  }

  void SetPair(uint32_t part, uint32_t rank) {
    parts_[part].pair = rank;
    if (rank != kNoRank) queue_.Push(rank, part);
  }

  PairMemo& memo_;
  const std::string_view piece_;
  const uint32_t n_;
  std::unique_ptr<Part[]> parts_;
  RankQueue queue_;
};

// Merges `bytes` with no whole-piece rule: the linear scan for short
// runs, the heap otherwise. For pieces of chunks and windows, which stay
// well below kBucketMergeMin.
template <typename Sink>
void MergeLocal(const RankTable& ranks, std::string_view bytes, Sink&& sink) {
  if (bytes.size() <= kLinearScanMergeLimit) {
    MergeShort(ranks, bytes, sink);
  } else {
    LongMerge(ranks, bytes).Run(sink);
  }
}

// Merges a very long piece in chunks, each of which stays in the caches,
// and joins them where the chunks meet. Exact because BPE is local: a
// sequence of tokens is the merge of its bytes exactly when each token is
// the merge of its own bytes and each adjacent pair (a, b) is the merge of
// a's bytes followed by b's (no merge ever crosses the boundary between
// them; proof in docs/tokenizer.md, "Long pieces"). A chunk's tokens
// satisfy this among themselves, so only the pair where two chunks meet is
// in doubt: when it fails, a window of tokens around the meeting point is
// merged again and grown until the pairs at its two edges hold.
class ChunkedMerge {
 public:
  ChunkedMerge(const RankTable& ranks, std::string_view piece)
      : ranks_(ranks), piece_(piece) {}

  // False when a window outgrew kMaxWindow, or the windows together
  // outgrew the piece (an input built to defeat the chunks: the caller
  // then merges the piece whole, having spent at most about as much again);
  // nothing was passed to `sink` then.
  template <typename Sink>
  bool Run(Sink&& sink) {
    std::vector<uint32_t> next;
    for (size_t at = 0; at < piece_.size(); at += kMergeChunk) {
      next.clear();
      MergeLocal(ranks_, piece_.substr(at, kMergeChunk),
                 [&next](uint32_t t) { next.push_back(t); });
      if (!Join(at, next)) return false;
    }
    for (uint32_t t : out_) sink(t);
    return true;
  }

 private:
  static constexpr size_t kMaxWindow = 16 * 1024;

  // Appends `next`, the tokens of the chunk starting at byte `at`, to
  // out_, which holds the tokens of the bytes before it.
  bool Join(size_t at, const std::vector<uint32_t>& next) {
    if (out_.empty() || Adjacent(out_.back(), next.front())) {
      out_.insert(out_.end(), next.begin(), next.end());
      return true;
    }
    for (size_t m = 1;; m *= 2) {
      const size_t left = std::min(m, out_.size());
      const size_t right = std::min(m, next.size());
      size_t begin = at, end = at;
      for (size_t k = 0; k < left; ++k) {
        begin -= ranks_.Bytes(out_[out_.size() - 1 - k]).size();
      }
      for (size_t k = 0; k < right; ++k) end += ranks_.Bytes(next[k]).size();
      window_bytes_ += end - begin;
      if (end - begin > kMaxWindow || window_bytes_ > piece_.size()) {
        return false;
      }
      window_.clear();
      MergeLocal(ranks_, piece_.substr(begin, end - begin),
                 [this](uint32_t t) { window_.push_back(t); });
      const bool left_holds =
          left == out_.size() ||
          Adjacent(out_[out_.size() - left - 1], window_.front());
      const bool right_holds =
          right == next.size() || Adjacent(window_.back(), next[right]);
      if (left_holds && right_holds) {
        out_.resize(out_.size() - left);
        out_.insert(out_.end(), window_.begin(), window_.end());
        out_.insert(out_.end(), next.begin() + right, next.end());
        return true;
      }
    }
  }

  // Whether merging token a's bytes followed by token b's gives a, b;
  // remembered, since a piece that repeats itself meets the same pairs.
  bool Adjacent(uint32_t a, uint32_t b) {
    const uint64_t key = uint64_t{a} << 32 | b;
    Known& known = known_[(key * 0x9E3779B97F4A7C15ull) >> (64 - kKnownBits)];
    if (known.key != key) known = Known{key, Merges(a, b)};
    return known.adjacent;
  }

  bool Merges(uint32_t a, uint32_t b) {
    pair_.assign(ranks_.Bytes(a));
    pair_.append(ranks_.Bytes(b));
    size_t n = 0;
    bool same = true;
    MergeLocal(ranks_, pair_, [&](uint32_t t) {
      same = same && n < 2 && t == (n == 0 ? a : b);
      ++n;
    });
    return same && n == 2;
  }

  struct Known {
    uint64_t key = UINT64_MAX;  // No pair of ranks.
    bool adjacent = false;
  };
  static constexpr int kKnownBits = 10;

  const RankTable& ranks_;
  const std::string_view piece_;
  std::vector<Known> known_ = std::vector<Known>(size_t{1} << kKnownBits);
  std::vector<uint32_t> out_;
  std::vector<uint32_t> window_;
  size_t window_bytes_ = 0;  // Merged again in windows so far.
  std::string pair_;
};

// Whether every byte of `piece` is its first (a separator line, padding):
// the heap merges such a run slowly, every pair tying with every other.
bool IsRunOfOneByte(std::string_view piece) {
  return piece.find_first_not_of(piece.front()) == std::string_view::npos;
}

// A long piece by the way `kind` names; kAuto: the chunks from
// kChunkedMergeMin bytes on or for a run of one byte, the heap otherwise.
template <typename Sink>
void MergeLong(const RankTable& ranks, std::string_view piece,
               LongMergeKind kind, Sink&& sink) {
  if (kind == LongMergeKind::kChunks ||
      (kind == LongMergeKind::kAuto &&
       (piece.size() >= kChunkedMergeMin || IsRunOfOneByte(piece)))) {
    if (ChunkedMerge(ranks, piece).Run(sink)) return;
    kind = LongMergeKind::kAuto;
  }
  // Offsets are 32-bit to halve the memory of the heap and the buckets,
  // so a single piece over 2 GiB that the chunks could not take is merged
  // in 2 GiB slices (a documented limit).
  constexpr size_t kMaxLong = size_t{1} << 31;
  while (!piece.empty()) {
    const std::string_view slice = piece.substr(0, kMaxLong);
    piece.remove_prefix(slice.size());
    if (kind == LongMergeKind::kHeap ||
        (kind == LongMergeKind::kAuto && slice.size() < kBucketMergeMin)) {
      LongMerge(ranks, slice).Run(sink);
    } else {
      BucketMerge(ranks, slice).Run(sink);
    }
  }
}

template <typename Sink>
void Merge(const RankTable& ranks, std::string_view piece, LongMergeKind kind,
           Sink&& sink) {
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
  if (piece.size() <= kLinearScanMergeLimit && kind == LongMergeKind::kAuto) {
    MergeShort(ranks, piece, sink);
    return;
  }
  MergeLong(ranks, piece, kind, sink);
}

}  // namespace

void BytePairEncode(const RankTable& ranks, std::string_view piece,
                    std::vector<uint32_t>* out, LongMergeKind kind) {
  Merge(ranks, piece, kind, [out](uint32_t token) { out->push_back(token); });
}

size_t BytePairCount(const RankTable& ranks, std::string_view piece) {
  size_t count = 0;
  Merge(ranks, piece, LongMergeKind::kAuto, [&count](uint32_t) { ++count; });
  return count;
}

}  // namespace ctxkit::text
