#include "memory/memory_backend.h"

#include <algorithm>
#include <set>

#include "core/hmac.h"
#include "core/status_macros.h"
#include "ctxkit/target.h"
#include "storage/engine_rules.h"

namespace ctxkit::storage {
namespace {

Status NoKey(const Scope& scope, std::string_view key) {
  return KeyNotFound(key, scope.ToString());
}

bool HasAllTags(const ObjectRecord& r, const std::vector<std::string>& tags) {
  return std::all_of(tags.begin(), tags.end(), [&](const std::string& t) {
    return std::binary_search(r.tags.begin(), r.tags.end(), t);
  });
}

bool Matches(const ObjectRecord& r, const ObjectQuery& q) {
  if (r.deleted && !q.include_deleted) return false;
  if (!q.scopes.empty() &&
      std::find(q.scopes.begin(), q.scopes.end(), r.scope) == q.scopes.end()) {
    return false;
  }
  if (q.type && r.type != *q.type) return false;
  if (r.key.compare(0, q.key_prefix.size(), q.key_prefix) != 0) return false;
  if (q.after && std::make_pair(r.key, r.scope.ToString()) <= *q.after) {
    return false;
  }
  return HasAllTags(r, q.tags);
}

}  // namespace

MemoryBackend::MemoryBackend(const MemoryBackendOptions& options)
    : options_(options) {}

MemoryBackend::~MemoryBackend() {
  for (auto& [id, obj] : objects_) {
    for (const Chunk& c : obj->chunks) options_.tier->Drop(c.payload);
  }
}

std::string MemoryBackend::NameKey(const Scope& scope, std::string_view key) {
  std::string name = scope.ToString();
  name += '\n';  // Never part of a scope string.
  name += key;
  return name;
}

MemoryBackend::Object* MemoryBackend::FindLocked(const Scope& scope,
                                                 std::string_view key) {
  auto it = by_name_.find(NameKey(scope, key));
  return it == by_name_.end() ? nullptr : objects_.at(it->second).get();
}

Result<MemoryBackend::Object*> MemoryBackend::FindForWriteLocked(
    const Scope& scope, std::string_view key, uint64_t expected_version) {
  Object* obj = FindLocked(scope, key);
  const uint64_t at = obj == nullptr ? 0 : obj->record.latest_version;
  if (expected_version != 0 && at != expected_version) {
    return VersionMoved(key, at, expected_version);
  }
  return obj;
}

Result<MemoryBackend::Object*> MemoryBackend::ObjectLocked(int64_t id) {
  auto it = objects_.find(id);
  if (it == objects_.end()) {
    return Status::NotFound("no object " + std::to_string(id) +
                            " (a session-only value is gone when its session "
                            "ends)");
  }
  return it->second.get();
}

MemoryBackend::Object* MemoryBackend::CreateLocked(const Scope& scope,
                                                   std::string_view key,
                                                   std::string_view owner,
                                                   int64_t now) {
  auto obj = std::make_unique<Object>();
  obj->record.id = next_id_++;
  obj->record.scope = scope;
  obj->record.key = std::string(key);
  obj->record.created_unix_ns = now;
  obj->owner = std::string(owner);
  Object* raw = obj.get();
  by_name_[NameKey(scope, key)] = raw->record.id;
  named_.store(by_name_.size(), std::memory_order_relaxed);
  objects_.emplace(raw->record.id, std::move(obj));
  return raw;
}

Status MemoryBackend::AddChunkLocked(Object* obj, uint64_t offset,
                                     std::string_view bytes) {
  // The threshold applies to the value, not to each append: once a stream
  // outgrows it, its chunks go to the spill file.
  const bool spill = offset + bytes.size() > options_.spill_threshold_bytes;
  CTXKIT_ASSIGN_OR_RETURN(PayloadId payload,
                          options_.tier->Store(bytes, spill));
  if (spill) {
    for (; obj->spilled_chunks < obj->chunks.size(); ++obj->spilled_chunks) {
      CTXKIT_RETURN_IF_ERROR(
          options_.tier->Spill(obj->chunks[obj->spilled_chunks].payload));
    }
  }
  obj->chunks.push_back({payload, offset, bytes.size()});
  if (spill && obj->spilled_chunks + 1 == obj->chunks.size()) {
    obj->spilled_chunks = obj->chunks.size();
  }
  return Status::Ok();
}

WriteResult MemoryBackend::CommitVersionLocked(Object* obj, Version v) {
  ObjectRecord& r = obj->record;
  v.record.object_id = r.id;
  v.record.version = obj->versions.size() + 1;
  v.chunk_end = obj->chunks.size();
  r.latest_version = v.record.version;
  r.updated_unix_ns = v.record.created_unix_ns;
  r.deleted = v.record.state != VersionState::kPresent;
  r.type = v.record.type;
  if (!r.deleted) {
    r.size_bytes = v.record.size_bytes;
    r.tokens = v.record.tokens;
  } else {
    r.tokens.reset();
  }
  obj->versions.push_back(v);
  StampLocked(obj);
  return WriteResult{r, std::move(v.record)};
}

void MemoryBackend::StampLocked(Object* obj) {
  by_change_.erase(obj->changed);
  obj->changed = ++last_stamp_;
  by_change_.emplace(obj->changed, obj->record.id);
}

Result<uint64_t> MemoryBackend::LatestChange() {
  core::MutexLock lock(&mu_);
  return by_change_.empty() ? uint64_t{0} : by_change_.rbegin()->first;
}

Result<std::vector<ChangedObject>> MemoryBackend::ListChanged(uint64_t after,
                                                              size_t limit) {
  core::MutexLock lock(&mu_);
  std::vector<ChangedObject> out;
  for (auto it = by_change_.upper_bound(after);
       it != by_change_.end() && out.size() < limit; ++it) {
    ChangedObject c{it->first, objects_.at(it->second)->record};
    c.object.tags.clear();  // As the contract says: not loaded.
    out.push_back(std::move(c));
  }
  return out;
}

Result<WriteResult> MemoryBackend::Put(const PutRequest& req) {
  core::MutexLock lock(&mu_);
  CTXKIT_ASSIGN_OR_RETURN(
      Object * obj,
      FindForWriteLocked(req.scope, req.key, req.expected_version));
  if (obj == nullptr) {
    obj = CreateLocked(req.scope, req.key, req.owner, req.now_unix_ns);
  }
  Version v;
  v.chunk_begin = obj->chunks.size();
  CTXKIT_RETURN_IF_ERROR(AddChunkLocked(obj, 0, req.content));
  v.record.type = req.type;
  v.record.hash = req.hash;
  v.record.size_bytes = req.content.size();
  v.record.created_unix_ns = req.now_unix_ns;
  v.record.producer = req.producer;
  v.record.tokens = req.tokens;
  v.record.stream_base =
      IsAppendableType(req.type) ? obj->versions.size() + 1 : 0;
  obj->record.tags = req.tags;
  return CommitVersionLocked(obj, std::move(v));
}

Result<WriteResult> MemoryBackend::Append(const AppendRequest& req) {
  core::MutexLock lock(&mu_);
  CTXKIT_ASSIGN_OR_RETURN(
      Object * obj,
      FindForWriteLocked(req.scope, req.key, req.expected_version));
  const bool continues = obj != nullptr && !obj->record.deleted;
  if (continues && !IsAppendableType(obj->record.type)) {
    return Status::FailedPrecondition(
        "'" + req.key + "' holds a " +
        std::string(ValueTypeName(obj->record.type)) +
        " value; append works only on streams and chats");
  }
  if (obj == nullptr) {
    obj = CreateLocked(req.scope, req.key, req.owner, req.now_unix_ns);
  }
  const Version* latest = continues ? &obj->versions.back() : nullptr;
  const uint64_t offset = continues ? latest->record.size_bytes : 0;
  Version v;
  v.chunk_begin = continues ? latest->chunk_begin : obj->chunks.size();
  v.record.type = continues ? latest->record.type : req.type;
  v.record.stream_base =
      continues ? latest->record.stream_base : obj->versions.size() + 1;
  CTXKIT_RETURN_IF_ERROR(AddChunkLocked(obj, offset, req.bytes));
  v.record.hash = req.hash;
  v.record.size_bytes = offset + req.bytes.size();
  v.record.created_unix_ns = req.now_unix_ns;
  v.record.producer = req.producer;
  if (!continues) obj->record.tags = req.tags;
  return CommitVersionLocked(obj, std::move(v));
}

Result<WriteResult> MemoryBackend::Remove(const Scope& scope,
                                          std::string_view key,
                                          std::string_view producer,
                                          int64_t now_unix_ns,
                                          VersionState state) {
  core::MutexLock lock(&mu_);
  Object* obj = FindLocked(scope, key);
  if (obj == nullptr) return NoKey(scope, key);
  if (obj->record.deleted) {
    return Status::NotFound("'" + std::string(key) + "' was removed");
  }
  Version v;
  v.chunk_begin = obj->chunks.size();
  v.record.state = state;
  v.record.type = obj->record.type;
  v.record.created_unix_ns = now_unix_ns;
  v.record.producer = std::string(producer);
  return CommitVersionLocked(obj, std::move(v));
}

Result<ObjectRecord> MemoryBackend::RelocateLocked(int64_t id,
                                                   const Scope& scope,
                                                   std::string_view key) {
  CTXKIT_ASSIGN_OR_RETURN(Object * obj, ObjectLocked(id));
  Object* there = FindLocked(scope, key);
  if (there == obj) return obj->record;
  if (there != nullptr && !there->record.deleted) {
    return Status::AlreadyExists("'" + std::string(key) + "' exists in " +
                                 scope.ToString());
  }
  // A removed object there keeps its id and history, reachable by ref.
  auto old_name = by_name_.find(NameKey(obj->record.scope, obj->record.key));
  if (old_name != by_name_.end() && old_name->second == id) {
    by_name_.erase(old_name);
  }
  obj->record.scope = scope;
  obj->record.key = std::string(key);
  by_name_[NameKey(scope, key)] = id;
  named_.store(by_name_.size(), std::memory_order_relaxed);
  StampLocked(obj);
  return obj->record;
}

Result<ObjectRecord> MemoryBackend::Move(int64_t id, const Scope& to) {
  core::MutexLock lock(&mu_);
  CTXKIT_ASSIGN_OR_RETURN(Object * obj, ObjectLocked(id));
  const std::string key = obj->record.key;
  return RelocateLocked(id, to, key);
}

Result<ObjectRecord> MemoryBackend::Rename(int64_t id,
                                           std::string_view to_key) {
  core::MutexLock lock(&mu_);
  CTXKIT_ASSIGN_OR_RETURN(Object * obj, ObjectLocked(id));
  const Scope scope = obj->record.scope;
  return RelocateLocked(id, scope, to_key);
}

Status MemoryBackend::RecordTokenCounts(const std::vector<TokenCount>& counts) {
  core::MutexLock lock(&mu_);
  for (const TokenCount& c : counts) {
    auto it = objects_.find(c.object_id);
    if (it == objects_.end() || c.version == 0 ||
        c.version > it->second->versions.size()) {
      continue;
    }
    Object& obj = *it->second;
    VersionRecord& v = obj.versions[c.version - 1].record;
    if (v.tokens || v.state != VersionState::kPresent) continue;
    v.tokens = c.tokens;
    if (obj.record.latest_version == c.version) obj.record.tokens = c.tokens;
  }
  return Status::Ok();
}

std::optional<ObjectRecord> MemoryBackend::FindLive(const Scope& scope,
                                                    std::string_view key) {
  if (named_.load(std::memory_order_relaxed) == 0) return std::nullopt;
  core::MutexLock lock(&mu_);
  return LiveLocked(scope, key);
}

bool MemoryBackend::TryFindLive(const Scope& scope, std::string_view key,
                                std::optional<ObjectRecord>* live) {
  if (named_.load(std::memory_order_relaxed) == 0) {
    live->reset();
    return true;
  }
  if (!mu_.TryLock()) return false;
  *live = LiveLocked(scope, key);
  mu_.Unlock();
  return true;
}

std::optional<ObjectRecord> MemoryBackend::LiveLocked(const Scope& scope,
                                                      std::string_view key) {
  const Object* obj = FindLocked(scope, key);
  if (obj == nullptr || obj->record.deleted) return std::nullopt;
  return obj->record;
}

Result<ObjectRecord> MemoryBackend::FindObject(const Scope& scope,
                                               std::string_view key) {
  core::MutexLock lock(&mu_);
  const Object* obj = FindLocked(scope, key);
  if (obj == nullptr) return NoKey(scope, key);
  return obj->record;
}

Result<std::vector<ObjectRecord>> MemoryBackend::FindObjects(
    std::string_view key, const std::vector<Scope>& scopes) {
  std::vector<ObjectRecord> out;
  if (named_.load(std::memory_order_relaxed) == 0) return out;
  core::MutexLock lock(&mu_);
  for (const Scope& scope : scopes) {
    if (const Object* obj = FindLocked(scope, key)) out.push_back(obj->record);
  }
  return out;
}

Result<ObjectRecord> MemoryBackend::GetObject(int64_t id) {
  core::MutexLock lock(&mu_);
  CTXKIT_ASSIGN_OR_RETURN(Object * obj, ObjectLocked(id));
  return obj->record;
}

Result<VersionRecord> MemoryBackend::GetVersion(int64_t id, uint64_t version) {
  core::MutexLock lock(&mu_);
  CTXKIT_ASSIGN_OR_RETURN(Object * obj, ObjectLocked(id));
  if (version == 0) version = obj->versions.size();
  CTXKIT_ASSIGN_OR_RETURN(Version * v, VersionLocked(obj, version));
  return v->record;
}

Result<std::vector<VersionRecord>> MemoryBackend::ListVersions(int64_t id) {
  core::MutexLock lock(&mu_);
  CTXKIT_ASSIGN_OR_RETURN(Object * obj, ObjectLocked(id));
  std::vector<VersionRecord> out;
  out.reserve(obj->versions.size());
  for (const Version& v : obj->versions) {
    if (!v.collected) out.push_back(v.record);
  }
  return out;
}

Result<std::vector<ObjectRecord>> MemoryBackend::ListObjects(
    const ObjectQuery& query) {
  std::vector<ObjectRecord> out;
  {
    core::MutexLock lock(&mu_);
    for (const auto& [name, id] : by_name_) {
      const ObjectRecord& r = objects_.at(id)->record;
      if (Matches(r, query)) out.push_back(r);
    }
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    if (a.key != b.key) return a.key < b.key;
    return a.scope.ToString() < b.scope.ToString();
  });
  if (out.size() > query.limit) out.resize(query.limit);
  return out;
}

