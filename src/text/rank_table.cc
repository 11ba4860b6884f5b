#include "text/rank_table.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdint>

namespace ctxkit::text {
namespace {

constexpr std::string_view kMagic = "CTXBPE01";
constexpr std::string_view kImageMagic = "CTXBPI02";
constexpr size_t kNameSize = 16;
constexpr size_t kHeaderSize = 8 + kNameSize + 4 * 4;
constexpr size_t kPairRanks = 256 * 256;

// An image's arrays are used in place.
static_assert(std::endian::native == std::endian::little,
              "rank images are little-endian");

// Reads rank-file integers; bounds are checked by the caller.
uint32_t LoadU32(const unsigned char* p) {
  return uint32_t{p[0]} | (uint32_t{p[1]} << 8) | (uint32_t{p[2]} << 16) |
         (uint32_t{p[3]} << 24);
}

void AppendU32(std::string* out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>(v >> (8 * i)));
}

// The counts in a rank file's or image's header.
struct Header {
  uint64_t n_ranks = 0;
  uint64_t n_special = 0;
  uint64_t token_bytes = 0;
  uint64_t last = 0;  // Rank file: reserved. Image: the slot capacity.
};

// Reads the header at the start of `data`: its magic must be `magic` and
// its encoding name `expected_name`; otherwise the problem, for a message.
Result<Header> ReadHeader(std::span<const unsigned char> data,
                          std::string_view magic,
                          std::string_view expected_name) {
  if (data.size() < kHeaderSize ||
      std::string_view(reinterpret_cast<const char*>(data.data()), 8) !=
          magic) {
    return Status::Corruption("bad header");
  }
  std::string_view name(reinterpret_cast<const char*>(data.data()) + 8,
                        kNameSize);
  name = name.substr(0, std::min(name.find('\0'), name.size()));
  if (name != expected_name) {
    return Status::Corruption("holds " + std::string(name));
  }
  return Header{LoadU32(data.data() + 24), LoadU32(data.data() + 28),
                LoadU32(data.data() + 32), LoadU32(data.data() + 36)};
}

// Special tokens from `at`: (u32 id, u32 len, bytes) each.
Status ReadSpecials(std::span<const unsigned char> data, uint64_t at,
                    uint64_t n_special, uint64_t n_ranks,
                    std::vector<std::pair<uint32_t, std::string>>* out) {
  for (uint64_t k = 0; k < n_special; ++k) {
    if (at + 8 > data.size()) return Status::Corruption("truncated specials");
    const uint32_t id = LoadU32(data.data() + at);
    const uint64_t len = LoadU32(data.data() + at + 4);
    at += 8;
    if (at + len > data.size() || id < n_ranks) {
      return Status::Corruption("bad special token");
    }
    out->emplace_back(
        id, std::string(reinterpret_cast<const char*>(data.data()) + at, len));
    at += len;
  }
  return Status::Ok();
}

std::atomic<uint64_t> next_table_id{1};

}  // namespace

RankTable::RankTable()
    : id_(next_table_id.fetch_add(1, std::memory_order_relaxed)) {}

