// The vocabulary of one encoding: token bytes <-> rank.
//
// In tiktoken a token's id is its merge rank: lower ranks were learned
// earlier and merge first. RankTable answers the two questions BPE asks:
// "is this byte string a token, and of which rank?" and "which bytes does
// this rank stand for?".
//
// It comes from the compact rank file that scripts/tokenizer/build_ranks.mjs
// makes out of the npm package's encoder data (Parse builds the lookup
// table: tens of milliseconds), or from the image Image() writes, which
// holds that table ready to use (FromImage only points into it). The build
// turns each rank file into an image (scripts/tokenizer/rank_image.cc) and
// embeds the images, so a process pays nothing to load a vocabulary.
// Formats: docs/tokenizer.md.
//
// Thread safety: immutable once made; any number of threads may query.

#ifndef CTXKIT_TEXT_RANK_TABLE_H_
#define CTXKIT_TEXT_RANK_TABLE_H_

#include <bit>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ctxkit/status.h"

namespace ctxkit::text {

inline constexpr uint32_t kNoRank = UINT32_MAX;

class RankTable {
 public:
  // Parses a rank file. `expected_name` must match the encoding name stored
  // in it. Returns Corruption if the data is malformed.
  static Result<std::unique_ptr<RankTable>> Parse(
      std::span<const unsigned char> data, std::string_view expected_name);

  // How much of an image FromImage checks.
  enum class ImageCheck {
    // The header, the sizes, the byte tokens and a sample of lookups (a
    // table hashed differently fails them). Microseconds: for the images
    // embedded in the program, which the build checked in full.
    kQuick,
    // Also every offset and slot, so that no lookup can read outside the
    // image or fail to end: for an image from anywhere else.
    kFull,
  };

  // A table over an image from Image(). The table points into `image`,
  // which must outlive it (embedded data lives as long as the program).
  // Corruption when a check fails.
  static Result<std::unique_ptr<RankTable>> FromImage(
      std::span<const unsigned char> image, std::string_view expected_name,
      ImageCheck check);

  // This table as an image for FromImage, named `name`.
  std::string Image(std::string_view name) const;

  RankTable(const RankTable&) = delete;
  RankTable& operator=(const RankTable&) = delete;

  // The rank of the token whose bytes are exactly `bytes`, or kNoRank.
  // A token of up to 8 bytes is found in its slot alone (its bytes are
  // there): one cache miss, not three (slot, offsets, bytes).
  uint32_t Find(std::string_view bytes) const {
    const size_t n = bytes.size();
    if (n == 1) return byte_rank_[static_cast<unsigned char>(bytes[0])];
    if (n == 2) return pair_rank_[PairIndex(bytes)];
    const uint64_t h = Hash(bytes);
    if (!MayHold(h)) return kNoRank;
    const uint64_t head = Head(bytes);
    const uint32_t tag = TagOf(h, n);
    for (size_t slot = h & mask_;; slot = (slot + 1) & mask_) {
      const Slot& s = slots_[slot];
      if (s.rank == kNoRank) return kNoRank;
      if (s.tag == tag && s.head() == head && (n <= 8 || Rest(s.rank, bytes))) {
        return s.rank;
      }
    }
  }

  // The rank of the single byte `b` (every byte is a token).
  uint32_t ByteRank(unsigned char b) const { return byte_rank_[b]; }

  // A number no other table made in this process has, so that caches of
  // lookups (the merge's pair memo) can tell tables apart even when one
  // is made at the address of another that was freed.
  uint64_t id() const { return id_; }

  // Number of ordinary (mergeable) tokens; their ranks are 0..size()-1.
  uint32_t size() const { return static_cast<uint32_t>(offsets_.size() - 1); }

  // The bytes of ordinary token `rank`. REQUIRES: rank < size().
  std::string_view Bytes(uint32_t rank) const {
    const uint32_t begin = offsets_[rank];
    return std::string_view(blob_.data() + begin, offsets_[rank + 1] - begin);
  }

  // Special tokens (e.g. "<|endoftext|>") as (id, text); ordinary encoding
  // never produces them, but Decode accepts their ids.
  const std::vector<std::pair<uint32_t, std::string>>& specials() const {
    return specials_;
  }