Result<std::string> MemoryBackend::Read(const VersionRecord& version,
                                        uint64_t offset, uint64_t length) {
  core::MutexLock lock(&mu_);
  CTXKIT_ASSIGN_OR_RETURN(Object * obj, ObjectLocked(version.object_id));
  CTXKIT_ASSIGN_OR_RETURN(Version * found, VersionLocked(obj, version.version));
  const Version& v = *found;
  const uint64_t size = v.record.size_bytes;
  if (offset >= size) return std::string();
  const uint64_t end = offset + std::min(length, size - offset);
  // Chunks are ordered by offset; start at the first one reaching `offset`.
  auto first = std::upper_bound(
      obj->chunks.begin() + v.chunk_begin, obj->chunks.begin() + v.chunk_end,
      offset,
      [](uint64_t off, const Chunk& c) { return off < c.offset + c.size; });
  std::string out;
  out.reserve(end - offset);
  for (auto it = first; it != obj->chunks.begin() + v.chunk_end; ++it) {
    if (it->offset >= end) break;
    const uint64_t from = std::max(offset, it->offset);
    const uint64_t to = std::min(end, it->offset + it->size);
    if (from >= to) continue;
    CTXKIT_ASSIGN_OR_RETURN(
        std::string part,
        options_.tier->Read(it->payload, from - it->offset, to - from));
    out += part;
  }
  return out;
}

