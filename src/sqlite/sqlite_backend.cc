// The embedded storage engine: one SQLite database in WAL mode per store
// root plus content-addressed blob files. See docs/storage-format.md.

#include "sqlite/sqlite_backend.h"

#include <sys/stat.h>

#include <algorithm>
#include <optional>

#include "core/encoding.h"
#include "core/mutex.h"
#include "core/status_macros.h"
#include "core/value_type_codes.h"
#include "ctxkit/target.h"
#include "os/file_util.h"
#include "os/filename.h"
#include "os/sqlite_db.h"
#include "sqlite/sqlite_gc.h"
#include "sqlite/sqlite_holds.h"
#include "sqlite/sqlite_records.h"
#include "sqlite/sqlite_schema.h"
#include "sqlite/sqlite_sessions.h"
#include "sqlite/sqlite_usage.h"
#include "storage/backend.h"
#include "storage/blob_checksums.h"
#include "storage/blob_files.h"
#include "storage/change_sequence.h"
#include "storage/checkpointer.h"
#include "storage/engine_rules.h"

namespace ctxkit::storage {
namespace {

// The latest version's token count rides along by primary-key lookup, so
// listings show it without a second query.
constexpr const char* kObjectColumns =
    "id, scope, key, type, latest_version, deleted, size, created_ns, "
    "updated_ns, (SELECT tokens FROM versions WHERE versions.object_id = "
    "objects.id AND versions.version = objects.latest_version)";

constexpr const char* kVersionColumns =
    "version, state, type, hash, size, created_ns, producer, stream_base, "
    "tokens";

class SqliteBackend final : public Backend {
 public:
  SqliteBackend(SqliteOptions options, std::unique_ptr<SqliteDb> db)
      : options_(std::move(options)),
        blobs_(BlobDir(options_.home),
               options_.durability == Durability::kFull),
        db_(std::move(db)) {}

  Status Init() {
    core::MutexLock lock(&mu_);
    if (options_.read_only) return InitReadOnlyLocked();
    CTXKIT_RETURN_IF_ERROR(blobs_.Init());
    CTXKIT_RETURN_IF_ERROR(seq_.Open(SequencePath(options_.home)));
    seen_sequence_.store(seq_.Stable().value_or(0));
    // WAL: readers never block the writer, and each commit appends to the
    // log. synchronous=FULL fsyncs the log on every commit; NORMAL survives
    // a process crash but not a power loss.
    CTXKIT_RETURN_IF_ERROR(db_->EnableWal());
    CTXKIT_RETURN_IF_ERROR(db_->Exec(options_.durability == Durability::kFull
                                         ? "PRAGMA synchronous=FULL"
                                         : "PRAGMA synchronous=NORMAL"));
    CTXKIT_RETURN_IF_ERROR(EnsureSchema(db_.get()));
    if (options_.background_checkpoints) {
      CheckpointerOptions c;
      c.path = DatabasePath(options_.home);
      c.busy_timeout_ms = options_.busy_timeout_ms;
      CTXKIT_ASSIGN_OR_RETURN(checkpointer_, Checkpointer::Start(db_.get(), c));
    }
    // Blobs a collection moved out before it crashed come back when a
    // version still references them.
    SqliteDb* db = db_.get();
    CTXKIT_RETURN_IF_ERROR(blobs_.RecoverTrash([db](std::string_view hash) {
      return SqliteBlobReferenced(db, hash);
    }));
    return sqlite_sessions::ImportLegacy(db_.get(),
                                         SessionsDbPath(options_.home));
  }

  // An immutable read-only connection does not see a writer's changes:
  // once one may have committed, the database is opened again (with
  // locks, through the writer's -wal and -shm, when they are there).
  Status ReopenIfImmutableLocked() REQUIRES(mu_) {
    if (!db_->immutable()) return Status::Ok();
    CTXKIT_ASSIGN_OR_RETURN(db_, SqliteDb::Open(DatabasePath(options_.home),
                                                options_.busy_timeout_ms,
                                                SqliteDb::Mode::kReadOnly));
    return Status::Ok();
  }

  // A read-only open changes nothing on disk: no schema migration, no
  // temporary-file or trash recovery (a writable open does those).
  Status InitReadOnlyLocked() REQUIRES(mu_) {
    CTXKIT_RETURN_IF_ERROR(seq_.OpenReadOnly(SequencePath(options_.home)));
    seen_sequence_.store(seq_.Stable().value_or(0));
    return CheckSchema(db_.get(), DatabasePath(options_.home));
  }

  Result<std::string> StageFile(int fd) override {
    if (options_.read_only) return ReadOnlyError("set");
    return blobs_.Stage(fd);
  }

  Result<WriteResult> Put(const PutRequest& req) override {
    CTXKIT_ASSIGN_OR_RETURN(std::vector<WriteResult> written,
                            PutBatch(std::span<const PutRequest>(&req, 1)));
    return std::move(written.front());
  }

  Result<std::vector<WriteResult>> PutBatch(
      std::span<const PutRequest> requests) override {
    if (options_.read_only) return ReadOnlyError("set");
    // Large content goes to its blob file before the transaction so the
    // write lock is not held during the copy. A crash in between leaves an
    // unreferenced (harmless) blob file, never a dangling reference.
    for (const PutRequest& req : requests) {
      if (req.content.size() <= options_.inline_max_bytes) continue;
      CTXKIT_RETURN_IF_ERROR(
          req.staged_file.empty()
              ? blobs_.Write(req.hash, req.content)
              : blobs_.Adopt(req.hash, req.content.size(), req.staged_file));
    }
    core::MutexLock lock(&mu_);
    WriteTransaction txn(db_.get());
    CTXKIT_RETURN_IF_ERROR(txn.Begin());
    std::vector<WriteResult> out;
    out.reserve(requests.size());
    for (const PutRequest& req : requests) {
      CTXKIT_ASSIGN_OR_RETURN(WriteResult written, PutLocked(req));
      out.push_back(std::move(written));
    }
    CTXKIT_RETURN_IF_ERROR(CommitLocked(&txn));
    return out;
  }

  // One Put's rows. REQUIRES: mu_ held, a write transaction begun, and a
  // large content's blob file written.
  Result<WriteResult> PutLocked(const PutRequest& req) REQUIRES(mu_) {
    Result<ObjectRecord> found = FindObjectLocked(req.scope, req.key);
    if (!found.ok() && !found.status().IsNotFound()) return found.status();
    if (req.expected_version != 0) {
      CTXKIT_RETURN_IF_ERROR(CheckLatest(found, req.key, req.expected_version));
    }
    // A new object's row is inserted once, with its first version's fields
    // (each write of it is one more of objects_by_change and its trigger).
    const bool created = !found.ok();
    ObjectRecord obj =
        created ? NewObject(req.scope, req.key, req.type, req.now_unix_ns)
                : *std::move(found);
    VersionRecord v = PutVersion(obj, req);
    if (created) {
      AdvanceRecord(&obj, v);
      CTXKIT_ASSIGN_OR_RETURN(obj.id, InsertObjectLocked(obj));
      v.object_id = obj.id;
    }
    const bool inline_content = req.content.size() <= options_.inline_max_bytes;
    if (!inline_content) {
      CTXKIT_RETURN_IF_ERROR(
          RegisterBlobLocked(req.hash, req.content, req.now_unix_ns));
    }
    std::optional<std::string_view> version_data;
    if (IsAppendableType(req.type)) {
      // An appendable value's content is its chunks; this set starts a new
      // run that later appends continue.
      CTXKIT_RETURN_IF_ERROR(InsertChunkLocked(obj.id, v.version, v.stream_base,
                                               0, req.content, req.hash,
                                               inline_content));
    } else if (inline_content) {
      version_data = req.content;
    }
    CTXKIT_RETURN_IF_ERROR(InsertVersionLocked(v, version_data));
    if (!created) CTXKIT_RETURN_IF_ERROR(UpdateObjectLocked(&obj, v));
    CTXKIT_RETURN_IF_ERROR(ReplaceTagsLocked(&obj, req.tags));
    return WriteResult{std::move(obj), std::move(v)};
  }

