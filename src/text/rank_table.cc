#include "text/rank_table.h"

#include <algorithm>

namespace ctxkit::text {
namespace {

constexpr std::string_view kMagic = "CTXBPE01";
constexpr size_t kNameSize = 16;
constexpr size_t kHeaderSize = 8 + kNameSize + 4 * 4;

// Reads rank-file integers; bounds are checked by the caller.
uint32_t LoadU32(const unsigned char* p) {
  return uint32_t{p[0]} | (uint32_t{p[1]} << 8) | (uint32_t{p[2]} << 16) |
         (uint32_t{p[3]} << 24);
}

}  // namespace

Result<std::unique_ptr<RankTable>> RankTable::Parse(
    std::span<const unsigned char> data, std::string_view expected_name) {
  auto corrupt = [&](std::string_view why) {
    return Status::Corruption("tokenizer rank data for " +
                              std::string(expected_name) + ": " +
                              std::string(why));
  };
  if (data.size() < kHeaderSize ||
      std::string_view(reinterpret_cast<const char*>(data.data()), 8) !=
          kMagic) {
    return corrupt("bad header");
  }
  std::string_view name(reinterpret_cast<const char*>(data.data()) + 8,
                        kNameSize);
  name = name.substr(0, std::min(name.find('\0'), name.size()));
  if (name != expected_name) return corrupt("holds " + std::string(name));
  const uint64_t n_ranks = LoadU32(data.data() + 24);
  const uint64_t n_special = LoadU32(data.data() + 28);
  const uint64_t token_bytes = LoadU32(data.data() + 32);
  const uint64_t offsets_at = kHeaderSize;
  const uint64_t blob_at = offsets_at + 4 * (n_ranks + 1);
  if (n_ranks < 256 || blob_at + token_bytes > data.size()) {
    return corrupt("truncated");
  }

  std::unique_ptr<RankTable> table(new RankTable());
  table->offsets_.resize(n_ranks + 1);
  for (uint64_t r = 0; r <= n_ranks; ++r) {
    table->offsets_[r] = LoadU32(data.data() + offsets_at + 4 * r);
    if ((r > 0 && table->offsets_[r] <= table->offsets_[r - 1]) ||
        table->offsets_[r] > token_bytes) {
      return corrupt("offsets out of order");
    }
  }
  if (table->offsets_[0] != 0 || table->offsets_[n_ranks] != token_bytes) {
    return corrupt("offsets do not cover the token bytes");
  }
  table->blob_.assign(reinterpret_cast<const char*>(data.data()) + blob_at,
                      token_bytes);

  // Load factor at most 1/2 keeps probe sequences short.
  uint64_t capacity = 1;
  while (capacity < 2 * n_ranks) capacity <<= 1;
  table->slots_.assign(capacity, Slot{kNoRank, 0});
  table->mask_ = capacity - 1;
  std::fill(std::begin(table->byte_rank_), std::end(table->byte_rank_),
            kNoRank);
  for (uint32_t r = 0; r < n_ranks; ++r) {
    const std::string_view bytes = table->Bytes(r);
    if (bytes.size() == 1) {
      table->byte_rank_[static_cast<unsigned char>(bytes[0])] = r;
    }
    const uint64_t h = Hash(bytes);
    uint64_t slot = h & table->mask_;
    while (table->slots_[slot].rank != kNoRank) {
      if (table->Bytes(table->slots_[slot].rank) == bytes) {
        return corrupt("duplicate token");
      }
      slot = (slot + 1) & table->mask_;
    }
    table->slots_[slot] = Slot{r, static_cast<uint32_t>(h >> 32)};
  }
  // BPE starts from single bytes, so every byte must be a token; otherwise
  // some input would have no encoding.
  for (uint32_t b = 0; b < 256; ++b) {
    if (table->byte_rank_[b] == kNoRank) return corrupt("a byte has no rank");
  }

  uint64_t at = blob_at + token_bytes;
  for (uint64_t k = 0; k < n_special; ++k) {
    if (at + 8 > data.size()) return corrupt("truncated special tokens");
    const uint32_t id = LoadU32(data.data() + at);
    const uint64_t len = LoadU32(data.data() + at + 4);
    at += 8;
    if (at + len > data.size() || id < n_ranks) {
      return corrupt("bad special token");
    }
    table->specials_.emplace_back(
        id, std::string(reinterpret_cast<const char*>(data.data()) + at, len));
    at += len;
  }
  return table;
}

}  // namespace ctxkit::text
