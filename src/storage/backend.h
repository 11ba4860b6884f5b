// The storage engine interface. Everything above storage/ talks to a
// Backend and never knows which engine sits behind it: the embedded SQLite
// engine (the default), the PostgreSQL engine (many machines, one store),
// or the memory engine of session-only values.
//
// A Backend owns durable objects, their versions, their content (inline or
// as blobs) and their tags. Each mutating call is one atomic transaction:
// it either happens entirely or leaves the store as it was.
//
// Thread safety: implementations are thread-safe.

#ifndef CTXKIT_STORAGE_BACKEND_H_
#define CTXKIT_STORAGE_BACKEND_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ctxkit/ref.h"
#include "ctxkit/status.h"
#include "ctxkit/types.h"
#include "os/read_only_error.h"  // ReadOnlyError: every engine's refusal

namespace ctxkit::storage {

struct ObjectRecord {
  int64_t id = 0;
  Scope scope;
  std::string key;
  ValueType type = ValueType::kText;  // Of the latest present version.
  uint64_t latest_version = 0;        // Tombstones included.
  bool deleted = false;               // Latest version is a tombstone.
  uint64_t size_bytes = 0;            // Of the latest present version.
  int64_t created_unix_ns = 0;
  int64_t updated_unix_ns = 0;
  std::vector<std::string> tags;  // Sorted.
  // o200k_base tokens of the latest version, when counted.
  std::optional<uint64_t> tokens;
};

// An object as of its latest change (Backend::ListChanged).
struct ChangedObject {
  uint64_t stamp = 0;
  ObjectRecord object;  // `tags` is not loaded.
};

struct VersionRecord {
  int64_t object_id = 0;
  uint64_t version = 0;
  VersionState state = VersionState::kPresent;
  ValueType type = ValueType::kText;
  std::string hash;  // 32 raw bytes; empty for tombstones.
  uint64_t size_bytes = 0;
  int64_t created_unix_ns = 0;
  std::string producer;
  // Appendable types (streams, chats): the version that started the current
  // run of appends (the content of version N is every chunk from
  // stream_base to N). 0 for content held whole (every other type, and
  // chats written by earlier builds).
  uint64_t stream_base = 0;
  // o200k_base tokens of the content, when counted (versions.tokens).
  std::optional<uint64_t> tokens;
};

struct PutRequest {
  Scope scope;
  std::string key;
  ValueType type = ValueType::kText;
  std::string_view content;
  std::string hash;  // SHA-256 of content, computed by the caller.
  std::vector<std::string> tags;
  std::string producer;
  int64_t now_unix_ns = 0;
  // o200k_base tokens of content, when the caller counted them.
  std::optional<uint64_t> tokens;
  // Non-zero: write only while the object's latest version (tombstones
  // included) is this one; compare-and-set for read-modify-write callers.
  uint64_t expected_version = 0;
  // The memory engine's owner of an object it creates (MemoryBackend::
  // DropOwnedBy); durable engines ignore it.
  std::string owner;
  // Non-empty: a file from this engine's StageFile holding exactly
  // `content` (which maps it). The engine may move it into place instead
  // of writing `content` out again; the caller drops it afterwards with
  // DropStaged either way.
  std::string staged_file;
};

struct AppendRequest {
  Scope scope;
  std::string key;
  // The type of an object the append creates (IsAppendableType); an
  // append that continues keeps the object's type.
  ValueType type = ValueType::kStream;
  std::string_view bytes;
  std::string hash;               // SHA-256 of bytes.
  std::vector<std::string> tags;  // Used only when the stream is created.
  std::string producer;
  int64_t now_unix_ns = 0;
  // Non-zero: append only while the object's latest version is this one.
  uint64_t expected_version = 0;
  std::string owner;  // As PutRequest::owner.
};

// A token count learned after the version was written.
struct TokenCount {
  int64_t object_id = 0;
  uint64_t version = 0;
  uint64_t tokens = 0;
};

struct WriteResult {
  ObjectRecord object;
  VersionRecord version;
};

struct ObjectQuery {
  std::vector<Scope> scopes;  // Non-empty: objects in any of these.
  std::optional<ValueType> type;
  std::string key_prefix;
  std::vector<std::string> tags;  // All must be present.
  // Keyset pagination: only objects ordered after (key, scope string).
  std::optional<std::pair<std::string, std::string>> after;
  size_t limit = 100;
  bool include_deleted = false;
};

// One version of one object, for garbage collection and holds.
struct VersionKey {
  int64_t object_id = 0;
  uint64_t version = 0;
  friend auto operator<=>(const VersionKey&, const VersionKey&) = default;
};

// Session state: the context manager's pools (docs/sessions.md). A session
// is a small state document plus one row per pool entry, so a change
// rewrites only what changed; the documents are the session layer's JSON,
// opaque to the engine. A generation number, bumped by every write, lets
// readers tell whether their copy is stale and writers compare-and-set.
//
// Two flags per entry, set by the session layer, let a session load only
// what it renders (LoadSessionHead): `hot` entries are always loaded;
// `listed` ones are counted and read in seq order, a page at a time.
struct SessionEntryRow {
  std::string object_id;
  uint64_t seq = 0;  // Order of first appearance in the session.
  std::string entry_json;
  bool hot = true;
  bool listed = false;
};

struct SessionRecord {
  std::string id;
  uint64_t generation = 0;  // >= 1 once created.
  std::string state_json;
  std::vector<SessionEntryRow> entries;  // In no particular order.
};

struct SessionWrite {
  std::string id;
  // 0: create the session (AlreadyExists when it exists). N: the write
  // applies only while the stored generation is still N.
  uint64_t expected_generation = 0;
  std::string state_json;
  std::vector<SessionEntryRow> put_entries;  // Inserted or replaced.
  std::vector<std::string> removed_entries;  // Object ids.
  // Versions the written state names (pins, the chat and system versions,
  // compactions): held for SessionHolder(id) in the same transaction
  // (Backend::AddHolds), NotFound and nothing written when one is no
  // longer stored.
  std::vector<VersionKey> holds;
};

// Stored bytes of one (scope, type, medium) group, for `ctxkit du`.
struct UsageRecord {
  // kMemory: held by the memory engine (in memory or its spill file).
  enum class Medium : uint8_t { kInline = 0, kBlob, kMemory };
  Scope scope;
  ValueType type = ValueType::kText;
  Medium medium = Medium::kInline;
  uint64_t objects = 0;   // Objects with at least one version stored so.
  uint64_t versions = 0;  // Versions (or stream appends) stored so.
  // Bytes stored: inline rows, or distinct blob files (a blob shared by
  // two groups counts in each; BackendStats has the deduplicated total).
  uint64_t bytes = 0;
};

struct CollectReport {
  uint64_t versions = 0;    // Version rows deleted.
  uint64_t bytes = 0;       // Content bytes freed (inline rows, blob files).
  uint64_t blob_files = 0;  // Blob files deleted.
};

struct BackendStats {
  uint64_t objects = 0;
  uint64_t live_objects = 0;
  uint64_t versions = 0;
  uint64_t content_bytes = 0;
  uint64_t blob_files = 0;
};

// Wakes a waiting thread when another connection or process commits to
// the store: a hint that cached state may be stale, never the state itself
// (a wake-up may come without a change a caller cares about, and wake-ups
// missed while nobody waited are not replayed; ChangeCounter and the data
// stay the truth). Thread safety: Wait from one thread at a time;
// Interrupt from any thread.
class CommitListener {
 public:
  virtual ~CommitListener() = default;
  // Blocks up to `timeout` for a commit by another connection. True when
  // one came; false after the timeout or an Interrupt. Unavailable when the
  // listener lost its connection (the next Wait reconnects; commits made
  // meanwhile gave no wake-up).
  virtual Result<bool> Wait(std::chrono::milliseconds timeout) = 0;
  // Ends the Wait in progress, or the next one, at once.
  virtual void Interrupt() = 0;
};

// Named records: small documents of the layers above the store that must
// follow the store to every machine that opens it (spawn manifests, the
// watch list, import markers), keyed by (kind, name). Kinds and names are
// the callers' (UTF-8 text without NUL); bytes are opaque to the engine.
struct StoredRecord {
  std::string kind;
  std::string name;
  std::string bytes;
  int64_t updated_unix_ns = 0;  // When this content was written.
};

struct RecordPut {
  // What a put does when (kind, name) holds a record already.
  enum class When : uint8_t {
    kAlways = 0,  // Replaces it.
    kIfAbsent,    // Keeps it; this put is skipped, not an error.
    kCreate,      // Fails the whole write (FailedPrecondition).
  };
  std::string kind;
  std::string name;
  std::string bytes;
  When when = When::kAlways;
};

struct RecordKey {
  std::string kind;
  std::string name;
};

// One entry appended to the append-only log `log` (the execution log).
struct LogAppend {
  std::string log;
  std::string bytes;
};

// Changes to records and logs applied as one transaction
// (Backend::WriteRecords): every put, removal and append, or none.
struct RecordWrite {
  std::vector<RecordPut> puts;     // In order.
  std::vector<RecordKey> removes;  // A key naming no record is skipped.
  std::vector<LogAppend> appends;  // In order, after the puts.
  int64_t now_unix_ns = 0;         // StoredRecord::updated_unix_ns.
};

// The holder name of session `id`'s holds (Backend::AddHolds); they go
// with the session (Backend::RemoveSession).
inline std::string SessionHolder(std::string_view id) {
  return "session:" + std::string(id);
}

class Backend {
 public:
  virtual ~Backend() = default;

