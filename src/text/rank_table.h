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
  uint32_t Find(std::string_view bytes) const {
    if (bytes.size() == 1) {
      return byte_rank_[static_cast<unsigned char>(bytes[0])];
    }
    const uint64_t h = Hash(bytes);
    const uint32_t tag = static_cast<uint32_t>(h >> 32);
    for (size_t slot = h & mask_;; slot = (slot + 1) & mask_) {
      const Slot& s = slots_[slot];
      if (s.rank == kNoRank) return kNoRank;
      if (s.tag == tag) {
        const uint32_t begin = offsets_[s.rank];
        const uint32_t len = offsets_[s.rank + 1] - begin;
        if (len == bytes.size() &&
            std::memcmp(blob_.data() + begin, bytes.data(), len) == 0) {
          return s.rank;
        }
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
  struct Slot {
    uint32_t rank;  // kNoRank when empty.
    uint32_t tag;   // High half of the hash, to skip most memcmp calls.
  };

  RankTable();

  std::string_view blob_;              // All token bytes, rank after rank.
  std::span<const uint32_t> offsets_;  // Rank r is blob_[offsets_[r], [r+1]).
  std::span<const Slot> slots_;        // Open addressing, linear probing.
  uint64_t mask_ = 0;                  // slots_.size() - 1 (a power of two).
  uint32_t byte_rank_[256];
  const uint64_t id_;
  std::vector<std::pair<uint32_t, std::string>> specials_;
  // What the views above point into when Parse made the table (an image's
  // tables stay in the image).
  std::string owned_blob_;
  std::vector<uint32_t> owned_offsets_;
  std::vector<Slot> owned_slots_;
};

}  // namespace ctxkit::text

#endif  // CTXKIT_TEXT_RANK_TABLE_H_
