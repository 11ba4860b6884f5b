// Per-chunk checksums of blob files, so reads detect damage.
//
// A blob file is named by the SHA-256 of its content, but hashing a whole
// file to check a 100-byte peek would make range reads cost the value's
// size. So each blob also has a checksum per 64 KiB chunk (XXH3-64,
// ~20 GB/s), kept in its `blobs` row (docs/storage-format.md): a read
// verifies exactly the chunks it touches, a whole read every chunk. Blobs
// written before checksums existed have none; reads of those check the
// file's size always and the SHA-256 on whole reads.

#ifndef CTXKIT_STORAGE_BLOB_CHECKSUMS_H_
#define CTXKIT_STORAGE_BLOB_CHECKSUMS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include "core/mutex.h"
#include "core/thread_annotations.h"
#include "ctxkit/status.h"

namespace ctxkit::storage {

inline constexpr uint64_t kBlobChunkBytes = 64 << 10;
inline constexpr size_t kBlobChecksumBytes = 8;

// The checksums of `content`: 8 bytes (little-endian XXH3-64) per chunk.
std::string BlobChecksums(std::string_view content);

// Checks `data`, which holds whole chunks of a blob starting at chunk
// `first_chunk` (the last one may be the blob's short final chunk), against
// `sums` (BlobChecksums of the whole blob). Corruption naming `path` and
// the byte offset of the first bad chunk.
Status VerifyBlobChunks(std::string_view sums, uint64_t first_chunk,
                        std::string_view data, const std::string& path);

// The Corruption a damaged blob is reported with.
Status BlobCorruption(const std::string& path, const std::string& what);

// The checksums of blobs read lately, by blob hash: a blob's content never
// changes, so neither do they, and a range read of a known blob needs no
// database query for them. Bounded by bytes (emptied when full).
// Thread-safe.
class BlobSumsCache {
 public:
  static constexpr uint64_t kBudgetBytes = 4ull << 20;

  // Null when `hash` is not cached.
  std::shared_ptr<const std::string> Lookup(std::string_view hash) const
      EXCLUDES(mu_);
  // Empty `sums` (a blob of an earlier build, which gains checksums when
  // written again) are not kept: the next read asks again.
  void Insert(std::string_view hash, std::string_view sums) EXCLUDES(mu_);

 private:
  mutable core::Mutex mu_;
  std::unordered_map<std::string, std::shared_ptr<const std::string>> sums_
      GUARDED_BY(mu_);
  uint64_t bytes_ GUARDED_BY(mu_) = 0;
};

}  // namespace ctxkit::storage

#endif  // CTXKIT_STORAGE_BLOB_CHECKSUMS_H_
