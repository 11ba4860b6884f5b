// The context store: versioned objects addressed by key within a scope, read
// through views and passed around as refs.
//
//   auto store = ctxkit::Store::Open({});          // the default home
//   auto view = (*store)->OpenView("planner", "run-42");
//   auto ref = view->Set("report", text, {});     // durable on return
//   std::string wire = ctxkit::FormatRef(*ref);   // what an agent holds
//   auto value = view->Resolve(*ctxkit::ParseRef(wire));
//
// Objects. Each object has a stable id, a key unique within its scope, and
// a history of versions. Set on an existing key appends a version; the id
// never changes. Remove appends a tombstone version: the key stops
// resolving, the history stays (static refs to earlier versions still
// resolve). Set after Remove revives the same object with a new version.
//
// Scopes and views. A View is bound to an agent id and a session id (either
// may be empty). It sees the global scope, its own agent scope and its own
// session scope. Lookup by key searches session, then agent, then global.
// Naming another agent's or session's scope is PermissionDenied, never the
// value. A Ref, by contrast, is a capability: Resolve reads the object it
// names whatever its scope.
//
// Tiers. persist=true values (the default) are durable when Set returns:
// committed to the embedded SQLite database (WAL) or to a content-addressed
// blob file, fsynced according to Options::durability. persist=false values
// are session-only: they live in this Store instance's memory tier, spill
// to an unlinked private file above Options::spill_threshold_bytes or under
// memory pressure, and vanish when their session ends (EndSession) or the
// process exits. They are never written to the database.
//
// Memory. Cached durable values and resident session-only values together
// stay under Options::memory_ceiling_bytes (LRU: durable values are evicted
// first, session-only values spill). Fixed per-object bookkeeping outside
// that ceiling is documented in docs/storage-format.md.
//
// Processes. Several processes may open one store at once; SQLite's locking
// serializes writers (waiting up to Options::busy_timeout_ms).
//
// Thread safety: Store and View are thread-safe; a View is a small value
// that refers to its Store and must not outlive it.

#ifndef CTXKIT_STORE_H_
#define CTXKIT_STORE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ctxkit/progress.h"
#include "ctxkit/ref.h"
#include "ctxkit/status.h"
#include "ctxkit/target.h"  // Target, LookupOptions, ScopeName.
#include "ctxkit/types.h"   // Durability, VersionState.