  Result<WriteResult> Append(const AppendRequest& req) override {
    if (options_.read_only) return ReadOnlyError("append");
    if (req.bytes.size() > options_.inline_max_bytes) {
      CTXKIT_RETURN_IF_ERROR(blobs_.Write(req.hash, req.bytes));
    }
    core::MutexLock lock(&mu_);
    WriteTransaction txn(db_.get());
    CTXKIT_RETURN_IF_ERROR(txn.Begin());
    Result<ObjectRecord> found = FindObjectLocked(req.scope, req.key);
    if (!found.ok() && !found.status().IsNotFound()) return found.status();
    std::optional<VersionRecord> latest;
    if (found.ok() && !found->deleted) {
      CTXKIT_ASSIGN_OR_RETURN(
          latest, GetVersionLocked(found->id, found->latest_version));
    }
    CTXKIT_ASSIGN_OR_RETURN(AppendPlan plan,
                            PlanAppend(req, found.ok() ? &*found : nullptr,
                                       latest ? &*latest : nullptr));
    ObjectRecord obj;
    CTXKIT_ASSIGN_OR_RETURN(
        obj,
        FindOrCreateLocked(req.scope, req.key, plan.type, req.now_unix_ns));
    VersionRecord v = AppendVersion(obj, req, plan);
    const bool inline_content = req.bytes.size() <= options_.inline_max_bytes;
    if (!inline_content) {
      CTXKIT_RETURN_IF_ERROR(
          RegisterBlobLocked(req.hash, req.bytes, req.now_unix_ns));
    }
    CTXKIT_RETURN_IF_ERROR(InsertChunkLocked(obj.id, v.version, v.stream_base,
                                             plan.offset, req.bytes, req.hash,
                                             inline_content));
    CTXKIT_RETURN_IF_ERROR(InsertVersionLocked(v, std::nullopt));
    CTXKIT_RETURN_IF_ERROR(UpdateObjectLocked(&obj, v));
    if (!plan.continues) {
      CTXKIT_RETURN_IF_ERROR(ReplaceTagsLocked(&obj, req.tags));
    }
    CTXKIT_RETURN_IF_ERROR(CommitLocked(&txn));
    return WriteResult{std::move(obj), std::move(v)};
  }

  Result<WriteResult> Remove(const Scope& scope, std::string_view key,
                             std::string_view producer, int64_t now_unix_ns,
                             VersionState state) override {
    core::MutexLock lock(&mu_);
    WriteTransaction txn(db_.get());
    CTXKIT_RETURN_IF_ERROR(txn.Begin());
    ObjectRecord obj;
    CTXKIT_ASSIGN_OR_RETURN(obj, FindObjectLocked(scope, key));
    if (obj.deleted) {
      return Status::NotFound("'" + std::string(key) + "' was removed");
    }
    VersionRecord v = TombstoneVersion(obj, state, producer, now_unix_ns);
    CTXKIT_RETURN_IF_ERROR(InsertVersionLocked(v, std::nullopt));
    auto q = db_->Prepare(
        "UPDATE objects SET latest_version = ?, deleted = 1, updated_ns = ? "
        "WHERE id = ?");
    if (!q.ok()) return q.status();
    CTXKIT_RETURN_IF_ERROR((*q)->Bind(1, static_cast<int64_t>(v.version))
                               .Bind(2, now_unix_ns)
                               .Bind(3, obj.id)
                               .Run());
    q->reset();
    RemoveRecord(&obj, v);
    CTXKIT_RETURN_IF_ERROR(CommitLocked(&txn));
    return WriteResult{std::move(obj), std::move(v)};
  }

  Result<ObjectRecord> Move(int64_t id, const Scope& to) override {
    return Relocate(id, &to, std::nullopt);
  }

  Result<ObjectRecord> Rename(int64_t id, std::string_view to_key) override {
    return Relocate(id, nullptr, to_key);
  }

  Status RecordTokenCounts(const std::vector<TokenCount>& counts) override {
    // Counts are a cache: a read-only store counts again next time.
    if (counts.empty() || options_.read_only) return Status::Ok();
    core::MutexLock lock(&mu_);
    WriteTransaction txn(db_.get());
    CTXKIT_RETURN_IF_ERROR(txn.Begin());
    for (const TokenCount& c : counts) {
      auto q = db_->Prepare(
          "UPDATE versions SET tokens = ? WHERE object_id = ? AND version = ? "
          "AND tokens IS NULL");
      if (!q.ok()) return q.status();
      CTXKIT_RETURN_IF_ERROR((*q)->Bind(1, static_cast<int64_t>(c.tokens))
                                 .Bind(2, c.object_id)
                                 .Bind(3, static_cast<int64_t>(c.version))
                                 .Run());
      q->reset();
    }
    return CommitLocked(&txn);
  }

  Result<ObjectRecord> FindObject(const Scope& scope,
                                  std::string_view key) override {
    core::MutexLock lock(&mu_);
    return FindObjectLocked(scope, key);
  }

  Result<std::vector<ObjectRecord>> FindObjects(
      std::string_view key, const std::vector<Scope>& scopes) override {
    std::string sql = std::string("SELECT ") + kObjectColumns +
                      " FROM objects WHERE key = ? AND scope IN (";
    for (size_t i = 0; i < scopes.size(); ++i) sql += i ? ", ?" : "?";
    sql += ") ORDER BY scope, deleted ASC, updated_ns DESC";
    std::vector<std::string> scope_texts;
    for (const Scope& scope : scopes) scope_texts.push_back(scope.ToString());
    core::MutexLock lock(&mu_);
    auto q = db_->PrepareDynamic(sql);
    if (!q.ok()) return q.status();
    (*q)->BindText(1, key);
    for (size_t i = 0; i < scope_texts.size(); ++i) {
      (*q)->BindText(static_cast<int>(i) + 2, scope_texts[i]);
    }
    std::vector<ObjectRecord> out;
    CTXKIT_RETURN_IF_ERROR(
        ForEachObjectRow(**q, [&out](ObjectRecord obj, const Query&) {
          // Rows come grouped by scope, best first: keep one per scope.
          if (out.empty() || out.back().scope != obj.scope) {
            out.push_back(std::move(obj));
          }
        }));
    q->reset();
    for (auto& obj : out) {
      CTXKIT_ASSIGN_OR_RETURN(obj.tags, LoadTagsLocked(obj.id));
    }
    return out;
  }