Result<MemoryBackend::Version*> MemoryBackend::VersionLocked(Object* obj,
                                                             uint64_t version) {
  if (version == 0 || version > obj->versions.size() ||
      obj->versions[version - 1].collected) {
    return Status::NotFound("'" + obj->record.key + "' has no version " +
                            std::to_string(version));
  }
  return &obj->versions[version - 1];
}

Result<std::vector<VersionRecord>> MemoryBackend::ScanVersions(
    const VersionKey& after, size_t limit) {
  core::MutexLock lock(&mu_);
  std::vector<VersionRecord> out;
  for (auto it = objects_.lower_bound(after.object_id);
       it != objects_.end() && out.size() < limit; ++it) {
    for (const Version& v : it->second->versions) {
      if (out.size() == limit) break;
      if (v.collected || VersionKey{it->first, v.record.version} <= after) {
        continue;
      }
      out.push_back(v.record);
    }
  }
  return out;
}

Status MemoryBackend::CheckCollectableLocked(
    const std::vector<VersionKey>& keys) {
  std::set<VersionKey> collecting(keys.begin(), keys.end());
  for (const VersionKey& key : keys) {
    auto it = objects_.find(key.object_id);
    if (it == objects_.end() || key.version == 0 ||
        key.version > it->second->versions.size()) {
      continue;
    }
    const Object& obj = *it->second;
    if (holds_.count(key)) return HeldIsKept(key.object_id, key.version);
    if (key.version == obj.versions.size()) {
      return Status::InvalidArgument(
          "version " + std::to_string(key.version) + " of '" + obj.record.key +
          "' is its latest; garbage collection keeps it");
    }
    const uint64_t base = obj.versions[key.version - 1].record.stream_base;
    if (base == 0) continue;
    for (const Version& v : obj.versions) {
      if (v.record.stream_base == base && !v.collected &&
          collecting.count({key.object_id, v.record.version}) == 0) {
        return Status::FailedPrecondition(
            "collecting part of a run of appends of '" + obj.record.key +
            "' would leave version " + std::to_string(v.record.version) +
            " without its earlier chunks");
      }
    }
  }
  return Status::Ok();
}