namespace ctxkit {

class StoreImpl;
class View;

struct Options {
  // The store root, required: Store::Open fails with InvalidArgument when it
  // is empty rather than guessing from the environment (the library reads
  // no environment variable; a program that wants the CLI's default passes
  // ResolveHome("") from ctxkit/environment.h). A relative path is taken from
  // the working directory. Created with parents when missing.
  std::string home;
  // Where durable state lives. Empty: the embedded SQLite engine under
  // `home` (the default). Otherwise a libpq connection string
  // ("postgresql://host/db?..." or "host=... dbname=..."): the store lives
  // in that PostgreSQL database, in the connection's current schema, shared
  // by every process and machine that opens it (docs/postgres.md); `home`
  // then holds only what is local to this machine (search indexes, spill
  // files). Unavailable when the server cannot be reached. No error
  // message ever shows the URL's password.
  std::string store_url;
  // Byte ceiling of the memory tier (cached values + session-only values).
  uint64_t memory_ceiling_bytes = 256ull << 20;
  // Session-only values larger than this spill to disk at once.
  uint64_t spill_threshold_bytes = 32ull << 10;
  // Contents up to this size are kept inside the database; larger ones are
  // blob files under <home>/blobs/.
  uint64_t inline_max_bytes = 64ull << 10;
  Durability durability = Durability::kFull;
  // How long a writer waits for another process's write lock.
  int busy_timeout_ms = 30000;
  // Set counts the o200k_base tokens of every value up to this size before
  // it returns and keeps the count with the version, so listings, stats
  // and sessions show tokens without reading content (about 20 ns per
  // byte: 8 MiB costs ~0.2 s). Larger values are counted on first request
  // (View::CountTokens), or at write with SetOptions::count_tokens. The
  // same for every face: the CLI, MCP, Python and Node all write through
  // it. 0 counts only on request.
  uint64_t count_tokens_max_bytes = 8ull << 20;
  // Opens an existing store for reading only: nothing under `home` is
  // created or written, and every durable write (set, append, remove,
  // promote, gc, session state) fails with PermissionDenied, leaving the
  // store as it was. Session-only values still work (they spill to the
  // system's temporary directory). A store whose directory or database
  // file this process may not write (file permissions, a read-only mount)
  // opens this way on its own. NotFound when `home` holds no store; a store
  // of an older schema must be opened writable once to migrate it.
  bool read_only = false;
};

// `home` made absolute (from the working directory) without a trailing
// '/': how Store::Open names its root. InvalidArgument when it is empty or
// contains a NUL byte. (The faces' default root, from --home or the
// environment, is ResolveHome in ctxkit/environment.h.)
Result<std::string> AbsoluteHome(std::string_view home);

// ScopeName (which of the view's scopes an operation names) and
// LookupOptions are in ctxkit/target.h.

// The one scope a non-empty ScopeName names for a view bound to `agent_id`
// and `session_id` (either may be empty), as every View call resolves it;
// "" and "global" name the global scope (where an unscoped Set writes).
// InvalidArgument for a malformed name or "agent"/"session" when the view
// has no such id; PermissionDenied for another agent's or session's scope.
// Faces use it to check a --scope argument before they open a store.
Result<Scope> ResolveScopeName(const ScopeName& name, std::string_view agent_id,
                               std::string_view session_id);

struct SetOptions {
  ScopeName scope;
  // Set: the value's type. Append: the type of an object it creates, when
  // appendable (stream or chat, see IsAppendableType); any other type, the
  // default included, creates a stream. An append that continues keeps the
  // object's type.
  ValueType type = ValueType::kText;
  // false: a session-only value (see Tiers above).
  bool persist = true;
  // Replaces the object's tags. Each tag: 1-64 bytes, no control characters.
  std::vector<std::string> tags;
  // Free-form label of the writer ("agent:planner", "tool:grep", ...).
  std::string producer;
  // Count the value's o200k_base tokens before Set returns and keep the
  // count with the version (ObjectMeta/VersionMeta::tokens), whatever its
  // size. Values up to Options::count_tokens_max_bytes are counted so
  // anyway; larger ones otherwise on the first View::CountTokens. Ignored
  // by Append (a stream's count is taken lazily, of the whole prefix).
  bool count_tokens = false;
  // Compare-and-set: non-zero writes (Set) or appends (Append) only while
  // the object's latest version, tombstones included, is this one
  // (FailedPrecondition otherwise, the store unchanged). A writer that read
  // version N so replaces or extends exactly N, never another writer's
  // version. 0 writes unconditionally.
  uint64_t expected_version = 0;
};

struct ObjectMeta {
  std::string id;
  std::string key;
  Scope scope;
  // The capability tag refs to this object carry (Ref::tag); StaticRefOf
  // copies it.
  std::string ref_tag;
  ValueType type = ValueType::kText;
  uint64_t size_bytes = 0;
  uint64_t version = 0;  // The latest version.
  int64_t created_unix_ns = 0;
  int64_t updated_unix_ns = 0;
  std::vector<std::string> tags;
  bool persistent = true;
  // o200k_base tokens of the latest version, once counted (see
  // SetOptions::count_tokens and View::CountTokens); empty until then.
  std::optional<uint64_t> tokens;
};

struct VersionMeta {
  uint64_t version = 0;
  VersionState state = VersionState::kPresent;
  ValueType type = ValueType::kText;
  uint64_t size_bytes = 0;
  // Lower-case hex SHA-256 of the content (for appendable types, streams
  // and chats: of the bytes this version appended, or of the whole value
  // when a Set wrote it). Empty for tombstones.
  std::string content_hash;
  int64_t created_unix_ns = 0;
  std::string producer;
  // o200k_base tokens of this version's content, once counted.
  std::optional<uint64_t> tokens;
};

struct ListFilter {
  // "" lists every scope the view sees; otherwise one ScopeName.
  ScopeName scope;
  std::optional<ValueType> type;
  std::string key_prefix;
  // Objects carrying every one of these tags.
  std::vector<std::string> tags;
  // Page size, 1-10,000.
  size_t limit = 100;
  // Opaque; from ListPage::next_cursor of the previous page.
  std::string cursor;
};

struct ListPage {
  // Ordered by key, then scope.
  std::vector<ObjectMeta> items;
  // Empty on the last page.
  std::string next_cursor;
};

struct StoreStats {
  uint64_t objects = 0;       // Durable objects, removed ones included.
  uint64_t live_objects = 0;  // Durable objects not removed.
  uint64_t versions = 0;
  // Durable content bytes stored: small contents inline (one copy per
  // version) plus blob files (deduplicated by SHA-256).
  uint64_t content_bytes = 0;
  uint64_t blob_files = 0;
  uint64_t memory_ceiling_bytes = 0;
  uint64_t memory_used_bytes = 0;  // Cached + resident session-only bytes.
  uint64_t cached_values = 0;
  uint64_t session_objects = 0;  // Session-only objects in this instance.
  uint64_t session_resident_bytes = 0;
  uint64_t session_spilled_bytes = 0;
  uint64_t evictions = 0;
  uint64_t spills = 0;
};

// Stored bytes of one group of versions, as `ctxkit du` shows them.
// Garbage collection (Store::CollectGarbage, `ctxkit gc`).
struct GarbageOptions {
  // A superseded version is collected once the version after it is older
  // than this (so a reader who just took a static ref keeps it for at least
  // this long). Default: 7 days.
  int64_t retention_seconds = 7 * 24 * 3600;
  // false: a dry run that reports what would be collected and changes
  // nothing.
  bool apply = false;
  // Static refs whose versions are also kept, beyond what the store keeps
  // by itself: every version a session, an externalized context or a
  // spawn manifest names is held in the store as it is written, and never
  // collected while its holder lives. Dynamic and session-only refs are
  // ignored.
  std::vector<Ref> keep;
  // Reports as the versions are read (ctxkit/progress.h): task
  // "collecting" ("checking" in a dry run), counted in versions, without
  // a total.
  ProgressOptions progress;
};

// Collected (or, in a dry run, collectable) versions of one scope and type.
struct GarbageRow {
  Scope scope;
  ValueType type = ValueType::kText;
  uint64_t versions = 0;
  // Content the versions themselves stored (an append's own bytes). Blob
  // files shared with kept versions stay, so freed bytes may be fewer.
  uint64_t bytes = 0;
};

struct GarbageReport {
  bool applied = false;
  uint64_t versions_scanned = 0;
  uint64_t versions = 0;     // Collected or collectable.
  uint64_t bytes = 0;        // As GarbageRow::bytes, summed.
  uint64_t kept_by_ref = 0;  // Collectable by age but named by `keep`.
  // Content bytes freed on disk (inline rows, whole blob files: a blob a
  // kept version shares stays), and blob files deleted; a dry run reports
  // what applying would free, measured the same way (the engine collects
  // each batch in a transaction it rolls back, so a dry run needs a store
  // it may write). A blob shared only by versions of two different batches
  // is counted by the apply, not by the dry run.
  uint64_t freed_bytes = 0;
  uint64_t blob_files = 0;
  std::vector<GarbageRow> rows;  // Sorted by scope, type.
};

struct UsageRow {
  Scope scope;
  ValueType type = ValueType::kText;
  // Where the bytes are: "inline" (rows of the store database), "blob"
  // (content-addressed files under <home>/blobs; a blob shared by two rows
  // counts in each, StoreStats::content_bytes is the deduplicated total) or
  // "session" (session-only values of this Store instance, in memory or in
  // its spill file).
  std::string tier;
  uint64_t objects = 0;   // Objects with at least one version stored so.
  uint64_t versions = 0;  // Versions (stream appends) stored so.
  uint64_t bytes = 0;
};

// A static ref to the version `meta` describes (its latest, as Stat and
// List return it), built without a lookup.
Ref StaticRefOf(const ObjectMeta& meta);
// A static ref to version `version` (as Versions returns it) of the object
// any ref `object` names, built without a lookup. Meaningless for a
// tombstone.
Ref StaticRefOf(const Ref& object, const VersionMeta& version);

class Store {
 public:
  // Opens (creating when missing) the store at options.home. Fails with
  // IoError when the directory or database cannot be opened, Corruption
  // when the schema version is newer than this build understands.
  static Result<std::unique_ptr<Store>> Open(const Options& options);

  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;
  ~Store();

