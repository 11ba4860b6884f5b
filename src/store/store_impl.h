// StoreImpl: the store's engine room behind the public Store and View.
// It routes each operation to one of two Backends, the durable engine
// (SQLite) or this instance's memory engine for session-only values,
// enforces scope visibility, and keeps the caches of durable records
// coherent. Both engines go through the same code paths.

#ifndef CTXKIT_STORE_STORE_IMPL_H_
#define CTXKIT_STORE_STORE_IMPL_H_

#include <array>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/mutex.h"
#include "ctxkit/store.h"
#include "memory/memory_backend.h"
#include "storage/backend.h"
#include "storage/memory_tier.h"
#include "store/ref_tags.h"

namespace ctxkit {

// The identity of a view: which agent and session scopes it owns.
// Views outlive every call they make, so borrowing their ids is safe.
struct ViewIdentity {
  std::string_view agent;
  std::string_view session;
};

class StoreImpl {
 public:
  static Result<std::unique_ptr<StoreImpl>> Open(const Options& options);

  Result<Ref> Set(const ViewIdentity& view, std::string_view key,
                  std::string_view value, const SetOptions& options);
  Result<Ref> SetFile(const ViewIdentity& view, std::string_view key,
                      const std::string& path, const SetOptions& options);
  Result<std::vector<Ref>> SetMany(const ViewIdentity& view,
                                   std::span<const SetItem> items);
  Result<Ref> Append(const ViewIdentity& view, std::string_view key,
                     std::string_view bytes, const SetOptions& options);
  Result<std::string> Get(const ViewIdentity& view, std::string_view key,
                          const LookupOptions& options);
  // View::TryGet.
  std::optional<Result<std::string>> TryGet(const ViewIdentity& view,
                                            std::string_view key,
                                            const LookupOptions& options);
  Result<Ref> RefOf(const ViewIdentity& view, std::string_view key,
                    const LookupOptions& options);
  // View::Pin: the static ref of the version a key (or a ref) names.
  Result<Ref> Pin(const ViewIdentity& view, std::string_view key,
                  const LookupOptions& options);
  Result<Ref> Pin(const ViewIdentity& view, const Ref& ref);
  Result<std::string> ReadRange(const ViewIdentity& view, const Ref& ref,
                                uint64_t offset, uint64_t length);
  Status Scan(const ViewIdentity& view, const Ref& ref, uint64_t offset,
              uint64_t length, uint64_t piece_bytes,
              const std::function<bool(std::string_view)>& sink);
  Result<ObjectMeta> Stat(const ViewIdentity& view, std::string_view key,
                          const LookupOptions& options);
  // Writes a tombstone in `state`: kDeleted (Remove) or kMissing.
  Status Remove(const ViewIdentity& view, std::string_view key,
                const LookupOptions& options, VersionState state);
  Result<ListPage> List(const ViewIdentity& view, const ListFilter& filter);
  Result<ListPage> ListEveryScope(const ListFilter& filter);
  // List over the session-only (memory engine's) values alone.
  Result<ListPage> ListSessionOnly(const ViewIdentity& view,
                                   const ListFilter& filter);
  Result<std::vector<VersionMeta>> Versions(const ViewIdentity& view,
                                            std::string_view key,
                                            const LookupOptions& options);
  Result<std::vector<VersionMeta>> Versions(const ViewIdentity& view,
                                            const Ref& ref);
  Result<ObjectMeta> Stat(const ViewIdentity& view, const Ref& ref);
  Result<Ref> Promote(const ViewIdentity& view, std::string_view key);
  Result<Ref> Rename(const ViewIdentity& view, std::string_view from_key,
                     std::string_view to_key, const LookupOptions& options);
  Result<uint64_t> CountTokens(const ViewIdentity& view, std::string_view key,
                               const LookupOptions& options);
  Result<uint64_t> CountTokens(const ViewIdentity& view, const Ref& ref);
  Status EndSession(std::string_view session_id);
  Result<StoreStats> Stats();
  Result<std::vector<UsageRow>> Usage();
  Result<GarbageReport> CollectGarbage(const GarbageOptions& options);  // gc.cc
  const std::string& home() const { return options_.home; }
  bool read_only() const { return options_.read_only; }
  storage::Backend& backend() { return *backend_; }
  // The metadata of a record of the durable engine.
  ObjectMeta DurableMetaOf(const storage::ObjectRecord& record) const {
    return MetaOf(backend_.get(), record);
  }