Result<CollectReport> MemoryBackend::CollectVersions(
    const std::vector<VersionKey>& keys) {
  core::MutexLock lock(&mu_);
  return CollectLocked(keys, /*apply=*/true);
}

Result<CollectReport> MemoryBackend::MeasureCollect(
    const std::vector<VersionKey>& keys) {
  core::MutexLock lock(&mu_);
  return CollectLocked(keys, /*apply=*/false);
}

Result<CollectReport> MemoryBackend::CollectLocked(
    const std::vector<VersionKey>& keys, bool apply) {
  CTXKIT_RETURN_IF_ERROR(CheckCollectableLocked(keys));
  CollectReport report;
  std::set<VersionKey> measured;  // Counted once each, as collected once.
  for (const VersionKey& key : keys) {
    auto it = objects_.find(key.object_id);
    if (it == objects_.end()) continue;
    Object& obj = *it->second;
    if (key.version == 0 || key.version > obj.versions.size()) continue;
    Version& v = obj.versions[key.version - 1];
    if (v.collected || !measured.insert(key).second) {
      continue;
    }
    if (apply) v.collected = true;
    ++report.versions;
    // A version's own bytes are its last chunk (tombstones have none).
    if (v.chunk_end > v.chunk_begin && v.chunk_end <= obj.chunks.size()) {
      Chunk& own = obj.chunks[v.chunk_end - 1];
      if (own.size > 0 || own.payload != 0) {
        report.bytes += own.size;
        if (apply) {
          options_.tier->Drop(own.payload);
          own = Chunk{};
        }
      }
    }
  }
  return report;
}