  // A view bound to `agent_id` and `session_id`; either may be empty (no
  // such scope). InvalidArgument for a malformed id.
  Result<View> OpenView(std::string_view agent_id, std::string_view session_id);

  // Drops every session-only value owned by `session_id` in this instance.
  Status EndSession(std::string_view session_id);

  // Counts from the database plus this instance's memory tier. Fails
  // (IoError, Unavailable) when the database cannot be read.
  Result<StoreStats> Stats();
  // Stored bytes by scope, type and tier (every durable version, removed
  // objects and superseded versions included, plus this instance's
  // session-only values), sorted by scope, type, tier. A full scan of the
  // store's metadata: for maintenance, not hot paths.
  Result<std::vector<UsageRow>> Usage();

  // The operator's listing: objects of every scope (filter.scope "": all of
  // them; otherwise one fully qualified scope, "global", "agent:<id>" or
  // "session:<id>"), as View::List pages them. For tools that may read the
  // whole store (the inspector); an agent lists through its view.
  Result<ListPage> ListEveryScope(const ListFilter& filter);

  // Removes superseded versions of durable objects older than the
  // retention (see GarbageOptions), never an object's latest version (a removed
  // object keeps its tombstone), never a version a session, externalized
  // context or spawn manifest holds, never one `options.keep` names. A
  // session that pins a version while a collection runs either sees its
  // pin acknowledged and the version kept, or gets NotFound: an
  // acknowledged pin, activation or render record never names a collected
  // version. FailedPrecondition, nothing collected, on a store whose
  // sessions or manifests were written by a build that did not record what
  // they hold, until a face (`ctxkit gc`, Python, MCP) has recorded it. A
  // run of appends (a stream or chat since its last whole write) is
  // collected whole or not at all, since each version's content includes
  // the earlier ones. Collected versions read NotFound afterwards (another
  // process may serve one it had cached until it sees the change). A
  // failure leaves the store as it was for the batch that failed; batches
  // already applied stay applied. Session-only values are not collected
  // (they end with their session).
  Result<GarbageReport> CollectGarbage(const GarbageOptions& options);
  const std::string& home() const;
  // Opened read-only (Options::read_only, asked for or found): faces keep
  // their own derived state in memory instead of under home().
  bool read_only() const;

