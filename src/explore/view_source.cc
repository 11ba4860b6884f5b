#include "explore/view_source.h"

#include <list>
#include <unordered_map>
#include <utility>

#include "core/mutex.h"

namespace ctxkit::explore {

Status ViewByteSource::Read(uint64_t offset, uint64_t length,
                            std::string* out) {
  if (offset >= ref_.size_bytes) {
    out->clear();
    return Status::Ok();
  }
  length = std::min(length, ref_.size_bytes - offset);
  Result<std::string> bytes = view_.ReadRange(ref_, offset, length);
  if (!bytes.ok()) return bytes.status();
  *out = std::move(*bytes);
  if (out->size() > length) out->resize(length);
  CountRead(out->size());
  return Status::Ok();
}

std::vector<uint64_t> StreamChunkBounds(View& view, const Ref& ref) {
  if (ref.type != ValueType::kStream) return {};
  Result<std::vector<VersionMeta>> versions = view.Versions(ref);
  if (!versions.ok()) return {};
  std::vector<uint64_t> bounds = {0};
  uint64_t prev = 0;
  bool found = false;
  for (const VersionMeta& v : *versions) {
    if (ref.version != 0 && v.version > ref.version) break;
    if (v.state != VersionState::kPresent || v.type != ValueType::kStream ||
        v.size_bytes < prev) {
      // A tombstone or another type ends the stream; an append after it
      // starts a new one from byte 0.
      bounds = {0};
      prev = 0;
      if (v.state != VersionState::kPresent) continue;
    }
    if (v.type != ValueType::kStream) {
      bounds = {0, v.size_bytes};  // Not appends: one chunk.
      prev = v.size_bytes;
      found = ref.version == v.version;
      continue;
    }
    bounds.push_back(v.size_bytes);
    prev = v.size_bytes;
    found = ref.version == v.version;
  }
  if ((ref.version != 0 && !found) || bounds.back() != ref.size_bytes) {
    return {};
  }
  return bounds;
}

namespace {

// A small LRU of line indexes, bounded by their memory.
class LineIndexCache {
 public:
  static constexpr uint64_t kBudgetBytes = 32ull << 20;

  std::shared_ptr<const text::LineIndex> Lookup(const std::string& key)
      EXCLUDES(mu_) {
    core::MutexLock lock(&mu_);
    auto it = map_.find(key);
    if (it == map_.end()) return nullptr;
    lru_.splice(lru_.begin(), lru_, it->second);
    return it->second->second;
  }

  void Insert(const std::string& key,
              std::shared_ptr<const text::LineIndex> index) EXCLUDES(mu_) {
    const uint64_t cost = index->memory_bytes() + key.size();
    if (cost > kBudgetBytes) return;
    core::MutexLock lock(&mu_);
    if (map_.contains(key)) return;
    lru_.emplace_front(key, std::move(index));
    map_[key] = lru_.begin();
    used_ += cost;
    while (used_ > kBudgetBytes && !lru_.empty()) {
      auto& [k, v] = lru_.back();
      used_ -= v->memory_bytes() + k.size();
      map_.erase(k);
      lru_.pop_back();
    }
  }

 private:
  using Entry = std::pair<std::string, std::shared_ptr<const text::LineIndex>>;
  core::Mutex mu_;
  std::list<Entry> lru_ GUARDED_BY(mu_);
  std::unordered_map<std::string, std::list<Entry>::iterator> map_
      GUARDED_BY(mu_);
  uint64_t used_ GUARDED_BY(mu_) = 0;
};

LineIndexCache& Cache() {
  static auto* cache = new LineIndexCache();
  return *cache;
}

std::string CacheKey(View& view, const Ref& ref) {
  std::string key = view.store()->home();
  key += '\0';
  key += ref.id;
  key += '\0';
  key += std::to_string(ref.version);
  key += '\0';
  key += std::to_string(ref.size_bytes);
  return key;
}

}  // namespace

std::shared_ptr<const text::LineIndex> CachedLineIndex(View& view,
                                                       const Ref& ref) {
  if (!ref.is_static()) return nullptr;
  return Cache().Lookup(CacheKey(view, ref));
}

void CacheLineIndex(View& view, const Ref& ref,
                    std::shared_ptr<const text::LineIndex> index) {
  if (!ref.is_static() || index == nullptr) return;
  Cache().Insert(CacheKey(view, ref), std::move(index));
}

Result<std::shared_ptr<const text::LineIndex>> GetLineIndex(
    View& view, const Ref& ref, text::ByteSource& source) {
  if (auto hit = CachedLineIndex(view, ref)) return hit;
  Result<text::LineIndex> built = text::LineIndex::Build(source);
  if (!built.ok()) return built.status();
  auto index = std::make_shared<const text::LineIndex>(std::move(*built));
  CacheLineIndex(view, ref, index);
  return index;
}

}  // namespace ctxkit::explore
