#include "storage/memory_tier.h"

namespace ctxkit::storage {

std::shared_ptr<const std::string> MemoryTier::Lookup(const CacheKey& key) {
  core::MutexLock lock(&mu_);
  return LookupLocked(key);
}

std::shared_ptr<const std::string> MemoryTier::TryLookup(const CacheKey& key) {
  if (!mu_.TryLock()) return nullptr;
  std::shared_ptr<const std::string> hit = LookupLocked(key);
  mu_.Unlock();
  return hit;
}

std::shared_ptr<const std::string> MemoryTier::LookupLocked(
    const CacheKey& key) {
  auto it = cache_index_.find(key);
  if (it == cache_index_.end()) return nullptr;
  cache_lru_.splice(cache_lru_.begin(), cache_lru_, it->second);
  return it->second->value;
}

void MemoryTier::Insert(const CacheKey& key,
                        std::shared_ptr<const std::string> value) {
  core::MutexLock lock(&mu_);
  const uint64_t size = value->size();
  // A value taking more than a quarter of the budget would flush everything
  // else for one read; serve it from disk instead.
  if (size > ceiling_ / 4 || cache_index_.count(key) != 0) return;
  if (!MakeRoom(size).ok()) return;  // Caching is best effort.
  if (cache_bytes_ + resident_bytes_ + size > ceiling_) return;
  cache_lru_.push_front({key, std::move(value)});
  cache_index_[key] = cache_lru_.begin();
  cache_bytes_ += size;
}

void MemoryTier::ClearCache() {
  core::MutexLock lock(&mu_);
  cache_lru_.clear();
  cache_index_.clear();
  cache_bytes_ = 0;
}

Status MemoryTier::MakeRoom(uint64_t incoming) {
  while (cache_bytes_ + resident_bytes_ + incoming > ceiling_ &&
         !cache_lru_.empty()) {
    CacheEntry& victim = cache_lru_.back();
    cache_bytes_ -= victim.value->size();
    cache_index_.erase(victim.key);
    cache_lru_.pop_back();
    ++evictions_;
  }
  while (cache_bytes_ + resident_bytes_ + incoming > ceiling_ &&
         !resident_lru_.empty()) {
    PayloadId victim = resident_lru_.back();
    Status s = SpillPayload(&payloads_.at(victim));
    if (!s.ok()) return s;
  }
  return Status::Ok();
}

Status MemoryTier::SpillPayload(Payload* p) {
  Result<uint64_t> offset = spill_.Write(p->data);
  if (!offset.ok()) return offset.status();
  resident_lru_.erase(p->lru);
  resident_bytes_ -= p->size;
  spilled_bytes_ += p->size;
  p->resident = false;
  p->spill_offset = *offset;
  std::string().swap(p->data);
  ++spills_;
  return Status::Ok();
}

Status MemoryTier::Spill(PayloadId id) {
  core::MutexLock lock(&mu_);
  auto it = payloads_.find(id);
  if (it == payloads_.end() || !it->second.resident) return Status::Ok();
  return SpillPayload(&it->second);
}

Result<PayloadId> MemoryTier::Store(std::string_view data, bool spill_now) {
  core::MutexLock lock(&mu_);
  PayloadId id = next_payload_++;
  Payload p;
  p.size = data.size();
  if (spill_now || data.size() > spill_threshold_ || data.size() > ceiling_) {
    Result<uint64_t> offset = spill_.Write(data);
    if (!offset.ok()) return offset.status();
    p.resident = false;
    p.spill_offset = *offset;
    spilled_bytes_ += p.size;
    ++spills_;
    payloads_.emplace(id, std::move(p));
    return id;
  }
  Status s = MakeRoom(data.size());
  if (!s.ok()) return s;
  p.data.assign(data);
  resident_lru_.push_front(id);
  p.lru = resident_lru_.begin();
  resident_bytes_ += p.size;
  payloads_.emplace(id, std::move(p));
  return id;
}

Result<std::string> MemoryTier::Read(PayloadId id, uint64_t offset,
                                     uint64_t length) {
  core::MutexLock lock(&mu_);
  auto it = payloads_.find(id);
  if (it == payloads_.end()) {
    return Status::NotFound("session-only value was dropped");
  }
  Payload& p = it->second;
  if (offset >= p.size) return std::string();
  length = std::min(length, p.size - offset);
  if (p.resident) {
    resident_lru_.splice(resident_lru_.begin(), resident_lru_, p.lru);
    return p.data.substr(offset, length);
  }
  return spill_.Read(p.spill_offset + offset, length);
}

void MemoryTier::Drop(PayloadId id) {
  core::MutexLock lock(&mu_);
  auto it = payloads_.find(id);
  if (it == payloads_.end()) return;
  Payload& p = it->second;
  if (p.resident) {
    resident_lru_.erase(p.lru);
    resident_bytes_ -= p.size;
  } else {
    spill_.Free(p.spill_offset, p.size);
    spilled_bytes_ -= p.size;
  }
  payloads_.erase(it);
}

MemoryTierStats MemoryTier::Stats() const {
  core::MutexLock lock(&mu_);
  MemoryTierStats s;
  s.used_bytes = cache_bytes_ + resident_bytes_;
  s.cached_values = cache_index_.size();
  s.resident_bytes = resident_bytes_;
  s.spilled_bytes = spilled_bytes_;
  s.evictions = evictions_;
  s.spills = spills_;
  return s;
}

}  // namespace ctxkit::storage