 private:
  friend class View;
  // ctxkit's own layers that keep durable state through the storage engine
  // (session state) reach it here; see src/store/store_internals.h.
  friend class StoreInternals;
  explicit Store(std::unique_ptr<StoreImpl> impl);
  std::unique_ptr<StoreImpl> impl_;
};

// One write of View::SetMany: what one View::Set call takes.
struct SetItem {
  std::string_view key;
  std::string_view value;
  SetOptions options;
};

class View {
 public:
  // Stores `value` under `key`; returns the static ref of the version this
  // call wrote (never another writer's: concurrent Sets of one key each get
  // their own version). Take Ref::Dynamic() of it to follow the latest.
  // InvalidArgument for a bad key, tag or scope name, or (type json) a value
  // that is not valid JSON; FailedPrecondition when options.expected_version
  // is set and the key is at another version, or when persist=true meets a
  // session-only value of the key; the store is unchanged then.
  Result<Ref> Set(std::string_view key, std::string_view value,
                  const SetOptions& options = {});

  // Set of the whole content of the file at `path`. A large regular file
  // (1 MiB and more) going to the default engine is copied into the store
  // by the kernel and hashed from that copy, read through a mapping: its
  // bytes are never copied into a buffer of this process, and a change to
  // the file during the call cannot leave a version that disagrees with
  // its hash (the version holds the file as copied). Other files (small ones,
  // pipes, a session-only value, the PostgreSQL engine) are read and stored as
  // Set stores them. NotFound, PermissionDenied or IoError when the file cannot
  // be read; otherwise fails as Set does, and the store is unchanged then.
  Result<Ref> SetFile(std::string_view key, const std::string& path,
                      const SetOptions& options = {});