  Result<ObjectRecord> GetObject(int64_t id) override {
    core::MutexLock lock(&mu_);
    return GetObjectLocked(id);
  }

  Result<VersionRecord> GetVersion(int64_t id, uint64_t version) override {
    core::MutexLock lock(&mu_);
    if (version == 0) {
      ObjectRecord obj;
      CTXKIT_ASSIGN_OR_RETURN(obj, GetObjectLocked(id));
      version = obj.latest_version;
    }
    return GetVersionLocked(id, version);
  }

  Result<std::vector<VersionRecord>> ListVersions(int64_t id) override {
    core::MutexLock lock(&mu_);
    static const std::string sql =
        std::string("SELECT ") + kVersionColumns +
        " FROM versions WHERE object_id = ? ORDER BY version";
    auto q = db_->Prepare(sql.c_str());
    if (!q.ok()) return q.status();
    (*q)->Bind(1, id);
    std::vector<VersionRecord> out;
    while (true) {
      Result<bool> row = (*q)->Step();
      if (!row.ok()) return row.status();
      if (!*row) break;
      out.push_back(ReadVersionRow(**q, id, 0));
    }
    return out;
  }

  Result<std::vector<ObjectRecord>> ListObjects(
      const ObjectQuery& query) override {
    std::string sql =
        std::string("SELECT ") + kObjectColumns + " FROM objects WHERE 1";
    if (!query.include_deleted) sql += " AND deleted = 0";
    if (!query.scopes.empty()) {
      sql += " AND scope IN (";
      for (size_t i = 0; i < query.scopes.size(); ++i) {
        sql += i ? ", ?" : "?";
      }
      sql += ")";
    }
    if (query.type) sql += " AND type = ?";
    std::string upper = PrefixUpperBound(query.key_prefix);
    if (!query.key_prefix.empty()) {
      sql += " AND key >= ?";
      if (!upper.empty()) sql += " AND key < ?";
    }
    if (query.after) sql += " AND (key, scope) > (?, ?)";
    for (size_t i = 0; i < query.tags.size(); ++i) {
      sql +=
          " AND EXISTS (SELECT 1 FROM tags WHERE tags.object_id = objects.id "
          "AND tags.tag = ?)";
    }
    sql += " ORDER BY key, scope LIMIT ?";

    std::vector<std::string> scope_texts;
    for (const Scope& s : query.scopes) scope_texts.push_back(s.ToString());

    core::MutexLock lock(&mu_);
    auto q = db_->PrepareDynamic(sql);
    if (!q.ok()) return q.status();
    int i = 1;
    for (const auto& s : scope_texts) (*q)->BindText(i++, s);
    if (query.type) (*q)->Bind(i++, core::ValueTypeCode(*query.type));
    if (!query.key_prefix.empty()) {
      (*q)->BindText(i++, query.key_prefix);
      if (!upper.empty()) (*q)->BindText(i++, upper);
    }
    if (query.after) {
      (*q)->BindText(i++, query.after->first);
      (*q)->BindText(i++, query.after->second);
    }
    for (const auto& tag : query.tags) (*q)->BindText(i++, tag);
    (*q)->Bind(i++, static_cast<int64_t>(query.limit));
    std::vector<ObjectRecord> out;
    CTXKIT_RETURN_IF_ERROR(
        ForEachObjectRow(**q, [&out](ObjectRecord obj, const Query&) {
          out.push_back(std::move(obj));
        }));
    q->reset();
    for (auto& obj : out) {
      CTXKIT_ASSIGN_OR_RETURN(obj.tags, LoadTagsLocked(obj.id));
    }
    return out;
  }

  Result<std::vector<ChangedObject>> ListChanged(uint64_t after,
                                                 size_t limit) override {
    static const std::string sql =
        std::string("SELECT ") + kObjectColumns +
        ", changed FROM objects WHERE changed > ? ORDER BY changed LIMIT ?";
    core::MutexLock lock(&mu_);
    auto q = db_->Prepare(sql.c_str());
    if (!q.ok()) return q.status();
    (*q)->Bind(1, static_cast<int64_t>(after))
        .Bind(2, static_cast<int64_t>(limit));
    std::vector<ChangedObject> out;
    CTXKIT_RETURN_IF_ERROR(
        ForEachObjectRow(**q, [&out](ObjectRecord obj, const Query& row) {
          out.push_back({static_cast<uint64_t>(row.Int(10)), std::move(obj)});
        }));
    q->reset();
    return out;
  }

  Result<uint64_t> LatestChange() override {
    core::MutexLock lock(&mu_);
    auto q = db_->Prepare("SELECT coalesce(max(changed), 0) FROM objects");
    if (!q.ok()) return q.status();
    CTXKIT_ASSIGN_OR_RETURN(bool row, (*q)->Step());
    const uint64_t latest = row ? static_cast<uint64_t>((*q)->Int(0)) : 0;
    q->reset();
    return latest;
  }

  Status Scan(const VersionRecord& v, uint64_t offset, uint64_t length,
              uint64_t piece_bytes,
              const std::function<bool(std::string_view)>& sink) override {
    // A blob file is mapped, not copied. Appendable values are stored as
    // chunks and small contents inline: those take the read path, which is
    // right for any content, so the size test only saves a failed open().
    if (v.state == VersionState::kPresent && v.stream_base == 0 &&
        !v.hash.empty() && v.size_bytes > options_.inline_max_bytes &&
        offset < v.size_bytes) {
      const uint64_t n = std::min(length, v.size_bytes - offset);
      std::string sums;
      {
        core::MutexLock lock(&mu_);
        CTXKIT_ASSIGN_OR_RETURN(sums, BlobSumsLocked(v.hash));
      }
      CTXKIT_ASSIGN_OR_RETURN(bool mapped,
                              blobs_.Scan(v.hash, v.size_bytes, sums, offset, n,
                                          piece_bytes, sink));
      if (mapped) return Status::Ok();
    }
    return Backend::Scan(v, offset, length, piece_bytes, sink);
  }

  Result<std::vector<std::optional<std::string>>> ReadWhole(
      std::span<const VersionKey> keys) override {
    std::vector<std::optional<std::string>> out;
    out.reserve(keys.size());
    std::vector<size_t> elsewhere;  // In blob files or streams.
    {
      core::MutexLock lock(&mu_);
      CTXKIT_RETURN_IF_ERROR(db_->Exec("BEGIN"));
      Status s = ReadInlineLocked(keys, &out, &elsewhere);
      Status ended = db_->Exec(s.ok() ? "COMMIT" : "ROLLBACK");
      CTXKIT_RETURN_IF_ERROR(s);
      CTXKIT_RETURN_IF_ERROR(ended);
    }
    for (size_t i : elsewhere) {
      CTXKIT_ASSIGN_OR_RETURN(out[i], ReadIfPresent(keys[i], 0, UINT64_MAX));
    }
    return out;
  }

  Result<std::string> Read(const VersionRecord& v, uint64_t offset,
                           uint64_t length) override {
    CTXKIT_RETURN_IF_ERROR(CheckHasContent(v));
    if (offset >= v.size_bytes) return std::string();
    length = std::min(length, v.size_bytes - offset);
    if (v.stream_base == 0) return ReadVersionContent(v, offset, length);
    return ReadStream(v, offset, length);
  }