Result<std::unique_ptr<RankTable>> RankTable::Parse(
    std::span<const unsigned char> data, std::string_view expected_name) {
  auto corrupt = [&](std::string_view why) {
    return Status::Corruption("tokenizer rank data for " +
                              std::string(expected_name) + ": " +
                              std::string(why));
  };
  Result<Header> header = ReadHeader(data, kMagic, expected_name);
  if (!header.ok()) return corrupt(header.status().message());
  const uint64_t n_ranks = header->n_ranks;
  const uint64_t n_special = header->n_special;
  const uint64_t token_bytes = header->token_bytes;
  const uint64_t offsets_at = kHeaderSize;
  const uint64_t blob_at = offsets_at + 4 * (n_ranks + 1);
  if (n_ranks < 256 || blob_at + token_bytes > data.size()) {
    return corrupt("truncated");
  }

  std::unique_ptr<RankTable> table(new RankTable());
  std::vector<uint32_t>& offsets = table->owned_offsets_;
  offsets.resize(n_ranks + 1);
  for (uint64_t r = 0; r <= n_ranks; ++r) {
    offsets[r] = LoadU32(data.data() + offsets_at + 4 * r);
    if ((r > 0 && offsets[r] <= offsets[r - 1]) || offsets[r] > token_bytes) {
      return corrupt("offsets out of order");
    }
  }
  if (offsets[0] != 0 || offsets[n_ranks] != token_bytes) {
    return corrupt("offsets do not cover the token bytes");
  }
  table->offsets_ = offsets;
  table->owned_blob_.assign(
      reinterpret_cast<const char*>(data.data()) + blob_at, token_bytes);
  table->blob_ = table->owned_blob_;

  // Load factor at most 1/2 keeps probe sequences short.
  uint64_t capacity = 1;
  while (capacity < 2 * n_ranks) capacity <<= 1;
  std::vector<Slot>& slots = table->owned_slots_;
  slots.assign(capacity, Slot{kNoRank, 0, {0, 0}});
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
    while (slots[slot].rank != kNoRank) {
      if (table->Bytes(slots[slot].rank) == bytes) {
        return corrupt("duplicate token");
      }
      slot = (slot + 1) & table->mask_;
    }
    slots[slot] = MakeSlot(r, bytes);
  }
  table->slots_ = slots;
  std::vector<uint32_t>& pairs = table->owned_pair_ranks_;
  pairs.assign(kPairRanks, kNoRank);
  for (uint32_t r = 0; r < n_ranks; ++r) {
    if (table->Bytes(r).size() == 2) pairs[PairIndex(table->Bytes(r))] = r;
  }
  table->pair_rank_ = pairs;
  const uint64_t filter_bits = FilterBits(n_ranks);
  std::vector<uint32_t>& filter = table->owned_filter_;
  filter.assign(filter_bits / 32, 0);
  table->filter_mask_ = filter_bits - 1;
  for (uint32_t r = 0; r < n_ranks; ++r) {
    const uint64_t bit = (Hash(table->Bytes(r)) >> 20) & table->filter_mask_;
    filter[bit / 32] |= uint32_t{1} << (bit % 32);
  }
  table->filter_ = filter;
  // BPE starts from single bytes, so every byte must be a token; otherwise
  // some input would have no encoding.
  for (uint32_t b = 0; b < 256; ++b) {
    if (table->byte_rank_[b] == kNoRank) return corrupt("a byte has no rank");
  }

  Status specials = ReadSpecials(data, blob_at + token_bytes, n_special,
                                 n_ranks, &table->specials_);
  if (!specials.ok()) return corrupt(specials.message());
  return table;
}

// Image layout (little-endian; every array 4-byte aligned when the image
// is): magic "CTXBPI02", name char[16], n_ranks, n_special, token_bytes,
// capacity (u32 each), byte_rank u32[256], pair_rank u32[65536], filter
// u32[FilterBits(n_ranks) / 32], offsets u32[n_ranks + 1],
// slots (u32 rank, u32 tag, u32 head[2])[capacity], token bytes, then the
// specials as in the rank file.
std::string RankTable::Image(std::string_view name) const {
  std::string out(kImageMagic);
  std::string padded(name.substr(0, kNameSize));
  padded.resize(kNameSize, '\0');
  out += padded;
  AppendU32(&out, size());
  AppendU32(&out, static_cast<uint32_t>(specials_.size()));
  AppendU32(&out, static_cast<uint32_t>(blob_.size()));
  AppendU32(&out, static_cast<uint32_t>(slots_.size()));
  for (uint32_t rank : byte_rank_) AppendU32(&out, rank);
  for (uint32_t rank : pair_rank_) AppendU32(&out, rank);
  for (uint32_t word : filter_) AppendU32(&out, word);
  for (uint32_t offset : offsets_) AppendU32(&out, offset);
  for (const Slot& slot : slots_) {
    AppendU32(&out, slot.rank);
    AppendU32(&out, slot.tag);
    AppendU32(&out, slot.head_words[0]);
    AppendU32(&out, slot.head_words[1]);
  }
  out += blob_;
  for (const auto& [id, text] : specials_) {
    AppendU32(&out, id);
    AppendU32(&out, static_cast<uint32_t>(text.size()));
    out += text;
  }
  return out;
}