  // Set of every item, in order, as one write: one commit and one sync for
  // the whole batch, so a thousand small values cost about what one does.
  // All or nothing: when any item fails (a bad key, tag or JSON value, an
  // expected_version that does not hold, ...) nothing is written. A key
  // may appear more than once (later items write later versions). Items
  // must persist: InvalidArgument for a session-only one (use Set). Returns
  // the static refs of the versions written, in item order.
  Result<std::vector<Ref>> SetMany(std::span<const SetItem> items);

  // Appends bytes to an appendable value (a stream or a chat), creating it
  // (in options.scope, of options.type when appendable, else a stream) when
  // missing or removed. Each append is a new version whose content is the
  // previous version's plus `bytes`; only the appended bytes are stored.
  // A Set of an appendable type writes a whole value that later appends
  // continue. Returns the static ref of the version written.
  // FailedPrecondition, the store unchanged, when the key holds a type
  // that is not appendable, a chat written whole by an earlier build (Set
  // it again first), or (options.expected_version) another version.
  Result<Ref> Append(std::string_view key, std::string_view bytes,
                     const SetOptions& options = {});

  // The whole value. For large values prefer ReadRange.
  Result<std::string> Get(std::string_view key,
                          const LookupOptions& options = {});
  // The value a target names: Get(key, lookup) or Resolve(ref).
  Result<std::string> Get(const Target& target);
  // Get without blocking, for callers that must not wait (an event loop):
  // the latest value of `key` when this instance can answer from memory
  // alone, with no database query, no file read and no wait for a lock
  // another thread holds. It can when the key's records and value are
  // cached (a value this instance wrote or read lately) and no other
  // process has committed since the caches were last checked. Returns
  // std::nullopt when it cannot (and for options.version != 0, or a
  // session-only value): call Get then. A result it returns, value or
  // error, is the one Get would have returned.
  std::optional<Result<std::string>> TryGet(std::string_view key,
                                            const LookupOptions& options = {});

  // A ref with metadata only; the value is not read. O(1) for objects this
  // instance has seen (an in-memory map), one indexed lookup otherwise.
  // options.version != 0 returns a static ref pinned to that version.
  Result<Ref> RefOf(std::string_view key, const LookupOptions& options = {});
  // RefOf(key, lookup), or for a ref Pin(ref): the version it names (the
  // latest for a dynamic ref), checked against the store.
  Result<Ref> RefOf(const Target& target);

  // The one resolver: what a key, a ref, or either in text names, pinned to
  // one version. Every face (CLI, MCP, helpers) turns its arguments into a
  // static ref here, then reads by that ref, so all reads of one call see
  // one version. The result carries the version's own type and size and the
  // object's current scope and key.
  //
  // By key: looked up as Get does (options.scope, options.version; 0 pins
  // the latest). NotFound when there is no live value (or no such version).
  Result<Ref> Pin(std::string_view key, const LookupOptions& options = {});
  // By ref, a capability: any scope. A dynamic ref pins the latest version;
  // a static ref must agree with the version it names (InvalidArgument when
  // its type or size does not). NotFound, Unavailable as Resolve.
  Result<Ref> Pin(const Ref& ref);
  // Either: Pin(target.key(), target.lookup()) or Pin(*target.ref()). Text
  // from outside (a CLI argument, a tool argument) becomes a Target with
  // Target::Parse.
  Result<Ref> Pin(const Target& target);

  // The value a ref names: the pinned version of a static ref, the latest of
  // a dynamic one. NotFound when the object is gone or the ref belongs to
  // another store; Unavailable for a session-only value held by another
  // process.
  Result<std::string> Resolve(const Ref& ref);

  // Up to `length` bytes starting at `offset` of the version a ref names,
  // reading only that range from disk. An offset past the end yields "".
  Result<std::string> ReadRange(const Ref& ref, uint64_t offset,
                                uint64_t length);

