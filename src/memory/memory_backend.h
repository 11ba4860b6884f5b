// The memory engine: a Backend whose objects live in this process only.
// The store keeps its session-only (persist=false) values here, so a view
// treats them exactly as durable ones; tests can run any Backend contract
// against it.
//
// Contents are payloads of a MemoryTier (shared with the store's cache of
// durable values, under one byte ceiling): resident while they fit, in the
// tier's unlinked spill file when memory runs short or once a value
// outgrows the spill threshold. Nothing survives the process, by design.
//
// Beyond the Backend contract:
//   - every object has an owner (PutRequest::owner): DropOwnedBy(owner)
//     forgets the owner's objects and frees their payloads (a session's
//     end);
//   - object ids count from 1 in each instance; they are meaningful only to
//     it (the store marks refs to them with its instance tag);
//   - ChangeCounter is always 0: no other process can commit here.
//
// Thread safety: thread-safe.

#ifndef CTXKIT_MEMORY_MEMORY_BACKEND_H_
#define CTXKIT_MEMORY_MEMORY_BACKEND_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/mutex.h"
#include "storage/backend.h"
#include "storage/memory_tier.h"

namespace ctxkit::storage {

struct MemoryBackendOptions {
  // Holds the payloads; must outlive the backend.
  MemoryTier* tier = nullptr;
  // A value (a stream or chat across its appends) larger than this keeps
  // its bytes in the spill file rather than in memory.
  uint64_t spill_threshold_bytes = 64 << 20;
};

class MemoryBackend final : public Backend {
 public:
  explicit MemoryBackend(const MemoryBackendOptions& options);
  ~MemoryBackend() override;

  Result<WriteResult> Put(const PutRequest& request) override;
  Result<WriteResult> Append(const AppendRequest& request) override;
  Result<WriteResult> Remove(const Scope& scope, std::string_view key,
                             std::string_view producer, int64_t now_unix_ns,
                             VersionState state) override;
  Result<ObjectRecord> Move(int64_t id, const Scope& to) override;
  Result<ObjectRecord> Rename(int64_t id, std::string_view to_key) override;
  Status RecordTokenCounts(const std::vector<TokenCount>& counts) override;
  Result<ObjectRecord> FindObject(const Scope& scope,
                                  std::string_view key) override;
  Result<std::vector<ObjectRecord>> FindObjects(
      std::string_view key, const std::vector<Scope>& scopes) override;
  Result<ObjectRecord> GetObject(int64_t id) override;
  Result<VersionRecord> GetVersion(int64_t id, uint64_t version) override;
  Result<std::vector<VersionRecord>> ListVersions(int64_t id) override;
  Result<std::vector<ObjectRecord>> ListObjects(
      const ObjectQuery& query) override;
  Result<uint64_t> LatestChange() override;
  Result<std::vector<ChangedObject>> ListChanged(uint64_t after,
                                                 size_t limit) override;
  Result<std::string> Read(const VersionRecord& version, uint64_t offset,
                           uint64_t length) override;
  Result<std::vector<VersionRecord>> ScanVersions(const VersionKey& after,
                                                  size_t limit) override;
  Result<CollectReport> CollectVersions(
      const std::vector<VersionKey>& keys) override;
  Result<CollectReport> MeasureCollect(
      const std::vector<VersionKey>& keys) override;
  Result<BackendStats> Stats() override;
  Result<std::vector<UsageRecord>> Usage() override;
  Result<std::optional<uint64_t>> SessionGeneration(
      std::string_view id) override;
  Result<SessionRecord> LoadSession(std::string_view id) override;
  Result<SessionRecord> LoadSessionHead(std::string_view id,
                                        size_t listed_limit) override;
  Result<uint64_t> CountListedSessionEntries(std::string_view id) override;
  Result<SessionRecord> LoadSessionEntries(
      std::string_view id, const std::vector<std::string>& object_ids) override;
  Result<uint64_t> WriteSession(const SessionWrite& write) override;
  Result<std::vector<std::string>> ListSessions() override;
  Status RemoveSession(std::string_view id) override;
  Status AddHolds(std::string_view holder,
                  std::span<const VersionKey> keys) override;
  Result<std::vector<VersionKey>> ListHeld() override;
  Status DropHolds(std::string_view holder) override;
  // Nothing outlives the instance: no earlier build's state to record.
  Result<bool> HoldsPending() override { return false; }
  Status MarkHoldsRecorded() override { return Status::Ok(); }
  Status WriteRecords(const RecordWrite& write) override;
  Result<std::optional<StoredRecord>> GetRecord(std::string_view kind,
                                                std::string_view name) override;
  Result<std::vector<StoredRecord>> ListRecords(std::string_view kind) override;
  Result<std::vector<std::string>> ReadLog(std::string_view log,
                                           size_t limit) override;
  Result<uint64_t> ChangeCounter() override { return uint64_t{0}; }
  std::optional<uint64_t> TryChangeCounter() override { return 0; }
  // Random per instance: nothing outlives it.
  Result<std::string> RefSecret() override;