  Result<BackendStats> Stats() override {
    core::MutexLock lock(&mu_);
    BackendStats stats;
    auto q = db_->Prepare(
        "SELECT count(*), coalesce(sum(deleted = 0), 0) FROM objects");
    if (!q.ok()) return q.status();
    Result<bool> row = (*q)->Step();
    if (!row.ok()) return row.status();
    stats.objects = (*q)->Int(0);
    stats.live_objects = (*q)->Int(1);
    q->reset();
    q = db_->Prepare("SELECT count(*) FROM versions");
    if (!q.ok()) return q.status();
    row = (*q)->Step();
    if (!row.ok()) return row.status();
    stats.versions = (*q)->Int(0);
    q->reset();
    q = db_->Prepare(
        "SELECT (SELECT coalesce(sum(length(data)), 0) FROM inline_contents) "
        "+ (SELECT coalesce(sum(size), 0) FROM blobs), "
        "(SELECT count(*) FROM blobs)");
    if (!q.ok()) return q.status();
    row = (*q)->Step();
    if (!row.ok()) return row.status();
    stats.content_bytes = (*q)->Int(0);
    stats.blob_files = (*q)->Int(1);
    return stats;
  }

  Result<std::vector<VersionRecord>> ScanVersions(const VersionKey& after,
                                                  size_t limit) override {
    static const std::string sql =
        std::string("SELECT object_id, ") + kVersionColumns +
        " FROM versions WHERE (object_id, version) > (?, ?) ORDER BY "
        "object_id, version LIMIT ?";
    core::MutexLock lock(&mu_);
    CTXKIT_ASSIGN_OR_RETURN(auto q, db_->Prepare(sql.c_str()));
    q->Bind(1, after.object_id)
        .Bind(2, static_cast<int64_t>(after.version))
        .Bind(3, static_cast<int64_t>(limit));
    std::vector<VersionRecord> out;
    while (true) {
      CTXKIT_ASSIGN_OR_RETURN(bool row, q->Step());
      if (!row) break;
      out.push_back(ReadVersionRow(*q, q->Int(0), 1));
    }
    return out;
  }

  Result<CollectReport> CollectVersions(
      const std::vector<VersionKey>& keys) override {
    core::MutexLock lock(&mu_);
    return CollectLocked(keys, /*apply=*/true);
  }

  Result<CollectReport> MeasureCollect(
      const std::vector<VersionKey>& keys) override {
    core::MutexLock lock(&mu_);
    return CollectLocked(keys, /*apply=*/false);
  }

  // CollectVersions, or with !apply its measure: the same deletions in a
  // transaction rolled back, blob files sized instead of trashed.
  Result<CollectReport> CollectLocked(const std::vector<VersionKey>& keys,
                                      bool apply) REQUIRES(mu_) {
    WriteTransaction txn(db_.get());
    CTXKIT_RETURN_IF_ERROR(txn.Begin());
    CTXKIT_RETURN_IF_ERROR(sqlite_holds::CheckNoneHeld(db_.get(), keys));
    CTXKIT_ASSIGN_OR_RETURN(SqliteCollected collected,
                            SqliteCollectLocked(db_.get(), keys));
    CollectReport report;
    report.versions = collected.versions;
    report.bytes = collected.inline_bytes;
    if (!apply) {  // ~WriteTransaction rolls back.
      for (const std::string& hash : collected.unreferenced_blobs) {
        CTXKIT_ASSIGN_OR_RETURN(uint64_t size, blobs_.SizeOf(hash));
        report.bytes += size;
        report.blob_files += size > 0 ? 1 : 0;
      }
      return report;
    }
    // Unreferenced blob files leave while the write lock is held (a writer
    // of the same content rechecks its file under that lock), into the
    // trash, and are deleted only after the commit.
    std::vector<std::string> trashed;
    Status s = Status::Ok();
    for (const std::string& hash : collected.unreferenced_blobs) {
      Result<uint64_t> size = blobs_.Trash(hash);
      if (!size.ok()) {
        s = size.status();
        break;
      }
      trashed.push_back(hash);
      report.bytes += *size;
      report.blob_files += *size > 0 ? 1 : 0;
    }
    if (s.ok()) s = CommitLocked(&txn);
    for (const std::string& hash : trashed) {
      if (s.ok()) {
        blobs_.DropTrashed(hash);
      } else {
        blobs_.Untrash(hash).IgnoreError();  // RecoverTrash retries on open.
      }
    }
    if (!s.ok()) return s;
    return report;
  }

  Result<std::vector<UsageRecord>> Usage() override {
    core::MutexLock lock(&mu_);
    return SqliteUsage(db_.get());
  }

  Result<std::optional<uint64_t>> SessionGeneration(
      std::string_view id) override {
    core::MutexLock lock(&mu_);
    return sqlite_sessions::Generation(db_.get(), id);
  }

  Result<SessionRecord> LoadSession(std::string_view id) override {
    core::MutexLock lock(&mu_);
    return sqlite_sessions::Load(db_.get(), id);
  }

  Result<SessionRecord> LoadSessionHead(std::string_view id,
                                        size_t listed_limit) override {
    core::MutexLock lock(&mu_);
    return sqlite_sessions::LoadHead(db_.get(), id, listed_limit);
  }

  Result<uint64_t> CountListedSessionEntries(std::string_view id) override {
    core::MutexLock lock(&mu_);
    return sqlite_sessions::CountListed(db_.get(), id);
  }

  Result<SessionRecord> LoadSessionEntries(
      std::string_view id,
      const std::vector<std::string>& object_ids) override {
    core::MutexLock lock(&mu_);
    return sqlite_sessions::LoadEntries(db_.get(), id, object_ids);
  }

  // Session writes do not touch the change sequence: no cached object or
  // version record can go stale through them.
  Result<uint64_t> WriteSession(const SessionWrite& write) override {
    core::MutexLock lock(&mu_);
    return sqlite_sessions::Write(db_.get(), write);
  }

  Result<std::vector<std::string>> ListSessions() override {
    core::MutexLock lock(&mu_);
    return sqlite_sessions::List(db_.get());
  }

  Status RemoveSession(std::string_view id) override {
    core::MutexLock lock(&mu_);
    return sqlite_sessions::Remove(db_.get(), id);
  }

  // A hold adds no version and changes no object: it does not move the
  // change sequence. Serialized with CollectVersions by the write lock.
  Status AddHolds(std::string_view holder,
                  std::span<const VersionKey> keys) override {
    if (keys.empty()) return Status::Ok();
    core::MutexLock lock(&mu_);
    CTXKIT_ASSIGN_OR_RETURN(bool all_held,
                            sqlite_holds::AllHeld(db_.get(), keys));
    if (all_held) return Status::Ok();
    if (options_.read_only) return ReadOnlyError("hold");
    WriteTransaction txn(db_.get());
    CTXKIT_RETURN_IF_ERROR(txn.Begin());
    CTXKIT_RETURN_IF_ERROR(sqlite_holds::AddLocked(db_.get(), holder, keys));
    return txn.Commit();
  }