 private:
  static Result<std::unique_ptr<storage::Backend>> OpenBackend(
      Options* options);
  // Where a key was found: the engine holding it and its record.
  struct Located {
    storage::Backend* engine = nullptr;
    storage::ObjectRecord record;
  };
  // A resolved present version ready to read.
  struct Target {
    storage::Backend* engine = nullptr;
    storage::VersionRecord record;
    uint64_t version = 0;  // record.version (never 0).
    uint64_t size_bytes = 0;
    ValueType type = ValueType::kText;
  };
  // List over `engines`' objects in `scopes` (none: every scope).
  Result<ListPage> ListIn(std::span<const Scope> scopes,
                          const ListFilter& filter,
                          std::span<storage::Backend* const> engines);
  // The latest metadata of the object `where` holds.
  ObjectMeta MetaOf(const Located& where);
  // The static ref of `target`, a version of the object `where` holds.
  Ref PinnedRef(const Located& where, const Target& target);

  StoreImpl(Options options, std::unique_ptr<storage::Backend> backend,
            std::string instance_tag, std::unique_ptr<RefTagger> tagger);

  std::array<storage::Backend*, 2> Engines() const {
    return {backend_.get(), session_engine_.get()};
  }
  bool InMemory(const storage::Backend* engine) const {
    return engine == session_engine_.get();
  }
  // The metadata of a record `engine` holds (ids of the memory engine's
  // objects carry the instance tag).
  ObjectMeta MetaOf(const storage::Backend* engine,
                    const storage::ObjectRecord& record) const;
  // The static ref of the version a write produced.
  Ref WrittenRef(const storage::Backend* engine,
                 const storage::WriteResult& written) const;

  // Scope for a write: "" and "global" -> global; own agent/session.
  Result<Scope> WriteScope(const ViewIdentity& view,
                           const ScopeName& name) const;
  // Scopes a lookup searches, most specific first (at most three).
  struct ScopeList {
    std::array<Scope, 3> items;
    size_t size = 0;
    const Scope* begin() const { return items.data(); }
    const Scope* end() const { return items.data() + size; }
    const Scope& front() const { return items[0]; }
  };
  Result<ScopeList> LookupScopes(const ViewIdentity& view,
                                 const ScopeName& name) const;
  // What the caches alone say `key` names for a view looking through
  // `scopes`: the live object (a session-only one shadowing a durable one in
  // its scope) or NotFound; nullopt when they cannot tell (a scope's record
  // is not cached, or, with `wait` false, finding session-only values would
  // wait for another thread).
  std::optional<Result<Located>> CachedLocateLocked(const ScopeList& scopes,
                                                    std::string_view key,
                                                    bool wait) REQUIRES(mu_);
  // NotFound for `key` in no scope of `scopes`.
  static Status NotFoundIn(const ScopeList& scopes, std::string_view key);
  // RefOf's common case answered from the caches alone; nullopt when the
  // caches cannot decide.
  std::optional<Result<Ref>> CachedRefLocked(const ScopeList& scopes,
                                             std::string_view key)
      REQUIRES(mu_);
  // Finds the live object `key` names for the view; NotFound otherwise.
  // With `include_removed`, a removed object is found too (for reading its
  // numbered versions).
  Result<Located> Locate(const ViewIdentity& view, std::string_view key,
                         const ScopeName& scope, bool include_removed = false);
  // The version `version` (0: latest) of a located object.
  Result<Target> TargetOf(const Located& where, uint64_t version);
  // TargetOf given the version's record as read (NotFound: no such
  // version): NotFound too for a tombstone.
  Result<Target> TargetFrom(const Located& where, uint64_t version,
                            Result<storage::VersionRecord> v);
  Result<Target> TargetOfRef(const ViewIdentity& view, const Ref& ref);
  // InvalidArgument when a static ref's type or size disagrees with the
  // version it pins.
  static Status CheckPinnedFields(const Ref& ref, const Target& target);
  Result<std::vector<VersionMeta>> VersionsOf(const Located& where);
  // The object a ref names, by id (a capability: any scope). NotFound,
  // as UnresolvedRef, when no object has the ref's id and key or the view
  // may not read it (MayRead); NotFound when a dynamic ref's object was
  // removed; Unavailable for another instance's session-only value.
  Result<Located> LocateRef(const ViewIdentity& view, const Ref& ref);
  // True when `view` may read `record` through `ref`: the object is in one
  // of the view's scopes, or the ref carries its capability tag.
  bool MayRead(const ViewIdentity& view, const Ref& ref,
               const storage::ObjectRecord& record) const;
  // The one refusal of a ref that does not resolve for the view: its text
  // depends on the ref alone, never on what the store holds, and names no
  // scope or owner (docs/security.md).
  static Status UnresolvedRef(const Ref& ref);
  Result<std::string> ReadTarget(const Target& target, uint64_t offset,
                                 uint64_t length);

