#include "storage/blob_checksums.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <string>

#include "storage/xxh3_avx2.h"

namespace ctxkit::storage {
namespace {

// XXH3-64 of one chunk, with AVX2 when the CPU has it (twice as fast as
// the baseline build's SSE2 code; the same value).
uint64_t ChunkHash(std::string_view chunk) {
  static const bool avx2 = Xxh3Avx2Usable();
  return avx2 ? Xxh3Avx2(chunk.data(), chunk.size())
              : XXH3_64bits(chunk.data(), chunk.size());
}

void PutLittleEndian64(uint64_t v, std::string* out) {
  for (int i = 0; i < 8; ++i) out->push_back(static_cast<char>(v >> (8 * i)));
}

uint64_t GetLittleEndian64(std::string_view bytes) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) {
    v = (v << 8) | static_cast<unsigned char>(bytes[static_cast<size_t>(i)]);
  }
  return v;
}

}  // namespace

std::string BlobChecksums(std::string_view content) {
  std::string sums;
  sums.reserve((content.size() / kBlobChunkBytes + 1) * kBlobChecksumBytes);
  for (uint64_t pos = 0; pos < content.size(); pos += kBlobChunkBytes) {
    std::string_view chunk = content.substr(pos, kBlobChunkBytes);
    PutLittleEndian64(ChunkHash(chunk), &sums);
  }
  return sums;
}

Status BlobCorruption(const std::string& path, const std::string& what) {
  return Status::Corruption(
      "blob file " + path + " is damaged: " + what +
      "; the value cannot be read (restore the store from a backup, or "
      "remove the key)");
}

Status VerifyBlobChunks(std::string_view sums, uint64_t first_chunk,
                        std::string_view data, const std::string& path) {
  uint64_t chunk = first_chunk;
  for (uint64_t pos = 0; pos < data.size(); pos += kBlobChunkBytes, ++chunk) {
    const uint64_t at = chunk * kBlobChecksumBytes;
    if (at + kBlobChecksumBytes > sums.size()) {
      return BlobCorruption(path, "it is longer than its checksums say");
    }
    std::string_view piece = data.substr(pos, kBlobChunkBytes);
    if (ChunkHash(piece) !=
        GetLittleEndian64(sums.substr(at, kBlobChecksumBytes))) {
      return BlobCorruption(path, "the 64 KiB chunk at byte " +
                                      std::to_string(chunk * kBlobChunkBytes) +
                                      " does not match its checksum");
    }
  }
  return Status::Ok();
}

std::shared_ptr<const std::string> BlobSumsCache::Lookup(
    std::string_view hash) const {
  core::MutexLock lock(&mu_);
  auto it = sums_.find(std::string(hash));
  return it == sums_.end() ? nullptr : it->second;
}

void BlobSumsCache::Insert(std::string_view hash, std::string_view sums) {
  const uint64_t cost = hash.size() + sums.size();
  if (sums.empty() || cost > kBudgetBytes) return;
  auto value = std::make_shared<const std::string>(sums);
  core::MutexLock lock(&mu_);
  if (bytes_ + cost > kBudgetBytes) {
    sums_.clear();
    bytes_ = 0;
  }
  if (sums_.try_emplace(std::string(hash), std::move(value)).second) {
    bytes_ += cost;
  }
}

}  // namespace ctxkit::storage
