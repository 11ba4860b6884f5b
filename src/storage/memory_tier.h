// The memory tier: one byte budget shared by cached copies of durable
// values and by resident session-only values.
//
// When an insertion would exceed the ceiling, the least recently used
// cached durable values are dropped first (they can be read again from
// disk); then the least recently used resident session-only values are
// moved to the spill file (they exist nowhere else). Values too large for
// the budget are never cached (durable) or go straight to the spill file
// (session-only).
//
// Thread-safe: the store's cache and the memory backend share one tier.

#ifndef CTXKIT_STORAGE_MEMORY_TIER_H_
#define CTXKIT_STORAGE_MEMORY_TIER_H_

#include <cstdint>
#include <list>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include "core/mutex.h"
#include "ctxkit/status.h"
#include "storage/spill_file.h"

namespace ctxkit::storage {

// Identifies one immutable durable version.
struct CacheKey {
  int64_t object_id;
  uint64_t version;
  friend bool operator==(const CacheKey&, const CacheKey&) = default;
};

struct CacheKeyHash {
  size_t operator()(const CacheKey& k) const {
    return std::hash<int64_t>()(k.object_id) * 1000003u ^
           std::hash<uint64_t>()(k.version);
  }
};

// A session-only payload's handle.
using PayloadId = uint64_t;

struct MemoryTierStats {
  uint64_t used_bytes = 0;
  uint64_t cached_values = 0;
  uint64_t resident_bytes = 0;
  uint64_t spilled_bytes = 0;
  uint64_t evictions = 0;
  uint64_t spills = 0;
};

class MemoryTier {
 public:
  MemoryTier(uint64_t ceiling_bytes, uint64_t spill_threshold_bytes)
      : ceiling_(ceiling_bytes), spill_threshold_(spill_threshold_bytes) {}

  // The spill file goes in `spill_dir` (created by the first spill).
  Status Init(const std::string& spill_dir) {
    core::MutexLock lock(&mu_);
    spill_.Open(spill_dir);
    return Status::Ok();
  }

  // Durable cache. Lookup returns null on a miss.
  std::shared_ptr<const std::string> Lookup(const CacheKey& key);
  // Lookup without waiting: null too when another thread holds the tier
  // (which may be spilling to disk).
  std::shared_ptr<const std::string> TryLookup(const CacheKey& key);
  void Insert(const CacheKey& key, std::shared_ptr<const std::string> value);
  // Drops every cached durable value (after versions were collected).
  void ClearCache();

  // Session-only payloads. `spill_now` sends the payload straight to the
  // spill file (used once the value it belongs to outgrows the threshold).
  Result<PayloadId> Store(std::string_view data, bool spill_now = false);
  // Moves a resident payload to the spill file; no-op when already there.
  Status Spill(PayloadId id);
  Result<std::string> Read(PayloadId id, uint64_t offset, uint64_t length);
  void Drop(PayloadId id);

  MemoryTierStats Stats() const;
  uint64_t ceiling() const { return ceiling_; }

 private:
  std::shared_ptr<const std::string> LookupLocked(const CacheKey& key)
      REQUIRES(mu_);

  struct CacheEntry {
    CacheKey key;
    std::shared_ptr<const std::string> value;
  };
  struct Payload {
    bool resident = true;
    std::string data;  // When resident.
    uint64_t spill_offset = 0;
    uint64_t size = 0;
    std::list<PayloadId>::iterator lru;  // When resident.
  };

  // Frees memory until `incoming` more bytes fit under the ceiling.
  Status MakeRoom(uint64_t incoming) REQUIRES(mu_);
  Status SpillPayload(Payload* p) REQUIRES(mu_);

  const uint64_t ceiling_;
  const uint64_t spill_threshold_;
  mutable core::Mutex mu_;
  SpillFile spill_ GUARDED_BY(mu_);

  uint64_t cache_bytes_ GUARDED_BY(mu_) = 0;
  // Front: most recently used.
  std::list<CacheEntry> cache_lru_ GUARDED_BY(mu_);
  std::unordered_map<CacheKey, std::list<CacheEntry>::iterator, CacheKeyHash>
      cache_index_ GUARDED_BY(mu_);

  uint64_t resident_bytes_ GUARDED_BY(mu_) = 0;
  uint64_t spilled_bytes_ GUARDED_BY(mu_) = 0;
  PayloadId next_payload_ GUARDED_BY(mu_) = 1;
  // Front: most recently used.
  std::list<PayloadId> resident_lru_ GUARDED_BY(mu_);
  std::unordered_map<PayloadId, Payload> payloads_ GUARDED_BY(mu_);

  uint64_t evictions_ GUARDED_BY(mu_) = 0;
  uint64_t spills_ GUARDED_BY(mu_) = 0;
};

}  // namespace ctxkit::storage

#endif  // CTXKIT_STORAGE_MEMORY_TIER_H_