  // Appends a version holding `content` to (scope, key), creating the object
  // when missing or reviving it when removed. Durable on return.
  // FailedPrecondition, nothing written, when request.expected_version is
  // set and is not the latest version (0 when there is no object).
  virtual Result<WriteResult> Put(const PutRequest& request) = 0;
  // Copies the regular file `fd` (from its start to its end) into a file
  // of this engine's, without passing the bytes through memory, for a Put
  // to take as its content (PutRequest::staged_file). Returns its path, or
  // "" (the default) from an engine that keeps no files: the caller then
  // reads the bytes.
  virtual Result<std::string> StageFile(int fd);
  // Removes a staged file, unless a Put has moved it into place already.
  virtual void DropStaged(const std::string& path);

  // Put of every request in order, as one write: one commit and one sync.
  // All or nothing: on any failure (an expected_version that does not hold
  // included) none is written. The default puts them one by one, which is
  // neither (the memory engine, which never gets a batch, keeps it); the
  // SQLite engine overrides it.
  virtual Result<std::vector<WriteResult>> PutBatch(
      std::span<const PutRequest> requests);

  // Appends bytes to the appendable value (a stream or a chat) at (scope,
  // key), creating it (of request.type) when missing or removed.
  // FailedPrecondition, nothing written, when the latest version is not
  // appendable (another type, or a chat written whole by an earlier build)
  // or is not request.expected_version.
  virtual Result<WriteResult> Append(const AppendRequest& request) = 0;