  // The kept token count of `target`, or counts it by range and keeps it.
  // `scope`/`key` name the object in the record cache, to update it too.
  Result<uint64_t> CountTarget(const Target& target, const Scope& scope,
                               std::string_view key);

  // The engine a write to (scope, key) goes to: the memory engine when
  // asked (persist=false) or when it holds a live object there already
  // (appends only; a durable Set over it is refused).
  Result<storage::Backend*> WriteEngine(const Scope& scope,
                                        std::string_view key,
                                        const SetOptions& options, bool append);
  // A Set checked and turned into its engine's request (hash and token
  // count taken), written by Set or, many at once, SetMany.
  struct PreparedPut {
    storage::Backend* engine = nullptr;
    storage::PutRequest request;
  };
  Result<PreparedPut> PreparePut(const ViewIdentity& view, std::string_view key,
                                 std::string_view value,
                                 const SetOptions& options);
  // Set's work, `value` taken from `staged_file` of `engine` when given
  // (a file from Backend::StageFile that `value` maps), which the engine
  // may move into place.
  Result<Ref> PutValue(const ViewIdentity& view, std::string_view key,
                       std::string_view value, const SetOptions& options,
                       storage::Backend* engine,
                       const std::string& staged_file);
  // SetFile of a file `engine` has staged as `staged_file`: maps it as the
  // value, puts it, and drops the staged file whatever happens.
  Result<Ref> SetStaged(const ViewIdentity& view, std::string_view key,
                        storage::Backend* engine,
                        const std::string& staged_file,
                        const SetOptions& options);
  // Caches what a put wrote; returns the static ref of its version.
  Ref AfterPut(storage::Backend* engine, const storage::WriteResult& written,
               std::string_view value) EXCLUDES(mu_);
  // Looks up (scope, key) through the record cache.
  Result<storage::ObjectRecord> FindDurable(const Scope& scope,
                                            std::string_view key);
  // The durable object `id`, which a ref names as (scope, key), through
  // the record cache (the record it returns may have another scope or key).
  Result<storage::ObjectRecord> DurableObject(const Scope& scope,
                                              std::string_view key, int64_t id);
  Result<storage::VersionRecord> DurableVersion(int64_t id, uint64_t version);
  void Remember(const storage::ObjectRecord& record) REQUIRES(mu_);
  // Drops the cached record of `key` before a write commits, so no reader
  // of this process is served the old record from the cache once the new
  // one is visible in the engine (a reader that fetches the old one from
  // the engine meanwhile cannot replace the newer record Remember keeps).
  void Forget(const Scope& scope, std::string_view key) EXCLUDES(mu_);
  void Remember(const storage::VersionRecord& record) REQUIRES(mu_);
  void SyncRecordCache();
  // Forgets cached versions and values after a collection.
  void ForgetCachedVersions();
  // Clears the record caches when `counter` says another process committed.
  void ApplyChangeCounterLocked(const Result<uint64_t>& counter) REQUIRES(mu_);

  std::string TagFor(std::string_view id, const Scope& scope,
                     std::string_view key) const;
  static VersionMeta VersionMetaOf(const storage::VersionRecord& record);

  const Options options_;
  const std::unique_ptr<storage::Backend> backend_;  // The durable engine.
  const std::string instance_tag_;
  // Null when the store has no ref secret (a read-only store made by an
  // earlier build): refs then carry no tag and resolve only in their
  // owner's view.
  const std::unique_ptr<RefTagger> tagger_;
  // Cached durable values and session-only payloads, under one ceiling
  // (thread-safe itself); declared before the engine that uses it.
  storage::MemoryTier memory_;
  const std::unique_ptr<storage::MemoryBackend> session_engine_;

  core::Mutex mu_;
  // Latest durable object records by "<scope>\n<key>", so RefOf and lookups
  // of hot keys skip the database. Our own writes update it; any commit by
  // another connection (seen through Backend::ChangeCounter) clears it.
  // A nullopt entry records that the key is absent from that scope.
  std::unordered_map<std::string, std::optional<storage::ObjectRecord>> records_
      GUARDED_BY(mu_);
  uint64_t records_counter_ GUARDED_BY(mu_) = 0;
  // RefOf answers by "<session>\n<agent>\n<scope name>\n<key>", valid until
  // the next write in this instance or outside it (both clear it).
  std::unordered_map<std::string, Ref> ref_memo_ GUARDED_BY(mu_);
  // Immutable version records by (object id, version); bounded.
  std::unordered_map<storage::CacheKey, storage::VersionRecord,
                     storage::CacheKeyHash>
      versions_ GUARDED_BY(mu_);
};

}  // namespace ctxkit

#endif  // CTXKIT_STORE_STORE_IMPL_H_