Result<BackendStats> MemoryBackend::Stats() {
  core::MutexLock lock(&mu_);
  BackendStats s;
  for (const auto& [id, obj] : objects_) {
    ++s.objects;
    if (!obj->record.deleted) ++s.live_objects;
    s.versions += obj->versions.size();
    for (const Chunk& c : obj->chunks) s.content_bytes += c.size;
  }
  return s;
}

Result<std::vector<UsageRecord>> MemoryBackend::Usage() {
  std::vector<UsageRecord> rows;
  {
    core::MutexLock lock(&mu_);
    for (const auto& [id, obj] : objects_) {
      const ObjectRecord& r = obj->record;
      auto row = std::find_if(rows.begin(), rows.end(), [&](const auto& u) {
        return u.scope == r.scope && u.type == r.type;
      });
      if (row == rows.end()) {
        rows.push_back({r.scope, r.type, UsageRecord::Medium::kMemory});
        row = rows.end() - 1;
      }
      ++row->objects;
      row->versions += obj->versions.size();
      for (const Chunk& c : obj->chunks) row->bytes += c.size;
    }
  }
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    return std::make_pair(a.scope.ToString(), static_cast<int>(a.type)) <
           std::make_pair(b.scope.ToString(), static_cast<int>(b.type));
  });
  return rows;
}