  // Writes a tombstone version in `state` (kDeleted, or kMissing for a
  // watched source that is gone). NotFound when there is no live object.
  virtual Result<WriteResult> Remove(const Scope& scope, std::string_view key,
                                     std::string_view producer,
                                     int64_t now_unix_ns,
                                     VersionState state) = 0;

  // Moves object `id` to scope `to`, keeping id and versions. AlreadyExists
  // when `to` holds a live object with that key (a removed one there is
  // renamed out of the way by the implementation, history kept).
  virtual Result<ObjectRecord> Move(int64_t id, const Scope& to) = 0;

  // Gives object `id` the key `to_key` in its own scope, keeping id and
  // versions (a file watcher tracking a move). AlreadyExists when the scope
  // holds a live object with that key; a removed one there stays, history
  // kept, and lookups prefer the live object.
  virtual Result<ObjectRecord> Rename(int64_t id, std::string_view to_key) = 0;

  // Keeps token counts of existing versions (a cache of a pure function of
  // the content: versions that already have one, or are gone, are skipped).
  // One transaction for the whole batch.
  virtual Status RecordTokenCounts(const std::vector<TokenCount>& counts) = 0;

  virtual Result<ObjectRecord> FindObject(const Scope& scope,
                                          std::string_view key) = 0;
  // For each of `scopes` holding an object with `key`, its live object or,
  // failing that, its most recently removed one (one record per scope, in
  // no particular order). One round trip for a view's whole lookup.
  virtual Result<std::vector<ObjectRecord>> FindObjects(
      std::string_view key, const std::vector<Scope>& scopes) = 0;
  // FindObjects, and ChangeCounter() as of the same moment in *counter, in
  // one call: a lookup that misses the caller's cache checks the cache and
  // fills it at once (one round trip on a server engine instead of two).
  // The default makes the two calls.
  virtual Result<std::vector<ObjectRecord>> FindObjectsCounted(
      std::string_view key, const std::vector<Scope>& scopes,
      uint64_t* counter);
  virtual Result<ObjectRecord> GetObject(int64_t id) = 0;
  // version 0 means the latest.
  virtual Result<VersionRecord> GetVersion(int64_t id, uint64_t version) = 0;
  virtual Result<std::vector<VersionRecord>> ListVersions(int64_t id) = 0;
  virtual Result<std::vector<ObjectRecord>> ListObjects(
      const ObjectQuery& query) = 0;