  // The live object at (scope, key), without building an error when there
  // is none: the store asks on every lookup, and almost always finds none.
  std::optional<ObjectRecord> FindLive(const Scope& scope,
                                       std::string_view key);
  // FindLive without waiting: false, `*live` untouched, when another thread
  // holds the lock.
  bool TryFindLive(const Scope& scope, std::string_view key,
                   std::optional<ObjectRecord>* live);
  // Forgets every object whose owner is `owner` and frees its payloads.
  void DropOwnedBy(std::string_view owner);

 private:
  struct Chunk {
    PayloadId payload = 0;
    uint64_t offset = 0;  // Within the content of every version holding it.
    uint64_t size = 0;
  };
  struct Version {
    VersionRecord record;
    bool collected = false;  // By CollectVersions: gone, payload freed.
    size_t chunk_begin = 0;  // The content is chunks[begin, end).
    size_t chunk_end = 0;
  };
  struct Object {
    ObjectRecord record;
    std::string owner;
    std::vector<Chunk> chunks;
    // chunks[0, spilled_chunks) are in the spill file: a value that
    // outgrew the threshold moves its chunks there once.
    size_t spilled_chunks = 0;
    std::vector<Version> versions;  // versions[i].record.version == i + 1.
    uint64_t changed = 0;           // Its stamp in the change feed.
  };
  struct StoredSession {
    uint64_t generation = 0;
    std::string state_json;
    std::map<std::string, SessionEntryRow> entries;  // By object id.
  };

  // Session `id`, NotFound when there is none; fills the id, generation
  // and state of `record` when it is not null.
  Result<const StoredSession*> FindSession(std::string_view id,
                                           SessionRecord* record) REQUIRES(mu_);
  Object* FindLocked(const Scope& scope, std::string_view key) REQUIRES(mu_);
  // The live (not removed) object at (scope, key), copied.
  std::optional<ObjectRecord> LiveLocked(const Scope& scope,
                                         std::string_view key) REQUIRES(mu_);
  Result<Object*> ObjectLocked(int64_t id) REQUIRES(mu_);
  // The object at (scope, key) (nullptr: none), or FailedPrecondition when
  // expected_version is set and the latest version is another.
  Result<Object*> FindForWriteLocked(const Scope& scope, std::string_view key,
                                     uint64_t expected_version) REQUIRES(mu_);
  Object* CreateLocked(const Scope& scope, std::string_view key,
                       std::string_view owner, int64_t now) REQUIRES(mu_);
  // Stores `bytes` as the next chunk of `obj` at `offset`, spilling the
  // object's chunks once its content outgrows the threshold.
  Status AddChunkLocked(Object* obj, uint64_t offset, std::string_view bytes)
      REQUIRES(mu_);
  WriteResult CommitVersionLocked(Object* obj, Version v) REQUIRES(mu_);
  // Gives `obj` the next stamp of the change feed.
  void StampLocked(Object* obj) REQUIRES(mu_);
  // The version `version` of `obj` unless it was collected; NotFound then.
  Result<Version*> VersionLocked(Object* obj, uint64_t version) REQUIRES(mu_);
  // CollectVersions, or with !apply MeasureCollect.
  Result<CollectReport> CollectLocked(const std::vector<VersionKey>& keys,
                                      bool apply) REQUIRES(mu_);
  // CollectVersions' checks, before anything is freed.
  Status CheckCollectableLocked(const std::vector<VersionKey>& keys)
      REQUIRES(mu_);
  Result<ObjectRecord> RelocateLocked(int64_t id, const Scope& scope,
                                      std::string_view key) REQUIRES(mu_);
  static std::string NameKey(const Scope& scope, std::string_view key);
  void DropHoldsLocked(std::string_view holder) REQUIRES(mu_);
  // NotFound (NothingToHold) for a key naming no stored version.
  Status CheckStoredLocked(std::span<const VersionKey> keys) REQUIRES(mu_);

  const MemoryBackendOptions options_;
  core::Mutex mu_;
  int64_t next_id_ GUARDED_BY(mu_) = 1;
  std::string ref_secret_ GUARDED_BY(mu_);  // Made on first use.
  std::map<int64_t, std::unique_ptr<Object>> objects_ GUARDED_BY(mu_);
  // "<scope>\n<key>" -> the object lookups find there (live, or the most
  // recently removed one).
  std::unordered_map<std::string, int64_t> by_name_ GUARDED_BY(mu_);
  std::atomic<size_t> named_{0};  // by_name_.size(), read without mu_.
  uint64_t last_stamp_ GUARDED_BY(mu_) = 0;
  std::map<uint64_t, int64_t> by_change_ GUARDED_BY(mu_);  // Stamp -> id.
  std::map<std::string, StoredSession, std::less<>> sessions_ GUARDED_BY(mu_);
  // Held version -> its holders (Backend::AddHolds).
  std::map<VersionKey, std::set<std::string>> holds_ GUARDED_BY(mu_);
  // (kind, name) -> record (Backend::WriteRecords); log -> its entries.
  std::map<std::pair<std::string, std::string>, StoredRecord> records_
      GUARDED_BY(mu_);
  std::map<std::string, std::vector<std::string>, std::less<>> logs_
      GUARDED_BY(mu_);
};

}  // namespace ctxkit::storage

#endif  // CTXKIT_MEMORY_MEMORY_BACKEND_H_