  Result<std::vector<VersionKey>> ListHeld() override {
    core::MutexLock lock(&mu_);
    return sqlite_holds::ListHeld(db_.get());
  }

  Status DropHolds(std::string_view holder) override {
    if (options_.read_only) return ReadOnlyError("hold");
    core::MutexLock lock(&mu_);
    WriteTransaction txn(db_.get());
    CTXKIT_RETURN_IF_ERROR(txn.Begin());
    CTXKIT_RETURN_IF_ERROR(sqlite_holds::DropLocked(db_.get(), holder));
    return txn.Commit();
  }

  Result<bool> HoldsPending() override {
    core::MutexLock lock(&mu_);
    return sqlite_holds::Pending(db_.get());
  }

  Status MarkHoldsRecorded() override {
    if (options_.read_only) return ReadOnlyError("gc");
    core::MutexLock lock(&mu_);
    WriteTransaction txn(db_.get());
    CTXKIT_RETURN_IF_ERROR(txn.Begin());
    CTXKIT_RETURN_IF_ERROR(sqlite_holds::ClearPending(db_.get()));
    return txn.Commit();
  }

  Status WriteRecords(const RecordWrite& write) override {
    CTXKIT_RETURN_IF_ERROR(CheckRecordWrite(write));
    if (options_.read_only) return ReadOnlyError("record write");
    core::MutexLock lock(&mu_);
    WriteTransaction txn(db_.get());
    CTXKIT_RETURN_IF_ERROR(txn.Begin());
    CTXKIT_RETURN_IF_ERROR(sqlite_records::WriteLocked(db_.get(), write));
    return txn.Commit();
  }

  Result<std::optional<StoredRecord>> GetRecord(
      std::string_view kind, std::string_view name) override {
    core::MutexLock lock(&mu_);
    return sqlite_records::Get(db_.get(), kind, name);
  }

  Result<std::vector<StoredRecord>> ListRecords(
      std::string_view kind) override {
    core::MutexLock lock(&mu_);
    return sqlite_records::List(db_.get(), kind);
  }

  Result<std::vector<std::string>> ReadLog(std::string_view log,
                                           size_t limit) override {
    core::MutexLock lock(&mu_);
    return sqlite_records::ReadLog(db_.get(), log, limit);
  }

  Result<std::string> RefSecret() override {
    core::MutexLock lock(&mu_);
    auto q = db_->Prepare("SELECT value FROM meta WHERE name = 'ref_secret'");
    if (!q.ok()) return q.status();
    Result<bool> row = (*q)->Step();
    if (!row.ok()) return row.status();
    std::optional<std::string> secret;
    if (*row) secret = core::FromHex((*q)->Text(0));
    if (!secret || secret->size() < 16) {
      return Status::Corruption(
          "ctxkit.db: meta.ref_secret is missing or "
          "malformed");
    }
    return *std::move(secret);
  }

  Result<uint64_t> ChangeCounter() override {
    core::MutexLock lock(&mu_);
    std::optional<uint64_t> stable = seq_.Stable();
    if (!stable) {
      // A commit is in flight somewhere: nothing cached can be trusted.
      CTXKIT_RETURN_IF_ERROR(ReopenIfImmutableLocked());
      return external_changes_.fetch_add(1) + 1;
    }
    if (*stable != seen_sequence_.load()) {
      // The count first: TryChangeCounter, reading the sequence first,
      // never pairs the new sequence with the old count.
      external_changes_.fetch_add(1);
      seen_sequence_.store(*stable);
      CTXKIT_RETURN_IF_ERROR(ReopenIfImmutableLocked());
    }
    return external_changes_.load();
  }

  // Without mu_, which a commit holds through its fsync.
  std::optional<uint64_t> TryChangeCounter() override {
    const uint64_t seen = seen_sequence_.load();
    const uint64_t counter = external_changes_.load();
    if (seq_.Stable() != seen) return std::nullopt;
    return counter;
  }

 private:
  // Steps `q` to its end, handing each row's object record (and the row,
  // for extra columns) to `visit`.
  template <typename Visit>
  Status ForEachObjectRow(Query& q, Visit visit) {
    while (true) {
      Result<bool> row = q.Step();
      if (!row.ok()) return row.status();
      if (!*row) break;
      Result<ObjectRecord> obj = ReadObjectRow(q);
      if (!obj.ok()) return obj.status();
      visit(std::move(*obj), q);
    }
    return Status::Ok();
  }

  Result<ObjectRecord> ReadObjectRow(const Query& q) {
    ObjectRecord obj;
    obj.id = q.Int(0);
    Result<Scope> scope = Scope::Parse(q.Text(1));
    if (!scope.ok()) {
      return Status::Corruption(
          "object " + std::to_string(obj.id) +
          " has a bad scope: " + scope.status().message());
    }
    obj.scope = std::move(scope).value();
    obj.key = q.Text(2);
    auto type = core::ValueTypeFromCode(q.Int(3));
    if (!type) {
      return Status::Corruption("object " + std::to_string(obj.id) +
                                " has an unknown type code");
    }
    obj.type = *type;
    obj.latest_version = q.Int(4);
    obj.deleted = q.Int(5) != 0;
    obj.size_bytes = q.Int(6);
    obj.created_unix_ns = q.Int(7);
    obj.updated_unix_ns = q.Int(8);
    if (!q.IsNull(9)) obj.tokens = static_cast<uint64_t>(q.Int(9));
    return obj;
  }

  static VersionRecord ReadVersionRow(const Query& q, int64_t object_id,
                                      int first_col) {
    VersionRecord v;
    v.object_id = object_id;
    v.version = q.Int(first_col);
    v.state = VersionStateFromCode(q.Int(first_col + 1));
    v.type = core::ValueTypeFromCode(q.Int(first_col + 2))
                 .value_or(ValueType::kText);
    v.hash = q.IsNull(first_col + 3) ? std::string() : q.Blob(first_col + 3);
    v.size_bytes = q.Int(first_col + 4);
    v.created_unix_ns = q.Int(first_col + 5);
    v.producer = q.Text(first_col + 6);
    v.stream_base = q.Int(first_col + 7);
    if (!q.IsNull(first_col + 8)) {
      v.tokens = static_cast<uint64_t>(q.Int(first_col + 8));
    }
    return v;
  }

  // Move and Rename: object `id` to scope `*to` (nullptr: its own) under key
  // `to_key` (nullopt: its own), in one transaction.
  Result<ObjectRecord> Relocate(int64_t id, const Scope* to,
                                std::optional<std::string_view> to_key) {
    core::MutexLock lock(&mu_);
    WriteTransaction txn(db_.get());
    CTXKIT_RETURN_IF_ERROR(txn.Begin());
    ObjectRecord obj;
    CTXKIT_ASSIGN_OR_RETURN(obj, GetObjectLocked(id));
    Scope scope = to != nullptr ? *to : obj.scope;
    std::string key = to_key ? std::string(*to_key) : obj.key;
    CTXKIT_RETURN_IF_ERROR(
        CheckDestinationFree(FindObjectLocked(scope, key), obj.id, scope, key));
    auto q = db_->Prepare("UPDATE objects SET scope = ?, key = ? WHERE id = ?");
    if (!q.ok()) return q.status();
    std::string scope_text = scope.ToString();
    CTXKIT_RETURN_IF_ERROR(
        (*q)->BindText(1, scope_text).BindText(2, key).Bind(3, obj.id).Run());
    q->reset();
    CTXKIT_RETURN_IF_ERROR(CommitLocked(&txn));
    obj.scope = std::move(scope);
    obj.key = std::move(key);
    return obj;
  }