  // The change feed: objects whose record (scope, key, type, latest
  // version, removal, size) changed after stamp `after`, oldest change
  // first, at most `limit`; removed objects included. Each change gives its
  // object a stamp above every earlier one in the engine, so a reader that
  // asks again after the last stamp it saw misses nothing: an object that
  // changes again moves past that stamp and is listed again, with its
  // newer record. Stamps start above 0. An engine's feed covers the objects
  // it holds (the memory engine forgets those DropOwnedBy drops).
  virtual Result<std::vector<ChangedObject>> ListChanged(uint64_t after,
                                                         size_t limit) = 0;
  // The stamp of the newest change in that feed (0 when there is none): a
  // number that moves whenever any connection or process changes an
  // object (one indexed read; the inspector's live updates).
  virtual Result<uint64_t> LatestChange() = 0;

  // Reads [offset, offset + length) of a present version's content, reading
  // only that range from the medium.
  virtual Result<std::string> Read(const VersionRecord& version,
                                   uint64_t offset, uint64_t length) = 0;

  // The whole content of each version `keys` names, in order: out[i] is
  // keys[i]'s content, or nullopt when that version is gone (collected,
  // never written) or holds none (a tombstone): what Read answers with
  // NotFound. Other errors fail the call. For bulk readers (find's index
  // sync reads a page of changed values): the SQLite engine reads every
  // inline value in one read transaction, where each Read is a transaction
  // of its own. The default calls GetVersion and Read for each key. The
  // caller bounds the total size.
  virtual Result<std::vector<std::optional<std::string>>> ReadWhole(
      std::span<const VersionKey> keys);
  // [offset, offset + length) of the version `key` names through GetVersion
  // and Read, or nullopt when that version is gone or holds no content.
  Result<std::optional<std::string>> ReadIfPresent(const VersionKey& key,
                                                   uint64_t offset,
                                                   uint64_t length);