  // A fast hash of short byte strings (tokens are rarely over 16 bytes).
  static uint64_t Hash(std::string_view bytes) {
    const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
    size_t n = bytes.size();
    uint64_t h = 0x9E3779B97F4A7C15ull * (n + 1);
    while (n >= 8) {
      uint64_t w;
      std::memcpy(&w, p, 8);
      h = (h ^ w) * 0xBF58476D1CE4E5B9ull;
      h ^= h >> 29;
      p += 8;
      n -= 8;
    }
    if (n > 0) {
      uint64_t w = 0;
      std::memcpy(&w, p, n);
      h = (h ^ w) * 0x94D049BB133111EBull;
    }
    // Final avalanche so the low bits used as the slot index depend on
    // every input byte.
    h ^= h >> 32;
    h *= 0xFF51AFD7ED558CCDull;
    h ^= h >> 33;
    return h;
  }

 private:
  // A token's entry in the hash table. Its first 8 bytes (zero-padded)
  // and its length (in the tag) decide most lookups without reading the
  // token's bytes elsewhere; longer tokens compare the rest in blob_.
  struct Slot {
    uint32_t rank;           // kNoRank when empty.
    uint32_t tag;            // TagOf(hash, length).
    uint32_t head_words[2];  // Head(bytes), as two words (4-byte aligned).
    uint64_t head() const {
      uint64_t w;
      std::memcpy(&w, head_words, 8);
      return w;
    }
  };

  // Whether token `rank` is `bytes`, whose first 8 bytes it shares.
  bool Rest(uint32_t rank, std::string_view bytes) const {
    const uint32_t begin = offsets_[rank];
    return offsets_[rank + 1] - begin == bytes.size() &&
           std::memcmp(blob_.data() + begin + 8, bytes.data() + 8,
                       bytes.size() - 8) == 0;
  }

  // Whether some token has the hash `h` (as far as the filter knows).
  bool MayHold(uint64_t h) const {
    const uint64_t bit = (h >> 20) & filter_mask_;
    return (filter_[bit / 32] >> (bit % 32) & 1) != 0;
  }

  // The filter's size in bits for `n_ranks` tokens: about one bit in ten
  // set, so nine lookups in ten of a string that is no token end in it.
  static uint64_t FilterBits(uint64_t n_ranks) {
    return std::bit_ceil(8 * n_ranks);
  }

  // Where the 2-byte string `bytes` is in pair_rank_.
  static size_t PairIndex(std::string_view bytes) {
    return size_t{static_cast<unsigned char>(bytes[0])} << 8 |
           static_cast<unsigned char>(bytes[1]);
  }

  // The first 8 bytes of `bytes`, zero-padded, as a little-endian word.
  static uint64_t Head(std::string_view bytes) {
    uint64_t w = 0;
    std::memcpy(&w, bytes.data(), bytes.size() < 8 ? bytes.size() : 8);
    return w;
  }

  // The slot's tag: 24 bits of the hash's high half and the length (255
  // for any length from 255 on), so that a matching tag and head are the
  // whole token when it has at most 8 bytes.
  static uint32_t TagOf(uint64_t hash, size_t length) {
    return (static_cast<uint32_t>(hash >> 32) & 0xFFFFFF00u) |
           static_cast<uint32_t>(length < 255 ? length : 255);
  }

  static Slot MakeSlot(uint32_t rank, std::string_view bytes) {
    const uint64_t head = Head(bytes);
    Slot slot{rank, TagOf(Hash(bytes), bytes.size()), {}};
    std::memcpy(slot.head_words, &head, 8);
    return slot;
  }

  RankTable();

  std::string_view blob_;              // All token bytes, rank after rank.
  std::span<const uint32_t> offsets_;  // Rank r is blob_[offsets_[r], [r+1]).
  std::span<const Slot> slots_;        // Open addressing, linear probing.
  uint64_t mask_ = 0;                  // slots_.size() - 1 (a power of two).
  uint32_t byte_rank_[256];
  // The rank of every 2-byte string, or kNoRank: the lookups BPE makes
  // most (every piece starts with a pair of single bytes at each place),
  // in 256 KiB instead of the hash table's megabytes.
  std::span<const uint32_t> pair_rank_;
  // One bit per hash value (bits 20 and up of Hash, masked): set for the
  // tokens' hashes. Most strings BPE looks up are no token (a long piece
  // is rarely one, most pairs are not); the filter answers them from L2
  // instead of a slot that misses the cache.
  std::span<const uint32_t> filter_;
  uint64_t filter_mask_ = 0;
  const uint64_t id_;
  std::vector<std::pair<uint32_t, std::string>> specials_;
  // What the views above point into when Parse made the table (an image's
  // tables stay in the image).
  std::string owned_blob_;
  std::vector<uint32_t> owned_offsets_;
  std::vector<Slot> owned_slots_;
  std::vector<uint32_t> owned_pair_ranks_;
  std::vector<uint32_t> owned_filter_;
};

}  // namespace ctxkit::text

#endif  // CTXKIT_TEXT_RANK_TABLE_H_