  Result<ObjectRecord> FindObjectLocked(const Scope& scope,
                                        std::string_view key) REQUIRES(mu_) {
    // A live object wins over removed ones with the same key (several can
    // exist after a promotion into a key whose earlier object was removed).
    static const std::string sql =
        std::string("SELECT ") + kObjectColumns +
        " FROM objects WHERE scope = ? AND key = ? "
        "ORDER BY deleted ASC, updated_ns DESC LIMIT 1";
    auto q = db_->Prepare(sql.c_str());
    if (!q.ok()) return q.status();
    std::string scope_text = scope.ToString();
    (*q)->BindText(1, scope_text).BindText(2, key);
    Result<bool> row = (*q)->Step();
    if (!row.ok()) return row.status();
    if (!*row) {
      return KeyNotFound(key, scope_text);
    }
    Result<ObjectRecord> obj = ReadObjectRow(**q);
    q->reset();
    if (!obj.ok()) return obj;
    CTXKIT_ASSIGN_OR_RETURN(obj->tags, LoadTagsLocked(obj->id));
    return obj;
  }

  Result<ObjectRecord> GetObjectLocked(int64_t id) REQUIRES(mu_) {
    static const std::string sql =
        std::string("SELECT ") + kObjectColumns + " FROM objects WHERE id = ?";
    auto q = db_->Prepare(sql.c_str());
    if (!q.ok()) return q.status();
    (*q)->Bind(1, id);
    Result<bool> row = (*q)->Step();
    if (!row.ok()) return row.status();
    if (!*row) return Status::NotFound("no object with that id in this store");
    Result<ObjectRecord> obj = ReadObjectRow(**q);
    q->reset();
    if (!obj.ok()) return obj;
    CTXKIT_ASSIGN_OR_RETURN(obj->tags, LoadTagsLocked(obj->id));
    return obj;
  }

  Result<VersionRecord> GetVersionLocked(int64_t id, uint64_t version)
      REQUIRES(mu_) {
    static const std::string sql =
        std::string("SELECT ") + kVersionColumns +
        " FROM versions WHERE object_id = ? AND version = ?";
    auto q = db_->Prepare(sql.c_str());
    if (!q.ok()) return q.status();
    (*q)->Bind(1, id).Bind(2, static_cast<int64_t>(version));
    Result<bool> row = (*q)->Step();
    if (!row.ok()) return row.status();
    if (!*row) {
      return Status::NotFound("no version " + std::to_string(version));
    }
    return ReadVersionRow(**q, id, 0);
  }

  Result<std::vector<std::string>> LoadTagsLocked(int64_t id) REQUIRES(mu_) {
    auto q =
        db_->Prepare("SELECT tag FROM tags WHERE object_id = ? ORDER BY tag");
    if (!q.ok()) return q.status();
    (*q)->Bind(1, id);
    std::vector<std::string> tags;
    while (true) {
      Result<bool> row = (*q)->Step();
      if (!row.ok()) return row.status();
      if (!*row) break;
      tags.push_back((*q)->Text(0));
    }
    return tags;
  }

  // The live or most recent object at (scope, key), or a new empty one.
  Result<ObjectRecord> FindOrCreateLocked(const Scope& scope,
                                          std::string_view key, ValueType type,
                                          int64_t now) REQUIRES(mu_) {
    Result<ObjectRecord> found = FindObjectLocked(scope, key);
    if (found.ok() || !found.status().IsNotFound()) return found;
    ObjectRecord obj = NewObject(scope, key, type, now);
    CTXKIT_ASSIGN_OR_RETURN(obj.id, InsertObjectLocked(obj));
    return obj;
  }

  static ObjectRecord NewObject(const Scope& scope, std::string_view key,
                                ValueType type, int64_t now) {
    ObjectRecord obj;
    obj.scope = scope;
    obj.key = std::string(key);
    obj.type = type;
    obj.created_unix_ns = now;
    obj.updated_unix_ns = now;
    return obj;
  }

  // Inserts `obj` (all but its id) as a new object; returns the id, which
  // continues from the largest so far, or starts at the store's base.
  Result<int64_t> InsertObjectLocked(const ObjectRecord& obj) REQUIRES(mu_) {
    auto q = db_->Prepare(
        "INSERT INTO objects(id, scope, key, type, latest_version, deleted, "
        "size, created_ns, updated_ns) VALUES ("
        "coalesce((SELECT max(id) + 1 FROM objects), "
        "(SELECT CAST(value AS INTEGER) FROM meta "
        "WHERE name = 'object_id_base'), 1), "
        "?, ?, ?, ?, ?, ?, ?, ?)");
    if (!q.ok()) return q.status();
    std::string scope_text = obj.scope.ToString();
    CTXKIT_RETURN_IF_ERROR(
        (*q)->BindText(1, scope_text)
            .BindText(2, obj.key)
            .Bind(3, core::ValueTypeCode(obj.type))
            .Bind(4, static_cast<int64_t>(obj.latest_version))
            .Bind(5, int64_t{obj.deleted ? 1 : 0})
            .Bind(6, static_cast<int64_t>(obj.size_bytes))
            .Bind(7, obj.created_unix_ns)
            .Bind(8, obj.updated_unix_ns)
            .Run());
    return db_->LastInsertRowId();
  }

  // Records a blob file written by BlobFiles::Write (deduplicated).
  // Records a blob the version being written references. The file was
  // written before the transaction; a collection that committed in between
  // may have moved it out (it does so holding the write lock this
  // transaction now holds), so it is checked, and rewritten if gone.
  Status RegisterBlobLocked(std::string_view hash, std::string_view content,
                            int64_t now) REQUIRES(mu_) {
    CTXKIT_RETURN_IF_ERROR(blobs_.Write(hash, content));
    // A blob of an earlier build gains its checksums when written again.
    auto q = db_->Prepare(
        "INSERT INTO blobs(hash, size, created_ns, sums) VALUES (?, ?, ?, ?) "
        "ON CONFLICT(hash) DO UPDATE SET sums = excluded.sums "
        "WHERE sums IS NULL");
    if (!q.ok()) return q.status();
    return (*q)
        ->BindBlob(1, hash)
        .Bind(2, static_cast<int64_t>(content.size()))
        .Bind(3, now)
        .BindBlob(4, BlobChecksums(content))
        .Run();
  }

  Status InsertChunkLocked(int64_t id, uint64_t version, uint64_t base,
                           uint64_t offset, std::string_view bytes,
                           std::string_view hash, bool inline_content)
      REQUIRES(mu_) {
    std::optional<int64_t> content_id;
    if (inline_content) {
      CTXKIT_ASSIGN_OR_RETURN(content_id, InsertInlineLocked(bytes));
    }
    auto q = db_->Prepare(
        "INSERT INTO stream_chunks(object_id, version, stream_base, offset, "
        "size, hash, content_id) VALUES (?, ?, ?, ?, ?, ?, ?)");
    if (!q.ok()) return q.status();
    (*q)->Bind(1, id)
        .Bind(2, static_cast<int64_t>(version))
        .Bind(3, static_cast<int64_t>(base))
        .Bind(4, static_cast<int64_t>(offset))
        .Bind(5, static_cast<int64_t>(bytes.size()))
        .BindBlob(6, hash);
    if (content_id) {
      (*q)->Bind(7, *content_id);
    } else {
      (*q)->BindNull(7);
    }
    return (*q)->Run();
  }