  // Hands [offset, offset + length) of a present version's content to
  // `sink` in order, in pieces of at most `piece_bytes` (>= 1), stopping
  // early when the sink returns false. The default reads piece by piece
  // through Read (Corruption when the content ends early); engines override
  // it to scan in place (the SQLite engine maps blob files).
  virtual Status Scan(const VersionRecord& version, uint64_t offset,
                      uint64_t length, uint64_t piece_bytes,
                      const std::function<bool(std::string_view)>& sink);

  // Every version of every object (tombstones included), ordered by
  // (object_id, version), starting after `after`; at most `limit` records.
  // An empty page means the scan is done.
  virtual Result<std::vector<VersionRecord>> ScanVersions(
      const VersionKey& after, size_t limit) = 0;

  // Deletes the given versions and their contents in one transaction: the
  // history of garbage collection. Keys naming no version are skipped.
  // InvalidArgument, nothing deleted, when a key is an object's latest
  // version; FailedPrecondition, nothing deleted, when a collected version
  // of an appendable value leaves another version of its run of appends
  // (whose content includes it) behind. A blob file no remaining version
  // references is deleted once the transaction has committed.
  // FailedPrecondition, nothing deleted, when a key is held
  // (see AddHolds) as of the transaction: a hold added after the caller
  // planned its batch wins, and the caller plans again.
  virtual Result<CollectReport> CollectVersions(
      const std::vector<VersionKey>& keys) = 0;
  // What CollectVersions(keys) would report, with the same errors, changing
  // nothing: the engine does the same work in a transaction it rolls back
  // (so it needs a store it may write), and counts the blob files it would
  // delete without deleting them.
  virtual Result<CollectReport> MeasureCollect(
      const std::vector<VersionKey>& keys) = 0;

  // ---- Holds ----
  //
  // A hold keeps one version from garbage collection on behalf of a
  // holder: a name such as "session:<id>" (the context manager's pins,
  // activations, compactions and render records, and the externalized
  // contexts of that session) or "spawn:<child>" (a sub-agent's manifest).
  // Holds are how the store itself, whatever face asks it to collect, knows
  // what must stay. Adding holds and collecting exclude each other (one
  // write lock on SQLite, an advisory lock on PostgreSQL, the engine mutex
  // in memory), so a hold that was acknowledged never names a collected
  // version, and a collection never removes a version held when it ran.

  // Holds each of `keys` for `holder`, in one transaction. NotFound,
  // nothing added, when a key names no stored version (collected, or never
  // written): the caller must not publish a name for it. Keys held already
  // (by any holder) cost a read, not a write.
  virtual Status AddHolds(std::string_view holder,
                          std::span<const VersionKey> keys) = 0;
  // Every held version, sorted, each once.
  virtual Result<std::vector<VersionKey>> ListHeld() = 0;
  // Drops every hold of `holder` (nothing to drop is not an error).
  virtual Status DropHolds(std::string_view holder) = 0;
  // True while the store holds state written by a build that did not
  // record holds (a store migrated from an earlier schema): its sessions
  // and manifests must be read and their holds added before a collection
  // can trust ListHeld. MarkHoldsRecorded clears it.
  virtual Result<bool> HoldsPending() = 0;
  virtual Status MarkHoldsRecorded() = 0;

  // ---- Named records and logs ----
  //
  // State of the layers above the store that is not an object but must be
  // wherever the store is (see StoredRecord): on PostgreSQL every machine
  // sees the same records and logs. Durable on return, like Put.

  // Applies `write` in one transaction. FailedPrecondition, nothing
  // written, when a kCreate put finds its record present;
  // InvalidArgument, nothing written, when a kind, name or log is empty
  // or holds NUL.
  virtual Status WriteRecords(const RecordWrite& write) = 0;
  // The record (kind, name); nullopt when there is none.
  virtual Result<std::optional<StoredRecord>> GetRecord(
      std::string_view kind, std::string_view name) = 0;
  // Every record of `kind`, sorted by name (bytewise).
  virtual Result<std::vector<StoredRecord>> ListRecords(
      std::string_view kind) = 0;
  // The last `limit` entries of log `log`, oldest first (empty when it has
  // none). Entries keep the order their writes committed in.
  virtual Result<std::vector<std::string>> ReadLog(std::string_view log,
                                                   size_t limit) = 0;