void MemoryBackend::DropOwnedBy(std::string_view owner) {
  core::MutexLock lock(&mu_);
  for (auto it = objects_.begin(); it != objects_.end();) {
    Object& obj = *it->second;
    if (obj.owner != owner) {
      ++it;
      continue;
    }
    for (const Chunk& c : obj.chunks) options_.tier->Drop(c.payload);
    by_change_.erase(obj.changed);
    auto name = by_name_.find(NameKey(obj.record.scope, obj.record.key));
    if (name != by_name_.end() && name->second == it->first) {
      by_name_.erase(name);
    }
    it = objects_.erase(it);
  }
  named_.store(by_name_.size(), std::memory_order_relaxed);
}

// ---- Session state ----

Result<std::optional<uint64_t>> MemoryBackend::SessionGeneration(
    std::string_view id) {
  core::MutexLock lock(&mu_);
  auto it = sessions_.find(id);
  if (it == sessions_.end()) return std::optional<uint64_t>();
  return std::optional<uint64_t>(it->second.generation);
}

Result<const MemoryBackend::StoredSession*> MemoryBackend::FindSession(
    std::string_view id, SessionRecord* record) {
  auto it = sessions_.find(id);
  if (it == sessions_.end()) {
    return Status::NotFound("no session '" + std::string(id) + "'");
  }
  if (record != nullptr) {
    record->id = std::string(id);
    record->generation = it->second.generation;
    record->state_json = it->second.state_json;
  }
  return &it->second;
}

Result<SessionRecord> MemoryBackend::LoadSession(std::string_view id) {
  core::MutexLock lock(&mu_);
  SessionRecord r;
  CTXKIT_ASSIGN_OR_RETURN(const StoredSession* s, FindSession(id, &r));
  for (const auto& [object_id, row] : s->entries) r.entries.push_back(row);
  return r;
}