Result<std::unique_ptr<RankTable>> RankTable::FromImage(
    std::span<const unsigned char> image, std::string_view expected_name,
    ImageCheck check) {
  auto corrupt = [&](std::string_view why) {
    return Status::Corruption("tokenizer rank image for " +
                              std::string(expected_name) + ": " +
                              std::string(why));
  };
  Result<Header> header = ReadHeader(image, kImageMagic, expected_name);
  if (!header.ok()) return corrupt(header.status().message());
  if (reinterpret_cast<uintptr_t>(image.data()) % alignof(uint32_t) != 0) {
    return corrupt("not 4-byte aligned");
  }
  const uint64_t n_ranks = header->n_ranks;
  const uint64_t n_special = header->n_special;
  const uint64_t token_bytes = header->token_bytes;
  const uint64_t capacity = header->last;
  const uint64_t byte_ranks_at = kHeaderSize;
  const uint64_t pair_ranks_at = byte_ranks_at + 4 * 256;
  const uint64_t filter_at = pair_ranks_at + 4 * kPairRanks;
  const uint64_t filter_bits = FilterBits(n_ranks);
  const uint64_t offsets_at = filter_at + filter_bits / 8;
  const uint64_t slots_at = offsets_at + 4 * (n_ranks + 1);
  const uint64_t blob_at = slots_at + sizeof(Slot) * capacity;
  // A power of two above n_ranks: Find always meets an empty slot.
  if (n_ranks < 256 || !std::has_single_bit(capacity) || capacity <= n_ranks) {
    return corrupt("bad counts");
  }
  if (blob_at + token_bytes > image.size()) return corrupt("truncated");

  std::unique_ptr<RankTable> table(new RankTable());
  const auto* words = reinterpret_cast<const uint32_t*>(image.data());
  table->offsets_ = {words + offsets_at / 4, n_ranks + 1};
  for (uint64_t r = 1; check == ImageCheck::kFull && r <= n_ranks; ++r) {
    if (table->offsets_[r] <= table->offsets_[r - 1]) {
      return corrupt("offsets out of order");
    }
  }
  if (table->offsets_[0] != 0 || table->offsets_[n_ranks] != token_bytes) {
    return corrupt("offsets do not cover the token bytes");
  }
  table->slots_ = {reinterpret_cast<const Slot*>(image.data() + slots_at),
                   capacity};
  table->mask_ = capacity - 1;
  table->blob_ = {reinterpret_cast<const char*>(image.data()) + blob_at,
                  token_bytes};
  // Every slot names a rank or none, one slot per rank: Find reads only
  // inside the arrays and ends.
  if (check == ImageCheck::kFull) {
    uint64_t used = 0;
    for (const Slot& slot : table->slots_) {
      if (slot.rank == kNoRank) continue;
      if (slot.rank >= n_ranks) return corrupt("a slot names no rank");
      const Slot made = MakeSlot(slot.rank, table->Bytes(slot.rank));
      if (slot.tag != made.tag || slot.head() != made.head()) {
        return corrupt("a slot disagrees with its token");
      }
      ++used;
    }
    if (used != n_ranks) return corrupt("slots do not hold every rank");
  }
  for (uint32_t b = 0; b < 256; ++b) {
    const uint32_t rank = words[byte_ranks_at / 4 + b];
    if (rank >= n_ranks ||
        table->Bytes(rank) != std::string(1, static_cast<char>(b))) {
      return corrupt("a byte has no rank");
    }
    table->byte_rank_[b] = rank;
  }
  table->pair_rank_ = {words + pair_ranks_at / 4, kPairRanks};
  table->filter_ = {words + filter_at / 4, filter_bits / 32};
  table->filter_mask_ = filter_bits - 1;
  // Every token passes the filter, or Find would miss it.
  for (uint64_t r = 0; check == ImageCheck::kFull && r < n_ranks; ++r) {
    if (!table->MayHold(Hash(table->Bytes(static_cast<uint32_t>(r))))) {
      return corrupt("the filter leaves a token out");
    }
  }
  for (size_t i = 0; check == ImageCheck::kFull && i < kPairRanks; ++i) {
    const uint32_t rank = table->pair_rank_[i];
    const char pair[2] = {static_cast<char>(i >> 8), static_cast<char>(i)};
    if (rank != kNoRank &&
        (rank >= n_ranks || table->Bytes(rank) != std::string_view(pair, 2))) {
      return corrupt("a pair names the wrong rank");
    }
  }
  // The table was hashed by the build's Hash: a sample of lookups shows it
  // is this one's.
  for (uint64_t r = 0; r < n_ranks; r += n_ranks / 251 + 1) {
    if (table->Find(table->Bytes(static_cast<uint32_t>(r))) != r) {
      return corrupt("lookups disagree with the table");
    }
  }
  Status specials = ReadSpecials(image, blob_at + token_bytes, n_special,
                                 n_ranks, &table->specials_);
  if (!specials.ok()) return corrupt(specials.message());
  return table;
}

}  // namespace ctxkit::text