  // For scans (search): calls `sink` with consecutive pieces of the bytes
  // [offset, offset + length) of the version a ref names, in order, each
  // at most `piece_bytes` long (a piece is never empty). A piece is valid
  // only during its call. Unlike ReadRange nothing enters the memory
  // tier's cache, and a large durable value is mapped from its blob file
  // rather than copied; other contents are read piece by piece. A sink
  // returning false stops the scan (OK). Errors as ReadRange.
  Status Scan(const Ref& ref, uint64_t offset, uint64_t length,
              uint64_t piece_bytes,
              const std::function<bool(std::string_view)>& sink);

  // Metadata of the latest version.
  Result<ObjectMeta> Stat(std::string_view key,
                          const LookupOptions& options = {});
  // The same for the object a ref names (a capability: any scope); its
  // latest version whatever version the ref pins. NotFound when the object
  // was removed or is gone.
  Result<ObjectMeta> Stat(const Ref& ref);
  // Stat(key, lookup) or Stat(ref).
  Result<ObjectMeta> Stat(const Target& target);

  // Writes a tombstone; NotFound when there is no live value under `key`.
  Status Remove(std::string_view key, const LookupOptions& options = {});
  // Like Remove, but the tombstone's state is kMissing: the value's source
  // (a watched file) is gone. The key stops resolving, history stays, and
  // a later Set revives the object, as after Remove.
  Status MarkMissing(std::string_view key, const LookupOptions& options = {});

  Result<ListPage> List(const ListFilter& filter = {});

  // The version history, oldest first, tombstones included.
  Result<std::vector<VersionMeta>> Versions(std::string_view key,
                                            const LookupOptions& options = {});
  // The history of the object a ref names (a capability: any scope; a
  // static ref reads it after the object was removed, too).
  Result<std::vector<VersionMeta>> Versions(const Ref& ref);
  // Versions(key, lookup) or Versions(ref).
  Result<std::vector<VersionMeta>> Versions(const Target& target);

  // The o200k_base token count of a version (the latest unless
  // options.version), kept in its metadata: the first call streams through
  // the content by range (never holding it whole) and records the count;
  // later calls, in any process, read it back without touching content.
  // Session-only values keep their counts in this instance only.
  Result<uint64_t> CountTokens(std::string_view key,
                               const LookupOptions& options = {});
  // The same for the version a ref names (the latest for a dynamic ref).
  Result<uint64_t> CountTokens(const Ref& ref);
  // CountTokens(key, lookup) or CountTokens(ref).
  Result<uint64_t> CountTokens(const Target& target);

  // Moves an object from the view's agent scope to global, keeping its id
  // and history. AlreadyExists when global already has a live object with
  // that key; FailedPrecondition for session-only values.
  Result<Ref> Promote(std::string_view key);

  // Gives the object found at `from_key` (lookup order, or options.scope)
  // the key `to_key` in the same scope, keeping its id, versions and tags.
  // Refs carry the key they were taken under and resolve only while it
  // still names the object (that check keeps a ref from another store from
  // resolving here), so refs taken before a rename give NotFound: hand out
  // the returned dynamic ref, or take new static ones, under the new key.
  // AlreadyExists when that scope has a live object at `to_key`;
  // FailedPrecondition for session-only values; NotFound when `from_key` has no
  // live object. Renaming to the same key is a no-op.
  Result<Ref> Rename(std::string_view from_key, std::string_view to_key,
                     const LookupOptions& options = {});

  // A view for a sub-agent: its own agent scope `child_agent_id`, the same
  // global scope, and the session `child_session_id` (none when empty). It
  // does not see this view's agent or session scopes by name, but resolves
  // any ref passed to it.
  Result<View> SubAgent(std::string_view child_agent_id,
                        std::string_view child_session_id = "") const;

  const std::string& agent_id() const { return agent_id_; }
  const std::string& session_id() const { return session_id_; }
  Store* store() const { return store_; }

 private:
  friend class Store;
  View(Store* store, std::string agent_id, std::string session_id)
      : store_(store),
        agent_id_(std::move(agent_id)),
        session_id_(std::move(session_id)) {}

  Store* store_;
  std::string agent_id_;
  std::string session_id_;
};

}  // namespace ctxkit

#endif  // CTXKIT_STORE_H_