  virtual Result<BackendStats> Stats() = 0;
  // Stored bytes grouped by scope, type and medium (a full scan: for
  // maintenance, not for hot paths). Sorted by scope, type, medium.
  virtual Result<std::vector<UsageRecord>> Usage() = 0;

  // ---- Session state ----

  // The stored generation of session `id`; nullopt when there is none.
  virtual Result<std::optional<uint64_t>> SessionGeneration(
      std::string_view id) = 0;
  // The whole session, read in one snapshot. NotFound when there is none.
  virtual Result<SessionRecord> LoadSession(std::string_view id) = 0;
  // Part of the session, read in one snapshot: its state, every hot entry,
  // and the first `listed_limit` listed entries by seq (hot or not; an
  // entry both hot and among them appears once). NotFound when there is
  // none. The SQLite and PostgreSQL engines do work proportional to what
  // it returns, not to the session's entries; the memory engine scans
  // them.
  virtual Result<SessionRecord> LoadSessionHead(std::string_view id,
                                                size_t listed_limit) = 0;
  // How many of the session's entries are listed: a scan of an index of
  // them (the session layer keeps the count in its state, and calls this
  // only for a state written before it did). NotFound when there is no
  // session.
  virtual Result<uint64_t> CountListedSessionEntries(std::string_view id) = 0;
  // The entries of `object_ids` that the session holds (the others are
  // left out), with the session's generation, read in one snapshot;
  // state_json is left empty. NotFound when there is no session.
  virtual Result<SessionRecord> LoadSessionEntries(
      std::string_view id, const std::vector<std::string>& object_ids) = 0;
  // A conditional put of a session (see SessionWrite), in one transaction;
  // returns the new generation (expected + 1). FailedPrecondition, with the
  // store unchanged, when the session's generation is no longer the
  // expected one (another writer came first: reload and retry); NotFound
  // when it was removed.
  virtual Result<uint64_t> WriteSession(const SessionWrite& write) = 0;
  // Every session id, sorted.
  virtual Result<std::vector<std::string>> ListSessions() = 0;
  // Deletes the session's state and entries (not the objects they name),
  // and the holds of holder SessionHolder(id), in one transaction.
  // NotFound when there is none.
  virtual Status RemoveSession(std::string_view id) = 0;

  // A number that changes whenever another connection or process commits,
  // so callers can tell when their caches of records may be stale. Commits
  // through this Backend do not change it.
  virtual Result<uint64_t> ChangeCounter() = 0;
  // ChangeCounter() when it can be had at once: no query, no file access and
  // no wait on a lock another thread holds, and only when the value would
  // not move (nothing committed elsewhere since the last ChangeCounter()).
  // nullopt otherwise (engines that cannot tell without a query always);
  // call ChangeCounter() then.
  virtual std::optional<uint64_t> TryChangeCounter() { return std::nullopt; }
  // A listener for commits made elsewhere (PostgreSQL: LISTEN/NOTIFY on a
  // connection of its own), or nullptr when the engine has no wake-up and
  // callers must poll ChangeCounter (SQLite, memory).
  virtual Result<std::unique_ptr<CommitListener>> ListenForCommits() {
    return std::unique_ptr<CommitListener>();
  }

  // ---- Keys ----

  // The secret that keys refs' capability tags: 32 random bytes made when
  // the store was created (or first opened by a build that has them) and
  // the same for every process that opens the store.
  virtual Result<std::string> RefSecret() = 0;
};

// The FailedPrecondition every engine returns when a conditional write
// finds (scope, key) at version `at` rather than `expected`.
Status VersionMoved(std::string_view key, uint64_t at, uint64_t expected);

}  // namespace ctxkit::storage

#endif  // CTXKIT_STORAGE_BACKEND_H_