Result<SessionRecord> MemoryBackend::LoadSessionHead(std::string_view id,
                                                     size_t listed_limit) {
  core::MutexLock lock(&mu_);
  SessionRecord r;
  CTXKIT_ASSIGN_OR_RETURN(const StoredSession* s, FindSession(id, &r));
  std::vector<const SessionEntryRow*> listed;
  for (const auto& [object_id, row] : s->entries) {
    if (row.hot) r.entries.push_back(row);
    if (row.listed) listed.push_back(&row);
  }
  const size_t n = std::min(listed_limit, listed.size());
  std::partial_sort(
      listed.begin(), listed.begin() + n, listed.end(),
      [](const auto* a, const auto* b) { return a->seq < b->seq; });
  for (size_t i = 0; i < n; ++i) {
    if (!listed[i]->hot) r.entries.push_back(*listed[i]);
  }
  return r;
}

Result<uint64_t> MemoryBackend::CountListedSessionEntries(std::string_view id) {
  core::MutexLock lock(&mu_);
  CTXKIT_ASSIGN_OR_RETURN(const StoredSession* s, FindSession(id, nullptr));
  uint64_t n = 0;
  for (const auto& [object_id, row] : s->entries) n += row.listed;
  return n;
}

Result<SessionRecord> MemoryBackend::LoadSessionEntries(
    std::string_view id, const std::vector<std::string>& object_ids) {
  core::MutexLock lock(&mu_);
  SessionRecord r;
  CTXKIT_ASSIGN_OR_RETURN(const StoredSession* s, FindSession(id, &r));
  r.state_json.clear();
  for (const std::string& object_id : object_ids) {
    auto row = s->entries.find(object_id);
    if (row != s->entries.end()) r.entries.push_back(row->second);
  }
  return r;
}

Result<uint64_t> MemoryBackend::WriteSession(const SessionWrite& write) {
  core::MutexLock lock(&mu_);
  CTXKIT_RETURN_IF_ERROR(CheckStoredLocked(write.holds));
  auto it = sessions_.find(write.id);
  if (write.expected_generation == 0) {
    if (it != sessions_.end()) {
      return Status::AlreadyExists("session '" + write.id + "' exists");
    }
    it = sessions_.emplace(write.id, StoredSession()).first;
  } else if (it == sessions_.end()) {
    return Status::NotFound("no session '" + write.id + "'");
  } else if (it->second.generation != write.expected_generation) {
    return Status::FailedPrecondition(
        "session '" + write.id + "' changed (generation " +
        std::to_string(it->second.generation) + ", not " +
        std::to_string(write.expected_generation) + "); reload and retry");
  }
  for (const VersionKey& key : write.holds) {
    holds_[key].emplace(SessionHolder(write.id));
  }
  StoredSession& s = it->second;
  s.generation = write.expected_generation + 1;
  s.state_json = write.state_json;
  for (const std::string& id : write.removed_entries) s.entries.erase(id);
  for (const SessionEntryRow& row : write.put_entries) {
    s.entries[row.object_id] = row;
  }
  return s.generation;
}

Result<std::vector<std::string>> MemoryBackend::ListSessions() {
  core::MutexLock lock(&mu_);
  std::vector<std::string> out;
  for (const auto& [id, s] : sessions_) out.push_back(id);
  return out;
}

Status MemoryBackend::RemoveSession(std::string_view id) {
  core::MutexLock lock(&mu_);
  auto it = sessions_.find(id);
  if (it == sessions_.end()) {
    return Status::NotFound("no session '" + std::string(id) + "'");
  }
  sessions_.erase(it);
  DropHoldsLocked(SessionHolder(id));
  return Status::Ok();
}

Status MemoryBackend::AddHolds(std::string_view holder,
                               std::span<const VersionKey> keys) {
  core::MutexLock lock(&mu_);
  CTXKIT_RETURN_IF_ERROR(CheckStoredLocked(keys));
  for (const VersionKey& key : keys) holds_[key].emplace(holder);
  return Status::Ok();
}