  // Appends small content to inline_contents; returns its row id.
  Result<int64_t> InsertInlineLocked(std::string_view bytes) REQUIRES(mu_) {
    auto q = db_->Prepare("INSERT INTO inline_contents(data) VALUES (?)");
    if (!q.ok()) return q.status();
    CTXKIT_RETURN_IF_ERROR((*q)->BindBlob(1, bytes).Run());
    return db_->LastInsertRowId();
  }

  // `data`: the content when it is kept inline (not streams, not blobs).
  Status InsertVersionLocked(const VersionRecord& v,
                             std::optional<std::string_view> data)
      REQUIRES(mu_) {
    std::optional<int64_t> content_id;
    if (data) {
      CTXKIT_ASSIGN_OR_RETURN(content_id, InsertInlineLocked(*data));
    }
    auto q = db_->Prepare(
        "INSERT INTO versions(object_id, version, state, type, hash, size, "
        "created_ns, producer, stream_base, content_id, tokens) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    if (!q.ok()) return q.status();
    (*q)->Bind(1, v.object_id)
        .Bind(2, static_cast<int64_t>(v.version))
        .Bind(3, static_cast<int64_t>(v.state))
        .Bind(4, core::ValueTypeCode(v.type));
    if (v.hash.empty()) {
      (*q)->BindNull(5);
    } else {
      (*q)->BindBlob(5, v.hash);
    }
    (*q)->Bind(6, static_cast<int64_t>(v.size_bytes))
        .Bind(7, v.created_unix_ns)
        .BindText(8, v.producer)
        .Bind(9, static_cast<int64_t>(v.stream_base));
    if (content_id) {
      (*q)->Bind(10, *content_id);
    } else {
      (*q)->BindNull(10);
    }
    if (v.tokens) {
      (*q)->Bind(11, static_cast<int64_t>(*v.tokens));
    } else {
      (*q)->BindNull(11);
    }
    return (*q)->Run();
  }

  Status UpdateObjectLocked(ObjectRecord* obj, const VersionRecord& v)
      REQUIRES(mu_) {
    auto q = db_->Prepare(
        "UPDATE objects SET type = ?, latest_version = ?, deleted = 0, "
        "size = ?, updated_ns = ? WHERE id = ?");
    if (!q.ok()) return q.status();
    CTXKIT_RETURN_IF_ERROR((*q)->Bind(1, core::ValueTypeCode(v.type))
                               .Bind(2, static_cast<int64_t>(v.version))
                               .Bind(3, static_cast<int64_t>(v.size_bytes))
                               .Bind(4, v.created_unix_ns)
                               .Bind(5, obj->id)
                               .Run());
    AdvanceRecord(obj, v);
    return Status::Ok();
  }

  // Sets the object's tags, touching the tags table only when they change.
  Status ReplaceTagsLocked(ObjectRecord* obj, std::vector<std::string> tags)
      REQUIRES(mu_) {
    tags = NormalizedTags(std::move(tags));
    if (tags == obj->tags) return Status::Ok();
    if (!obj->tags.empty()) {
      auto del = db_->Prepare("DELETE FROM tags WHERE object_id = ?");
      if (!del.ok()) return del.status();
      CTXKIT_RETURN_IF_ERROR((*del)->Bind(1, obj->id).Run());
    }
    for (const auto& tag : tags) {
      auto ins = db_->Prepare("INSERT INTO tags(object_id, tag) VALUES (?, ?)");
      if (!ins.ok()) return ins.status();
      CTXKIT_RETURN_IF_ERROR((*ins)->Bind(1, obj->id).BindText(2, tag).Run());
    }
    obj->tags = std::move(tags);
    return Status::Ok();
  }

  // Reads a range of a non-stream version: from its row when inline, else
  // from its blob file (without holding the lock: blob files are immutable).
  // One query either way: the range when inline, else the blob's chunk
  // checksums (BlobSumsLocked's answer).
  Result<std::string> ReadVersionContent(const VersionRecord& v,
                                         uint64_t offset, uint64_t length) {
    // A blob whose checksums were read before needs no query: when its file
    // exists it holds this content (files are named by their content), as
    // Scan reasons.
    if (v.size_bytes > options_.inline_max_bytes && !v.hash.empty()) {
      if (std::shared_ptr<const std::string> known = sums_.Lookup(v.hash)) {
        CTXKIT_ASSIGN_OR_RETURN(
            std::optional<std::string> bytes,
            blobs_.ReadIfStored(v.hash, v.size_bytes, *known, offset, length));
        if (bytes.has_value()) return std::move(*bytes);
      }
    }
    std::string sums;
    {
      core::MutexLock lock(&mu_);
      auto q = db_->Prepare(
          "SELECT v.content_id IS NULL, substr(c.data, ?, ?), CASE WHEN "
          "v.content_id IS NULL THEN (SELECT sums FROM blobs WHERE hash = "
          "v.hash) END FROM versions v "
          "LEFT JOIN inline_contents c ON c.id = v.content_id "
          "WHERE v.object_id = ? AND v.version = ?");
      if (!q.ok()) return q.status();
      (*q)->Bind(1, static_cast<int64_t>(offset + 1))
          .Bind(2, static_cast<int64_t>(length))
          .Bind(3, v.object_id)
          .Bind(4, static_cast<int64_t>(v.version));
      Result<bool> row = (*q)->Step();
      if (!row.ok()) return row.status();
      if (!*row) return Status::Corruption("version row missing");
      if ((*q)->Int(0) == 0) return (*q)->Blob(1);
      sums = (*q)->Blob(2);
    }
    sums_.Insert(v.hash, sums);
    return blobs_.Read(v.hash, v.size_bytes, sums, offset, length);
  }

  // ReadWhole's reads inside its transaction: each key's inline content
  // (nullopt when gone) into `out`; the index of each version whose
  // content is in a blob file or a stream into `elsewhere`.
  Status ReadInlineLocked(std::span<const VersionKey> keys,
                          std::vector<std::optional<std::string>>* out,
                          std::vector<size_t>* elsewhere) REQUIRES(mu_) {
    for (const VersionKey& key : keys) {
      CTXKIT_ASSIGN_OR_RETURN(
          auto q, db_->Prepare("SELECT v.state, v.stream_base != 0 OR "
                               "v.content_id IS NULL, c.data FROM versions v "
                               "LEFT JOIN inline_contents c ON c.id = "
                               "v.content_id WHERE v.object_id = ? AND "
                               "v.version = ?"));
      q->Bind(1, key.object_id).Bind(2, static_cast<int64_t>(key.version));
      CTXKIT_ASSIGN_OR_RETURN(bool row, q->Step());
      out->emplace_back();
      if (!row || VersionStateFromCode(q->Int(0)) != VersionState::kPresent) {
        continue;
      }
      if (q->Int(1) != 0) {
        elsewhere->push_back(out->size() - 1);
      } else {
        out->back() = q->Blob(2);
      }
    }
    return Status::Ok();
  }

  // The chunk checksums of the blob for `hash` (BlobChecksums), or "" for
  // a blob written before they existed.
  Result<std::string> BlobSumsLocked(std::string_view hash) REQUIRES(mu_) {
    auto q = db_->Prepare("SELECT sums FROM blobs WHERE hash = ?");
    if (!q.ok()) return q.status();
    (*q)->BindBlob(1, hash);
    Result<bool> row = (*q)->Step();
    if (!row.ok()) return row.status();
    if (!*row) return std::string();
    return (*q)->Blob(0);
  }

  struct Chunk {
    uint64_t offset = 0;
    uint64_t size = 0;
    std::string hash;
    bool in_file = false;
    std::string data;  // When inline.
    std::string sums;  // When in a file: its chunk checksums, if any.
  };

  Result<std::string> ReadStream(const VersionRecord& v, uint64_t offset,
                                 uint64_t length) {
    const uint64_t end = offset + length;
    std::vector<Chunk> chunks;
    {
      core::MutexLock lock(&mu_);
      // The chunk holding `offset` starts at the greatest chunk offset not
      // after it; the index (object_id, stream_base, offset) finds it in
      // O(log n), then the range scan walks only the chunks needed.
      auto q = db_->Prepare(
          "SELECT s.offset, s.size, s.hash, s.content_id IS NULL, c.data "
          "FROM stream_chunks s LEFT JOIN inline_contents c "
          "ON c.id = s.content_id "
          "WHERE s.object_id = ?1 AND s.stream_base = ?2 AND s.version <= ?3 "
          "AND s.offset >= (SELECT coalesce(max(offset), 0) FROM stream_chunks "
          "  WHERE object_id = ?1 AND stream_base = ?2 AND offset <= ?4) "
          "AND s.offset < ?5 ORDER BY s.offset");
      if (!q.ok()) return q.status();
      (*q)->Bind(1, v.object_id)
          .Bind(2, static_cast<int64_t>(v.stream_base))
          .Bind(3, static_cast<int64_t>(v.version))
          .Bind(4, static_cast<int64_t>(offset))
          .Bind(5, static_cast<int64_t>(end));
      while (true) {
        Result<bool> row = (*q)->Step();
        if (!row.ok()) return row.status();
        if (!*row) break;
        Chunk c;
        c.offset = static_cast<uint64_t>((*q)->Int(0));
        c.size = static_cast<uint64_t>((*q)->Int(1));
        c.hash = (*q)->Blob(2);
        c.in_file = (*q)->Int(3) != 0;
        if (!c.in_file) c.data = (*q)->Blob(4);
        chunks.push_back(std::move(c));
      }
      q->reset();
      for (Chunk& c : chunks) {
        if (!c.in_file) continue;
        CTXKIT_ASSIGN_OR_RETURN(c.sums, BlobSumsLocked(c.hash));
      }
    }
    std::string out;
    out.reserve(length);
    for (const Chunk& c : chunks) {
      uint64_t from = std::max(offset, c.offset);
      uint64_t to = std::min(end, c.offset + c.size);
      if (from >= to) continue;
      if (!c.in_file) {
        if (c.data.size() != c.size) {
          return Status::Corruption("stream chunk has the wrong size");
        }
        out.append(c.data, from - c.offset, to - from);
        continue;
      }
      std::string part;
      CTXKIT_ASSIGN_OR_RETURN(part, blobs_.Read(c.hash, c.size, c.sums,
                                                from - c.offset, to - from));
      out += part;
    }
    if (out.size() != length) {
      return Status::Corruption("stream chunks do not cover the range read");
    }
    return out;
  }

  // Commits `txn`, announcing the change to other processes through the
  // change sequence. REQUIRES: mu_ held, txn begun.
  Status CommitLocked(WriteTransaction* txn) REQUIRES(mu_) {
    uint64_t begun = seq_.BeginCommit();
    Status s = txn->Commit();
    seq_.EndCommit(begun);
    // Our own commit is not an external change: when nobody else committed
    // since we last looked, move our view of the sequence along with it.
    if (begun == seen_sequence_.load() + 1) seen_sequence_.store(begun);
    return s;
  }

  const SqliteOptions options_;
  BlobFiles blobs_;
  BlobSumsCache sums_;
  ChangeSequence seq_;
  core::Mutex mu_;
  std::unique_ptr<SqliteDb> db_ GUARDED_BY(mu_);
  // Declared after db_: destroyed (its hook removed) before db_ closes.
  std::unique_ptr<Checkpointer> checkpointer_ GUARDED_BY(mu_);
  // Written under mu_; read without it by TryChangeCounter (sequentially
  // consistent: a reader that sees a new seen_sequence_ sees the count
  // ChangeCounter raised before storing it).
  std::atomic<uint64_t> seen_sequence_{0};
  std::atomic<uint64_t> external_changes_{0};
};

}  // namespace

namespace {

// Bytes in the file at `path`; 0 when it does not exist.
uint64_t FileBytes(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
}

// A database is made only where no content is stored: a missing or empty
// ctxkit.db beside blob files means the database was lost or truncated,
// and a new empty one would silently hide every value (and later collect
// the blobs as garbage).
Status RefuseNewDatabaseOverBlobs(const std::string& home) {
  const std::string db = DatabasePath(home);
  if (FileBytes(db) > 0 || FileBytes(db + "-wal") > 0) return Status::Ok();
  BlobFiles blobs(BlobDir(home), /*sync=*/false);
  CTXKIT_ASSIGN_OR_RETURN(bool stored, blobs.HasAny());
  if (!stored) return Status::Ok();
  return Status::Corruption(
      db + (PathExists(db) ? " is empty" : " is missing") + ", but " +
      BlobDir(home) +
      " holds stored values: refusing to start a new, empty store over them "
      "(restore ctxkit.db from a backup, or move the blobs directory away "
      "to start afresh)");
}

}  // namespace

Result<std::unique_ptr<Backend>> OpenSqliteBackend(
    const SqliteOptions& options) {
  const std::string path = DatabasePath(options.home);
  std::unique_ptr<SqliteDb> db;
  if (options.read_only) {
    if (FileBytes(path) == 0) {
      return Status::NotFound("no store at " + options.home + " (" + path +
                              " is missing or empty)");
    }
    CTXKIT_ASSIGN_OR_RETURN(db, SqliteDb::Open(path, options.busy_timeout_ms,
                                               SqliteDb::Mode::kReadOnly));
  } else {
    CTXKIT_RETURN_IF_ERROR(MakeDirs(options.home));
    CTXKIT_RETURN_IF_ERROR(RefuseNewDatabaseOverBlobs(options.home));
    CTXKIT_ASSIGN_OR_RETURN(db, SqliteDb::Open(path, options.busy_timeout_ms));
  }
  auto backend = std::make_unique<SqliteBackend>(options, std::move(db));
  CTXKIT_RETURN_IF_ERROR(backend->Init());
  return std::unique_ptr<Backend>(std::move(backend));
}

}  // namespace ctxkit::storage