Status MemoryBackend::CheckStoredLocked(std::span<const VersionKey> keys) {
  for (const VersionKey& key : keys) {
    auto it = objects_.find(key.object_id);
    const bool stored = it != objects_.end() && key.version >= 1 &&
                        key.version <= it->second->versions.size() &&
                        !it->second->versions[key.version - 1].collected;
    if (!stored) return NothingToHold(key.object_id, key.version);
  }
  return Status::Ok();
}

Result<std::vector<VersionKey>> MemoryBackend::ListHeld() {
  core::MutexLock lock(&mu_);
  std::vector<VersionKey> out;
  out.reserve(holds_.size());
  for (const auto& [key, holders] : holds_) out.push_back(key);
  return out;
}

Status MemoryBackend::DropHolds(std::string_view holder) {
  core::MutexLock lock(&mu_);
  DropHoldsLocked(holder);
  return Status::Ok();
}

void MemoryBackend::DropHoldsLocked(std::string_view holder) {
  for (auto it = holds_.begin(); it != holds_.end();) {
    it->second.erase(std::string(holder));
    it = it->second.empty() ? holds_.erase(it) : std::next(it);
  }
}

// Checked in full before anything changes: all or nothing.
Status MemoryBackend::WriteRecords(const RecordWrite& write) {
  CTXKIT_RETURN_IF_ERROR(CheckRecordWrite(write));
  core::MutexLock lock(&mu_);
  std::set<std::pair<std::string, std::string>> created;
  for (const RecordPut& put : write.puts) {
    if (put.when != RecordPut::When::kCreate) continue;
    auto key = std::make_pair(put.kind, put.name);
    if (records_.count(key) || !created.insert(key).second) {
      return RecordExists(put.kind, put.name);
    }
  }
  for (const RecordPut& put : write.puts) {
    auto key = std::make_pair(put.kind, put.name);
    if (put.when != RecordPut::When::kAlways && records_.count(key)) continue;
    records_[key] =
        StoredRecord{put.kind, put.name, put.bytes, write.now_unix_ns};
  }
  for (const RecordKey& key : write.removes) {
    records_.erase(std::make_pair(key.kind, key.name));
  }
  for (const LogAppend& append : write.appends) {
    logs_[append.log].push_back(append.bytes);
  }
  return Status::Ok();
}

Result<std::optional<StoredRecord>> MemoryBackend::GetRecord(
    std::string_view kind, std::string_view name) {
  core::MutexLock lock(&mu_);
  auto it = records_.find(std::make_pair(std::string(kind), std::string(name)));
  if (it == records_.end()) return std::optional<StoredRecord>();
  return std::optional<StoredRecord>(it->second);
}

Result<std::vector<StoredRecord>> MemoryBackend::ListRecords(
    std::string_view kind) {
  core::MutexLock lock(&mu_);
  std::vector<StoredRecord> out;
  for (auto it = records_.lower_bound({std::string(kind), std::string()});
       it != records_.end() && it->first.first == kind; ++it) {
    out.push_back(it->second);
  }
  return out;
}

Result<std::vector<std::string>> MemoryBackend::ReadLog(std::string_view log,
                                                        size_t limit) {
  core::MutexLock lock(&mu_);
  auto it = logs_.find(log);
  if (it == logs_.end()) return std::vector<std::string>();
  const std::vector<std::string>& all = it->second;
  const size_t from = all.size() > limit ? all.size() - limit : 0;
  return std::vector<std::string>(all.begin() + from, all.end());
}

Result<std::string> MemoryBackend::RefSecret() {
  core::MutexLock lock(&mu_);
  if (ref_secret_.empty()) {
    CTXKIT_ASSIGN_OR_RETURN(ref_secret_, core::SecureRandomBytes(32));
  }
  return ref_secret_;
}

}  // namespace ctxkit::storage
