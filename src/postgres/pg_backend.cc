// The PostgreSQL engine: the Backend contract over one database schema
// shared by every process and machine that opens it. See docs/postgres.md.
//
// Writers are ordered by the change sequence: every write transaction
// first bumps the single row of ctxkit_seq, which holds that row's lock
// until commit, so writes apply one at a time in stamp order (as SQLite's
// write lock orders them) and stamps follow commit order. Contents larger
// than one piece are uploaded before that, in a transaction of their own,
// so a large value does not hold other writers up; the write then finds
// the content by hash under the lock (and uploads it again in the rare
// case a collection removed it in between).

#include "postgres/pg_backend.h"

#include <algorithm>
#include <functional>
#include <optional>

#include "core/encoding.h"
#include "core/mutex.h"
#include "core/status_macros.h"
#include "core/value_type_codes.h"
#include "ctxkit/target.h"
#include "postgres/pg_conn.h"
#include "postgres/pg_contents.h"
#include "postgres/pg_gc.h"
#include "postgres/pg_holds.h"
#include "postgres/pg_listener.h"
#include "postgres/pg_records.h"
#include "postgres/pg_rows.h"
#include "postgres/pg_schema.h"
#include "postgres/pg_sessions.h"
#include "storage/backend.h"
#include "storage/engine_rules.h"

namespace ctxkit::storage {
namespace {

// The smallest valid UTF-8 string greater than every string that starts
// with `prefix` (valid UTF-8), or "" when there is none: the last code
// point goes up by one (past the surrogates), dropping trailing U+10FFFFs.
// In the "C" collation's byte order `key >= prefix AND key < bound` is then
// exactly the prefix, as an index range (text parameters must be valid
// UTF-8, so SQLite's bytewise bound does not do here).
std::string Utf8PrefixUpperBound(std::string prefix) {
  while (!prefix.empty()) {
    size_t start = prefix.size() - 1;
    while (start > 0 &&
           (static_cast<unsigned char>(prefix[start]) & 0xC0) == 0x80) {
      --start;
    }
    const auto* b =
        reinterpret_cast<const unsigned char*>(prefix.data() + start);
    const size_t n = prefix.size() - start;
    uint32_t cp =
        n == 1   ? b[0]
        : n == 2 ? (b[0] & 0x1Fu) << 6 | (b[1] & 0x3Fu)
        : n == 3 ? (b[0] & 0x0Fu) << 12 | (b[1] & 0x3Fu) << 6 | (b[2] & 0x3Fu)
                 : (b[0] & 0x07u) << 18 | (b[1] & 0x3Fu) << 12 |
                       (b[2] & 0x3Fu) << 6 | (b[3] & 0x3Fu);
    prefix.resize(start);
    if (cp >= 0x10FFFF) continue;
    cp = cp + 1 == 0xD800 ? 0xE000 : cp + 1;
    if (cp < 0x80) {
      prefix += static_cast<char>(cp);
    } else if (cp < 0x800) {
      prefix += static_cast<char>(0xC0 | cp >> 6);
      prefix += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      prefix += static_cast<char>(0xE0 | cp >> 12);
      prefix += static_cast<char>(0x80 | (cp >> 6 & 0x3F));
      prefix += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      prefix += static_cast<char>(0xF0 | cp >> 18);
      prefix += static_cast<char>(0x80 | (cp >> 12 & 0x3F));
      prefix += static_cast<char>(0x80 | (cp >> 6 & 0x3F));
      prefix += static_cast<char>(0x80 | (cp & 0x3F));
    }
    return prefix;
  }
  return prefix;
}

class PgBackend final : public Backend {
 public:
  PgBackend(PostgresOptions options, std::unique_ptr<PgConn> conn)
      : options_(std::move(options)), conn_(std::move(conn)) {}

  Status Init() {
    core::MutexLock lock(&mu_);
    if (options_.read_only) {
      CTXKIT_RETURN_IF_ERROR(CheckPgSchema(conn_.get()));
    } else {
      CTXKIT_RETURN_IF_ERROR(EnsurePgSchema(conn_.get()));
    }
    CTXKIT_ASSIGN_OR_RETURN(seen_seq_, ReadSeqLocked());
    return Status::Ok();
  }

  Result<WriteResult> Put(const PutRequest& req) override {
    CTXKIT_ASSIGN_OR_RETURN(std::vector<WriteResult> written,
                            PutBatch(std::span<const PutRequest>(&req, 1)));
    return std::move(written.front());
  }

  Result<std::vector<WriteResult>> PutBatch(
      std::span<const PutRequest> requests) override {
    if (options_.read_only) return ReadOnlyError("set");
    core::MutexLock lock(&mu_);
    CTXKIT_RETURN_IF_ERROR(conn_->EnsureConnected());
    for (const PutRequest& req : requests) {
      CTXKIT_RETURN_IF_ERROR(
          PgUploadContent(conn_.get(), req.hash, req.content));
    }
    std::vector<WriteResult> out;
    out.reserve(requests.size());
    if (requests.size() == 1) {
      // One statement, committed on its own: one round trip.
      CTXKIT_ASSIGN_OR_RETURN(StampedWrite written, PutLocked(requests[0]));
      if (written.stamp == seen_seq_ + 1) seen_seq_ = written.stamp;
      out.push_back(std::move(written.result));
      return out;
    }
    CTXKIT_RETURN_IF_ERROR(conn_->Run("BEGIN"));
    uint64_t first = 0;
    uint64_t last = 0;
    for (const PutRequest& req : requests) {
      Result<StampedWrite> written = PutLocked(req);
      if (!written.ok()) return AbortLocked(written.status());
      if (first == 0) first = written->stamp;
      last = written->stamp;
      out.push_back(std::move(written->result));
    }
    CTXKIT_RETURN_IF_ERROR(CommitPlainLocked());
    if (first == seen_seq_ + 1) seen_seq_ = last;
    return out;
  }

  Result<WriteResult> Append(const AppendRequest& req) override {
    if (options_.read_only) return ReadOnlyError("append");
    core::MutexLock lock(&mu_);
    CTXKIT_RETURN_IF_ERROR(conn_->EnsureConnected());
    CTXKIT_RETURN_IF_ERROR(PgUploadContent(conn_.get(), req.hash, req.bytes));
    CTXKIT_RETURN_IF_ERROR(BeginWriteLocked(1));
    Result<WriteResult> written = AppendLocked(req);
    if (!written.ok()) return AbortLocked(written.status());
    CTXKIT_RETURN_IF_ERROR(CommitLocked());
    return written;
  }

  Result<WriteResult> Remove(const Scope& scope, std::string_view key,
                             std::string_view producer, int64_t now_unix_ns,
                             VersionState state) override {
    if (options_.read_only) return ReadOnlyError("remove");
    core::MutexLock lock(&mu_);
    CTXKIT_RETURN_IF_ERROR(BeginWriteLocked(1));
    Result<WriteResult> written =
        RemoveLocked(scope, key, producer, now_unix_ns, state);
    if (!written.ok()) return AbortLocked(written.status());
    CTXKIT_RETURN_IF_ERROR(CommitLocked());
    return written;
  }

  Result<ObjectRecord> Move(int64_t id, const Scope& to) override {
    return Relocate(id, &to, std::nullopt);
  }

  Result<ObjectRecord> Rename(int64_t id, std::string_view to_key) override {
    return Relocate(id, nullptr, to_key);
  }

  Status RecordTokenCounts(const std::vector<TokenCount>& counts) override {
    // Counts are a cache: a read-only store counts again next time. They
    // take a (gap) stamp, so other processes drop cached records whose
    // counts they lacked, as with the SQLite engine.
    if (counts.empty() || options_.read_only) return Status::Ok();
    core::MutexLock lock(&mu_);
    CTXKIT_RETURN_IF_ERROR(BeginWriteLocked(1));
    for (const TokenCount& c : counts) {
      PgParams p;
      p.Int(static_cast<int64_t>(c.tokens))
          .Int(c.object_id)
          .Int(static_cast<int64_t>(c.version));
      Status s = conn_
                     ->Exec(
                         "UPDATE ctxkit_versions SET tokens = $1 WHERE "
                         "object_id = $2 AND version = $3 AND tokens IS "
                         "NULL",
                         p)
                     .status();
      if (!s.ok()) return AbortLocked(s);
    }
    return CommitLocked();
  }

  Result<ObjectRecord> FindObject(const Scope& scope,
                                  std::string_view key) override {
    core::MutexLock lock(&mu_);
    CTXKIT_RETURN_IF_ERROR(conn_->EnsureConnected());
    return FindObjectLocked(scope, key);
  }

  Result<std::vector<ObjectRecord>> FindObjects(
      std::string_view key, const std::vector<Scope>& scopes) override {
    if (scopes.empty()) return std::vector<ObjectRecord>();
    PgParams p;
    const std::string sql = FindObjectsSql(key, scopes, &p);
    core::MutexLock lock(&mu_);
    CTXKIT_RETURN_IF_ERROR(conn_->EnsureConnected());
    CTXKIT_ASSIGN_OR_RETURN(PgRows rows, conn_->Exec(sql, p));
    return PgObjectsOf(rows);
  }

  // One statement: the change sequence beside the objects found (a row of
  // NULL objects when none is).
  Result<std::vector<ObjectRecord>> FindObjectsCounted(
      std::string_view key, const std::vector<Scope>& scopes,
      uint64_t* counter) override {
    if (scopes.empty()) {
      CTXKIT_ASSIGN_OR_RETURN(*counter, ChangeCounter());
      return std::vector<ObjectRecord>();
    }
    PgParams p;
    const std::string sql = "SELECT f.*, s.seq FROM ctxkit_seq s LEFT JOIN (" +
                            FindObjectsSql(key, scopes, &p) + ") f ON true";
    core::MutexLock lock(&mu_);
    CTXKIT_RETURN_IF_ERROR(conn_->EnsureConnected());
    CTXKIT_ASSIGN_OR_RETURN(PgRows rows, conn_->Exec(sql, p));
    if (rows.empty()) {
      return Status::Corruption("PostgreSQL store: ctxkit_seq has no row");
    }
    const int seq_column = rows.columns() - 1;
    *counter =
        CountChangeLocked(static_cast<uint64_t>(rows.Int(0, seq_column)));
    std::vector<ObjectRecord> out;
    for (int r = 0; r < rows.size(); ++r) {
      if (rows.IsNull(r, 0)) continue;
      CTXKIT_ASSIGN_OR_RETURN(ObjectRecord obj, PgObjectAt(rows, r));
      out.push_back(std::move(obj));
    }
    return out;
  }

  Result<ObjectRecord> GetObject(int64_t id) override {
    core::MutexLock lock(&mu_);
    CTXKIT_RETURN_IF_ERROR(conn_->EnsureConnected());
    return GetObjectLocked(id);
  }

  Result<VersionRecord> GetVersion(int64_t id, uint64_t version) override {
    core::MutexLock lock(&mu_);
    CTXKIT_RETURN_IF_ERROR(conn_->EnsureConnected());
    if (version == 0) {
      CTXKIT_ASSIGN_OR_RETURN(ObjectRecord obj, GetObjectLocked(id));
      version = obj.latest_version;
    }
    return GetVersionLocked(id, version);
  }

  Result<std::vector<VersionRecord>> ListVersions(int64_t id) override {
    static const std::string sql =
        std::string("SELECT ") + kPgVersionColumns +
        " FROM ctxkit_versions WHERE object_id = $1 ORDER BY version";
    core::MutexLock lock(&mu_);
    CTXKIT_RETURN_IF_ERROR(conn_->EnsureConnected());
    CTXKIT_ASSIGN_OR_RETURN(PgRows rows, conn_->Exec(sql, PgParams().Int(id)));
    std::vector<VersionRecord> out;
    for (int r = 0; r < rows.size(); ++r) {
      out.push_back(PgVersionAt(rows, r, id, 0));
    }
    return out;
  }

  Result<std::vector<ObjectRecord>> ListObjects(
      const ObjectQuery& query) override {
    std::string sql = std::string("SELECT ") + kPgObjectColumns +
                      " FROM ctxkit_objects o WHERE true";
    PgParams p;
    auto next = [&p]() { return "$" + std::to_string(p.size()); };
    if (!query.include_deleted) sql += " AND NOT o.deleted";
    if (!query.scopes.empty()) {
      sql += " AND o.scope IN (";
      for (size_t i = 0; i < query.scopes.size(); ++i) {
        p.Text(query.scopes[i].ToString());
        sql += (i ? ", " : "") + next();
      }
      sql += ")";
    }
    if (query.type) {
      p.Int(core::ValueTypeCode(*query.type));
      sql += " AND o.type = " + next();
    }
    if (!query.key_prefix.empty()) {
      p.Text(query.key_prefix);
      sql += " AND o.key >= " + next();
      const std::string upper = Utf8PrefixUpperBound(query.key_prefix);
      if (!upper.empty()) {
        p.Text(upper);
        sql += " AND o.key < " + next();
      }
    }
    if (query.after) {
      p.Text(query.after->first);
      sql += " AND (o.key, o.scope) > (" + next();
      p.Text(query.after->second);
      sql += ", " + next() + ")";
    }
    for (const std::string& tag : query.tags) {
      p.Text(tag);
      sql +=
          " AND EXISTS (SELECT 1 FROM ctxkit_tags t WHERE t.object_id = o.id "
          "AND t.tag = " +
          next() + ")";
    }
    p.Int(static_cast<int64_t>(query.limit));
    sql += " ORDER BY o.key, o.scope LIMIT " + next();
    core::MutexLock lock(&mu_);
    CTXKIT_RETURN_IF_ERROR(conn_->EnsureConnected());
    CTXKIT_ASSIGN_OR_RETURN(PgRows rows, conn_->Exec(sql, p));
    return PgObjectsOf(rows);
  }

  Result<uint64_t> LatestChange() override {
    core::MutexLock lock(&mu_);
    CTXKIT_RETURN_IF_ERROR(conn_->EnsureConnected());
    CTXKIT_ASSIGN_OR_RETURN(
        PgRows rows,
        conn_->Exec("SELECT coalesce(max(changed), 0) FROM ctxkit_objects",
                    PgParams()));
    return static_cast<uint64_t>(rows.Int(0, 0));
  }

  Result<std::vector<ChangedObject>> ListChanged(uint64_t after,
                                                 size_t limit) override {
    static const std::string sql =
        std::string("SELECT ") + kPgObjectColumns +
        ", o.changed FROM ctxkit_objects o WHERE o.changed > $1 "
        "ORDER BY o.changed LIMIT $2";
    core::MutexLock lock(&mu_);
    CTXKIT_RETURN_IF_ERROR(conn_->EnsureConnected());
    CTXKIT_ASSIGN_OR_RETURN(
        PgRows rows, conn_->Exec(sql, PgParams()
                                          .Int(static_cast<int64_t>(after))
                                          .Int(static_cast<int64_t>(limit))));
    std::vector<ChangedObject> out;
    for (int r = 0; r < rows.size(); ++r) {
      CTXKIT_ASSIGN_OR_RETURN(ObjectRecord obj, PgObjectAt(rows, r));
      obj.tags.clear();
      out.push_back({static_cast<uint64_t>(rows.Int(r, kPgObjectColumnCount)),
                     std::move(obj)});
    }
    return out;
  }

  Result<std::string> Read(const VersionRecord& v, uint64_t offset,
                           uint64_t length) override {
    CTXKIT_RETURN_IF_ERROR(CheckHasContent(v));
    if (offset >= v.size_bytes) return std::string();
    length = std::min(length, v.size_bytes - offset);
    core::MutexLock lock(&mu_);
    CTXKIT_RETURN_IF_ERROR(conn_->EnsureConnected());
    return PgReadRange(conn_.get(), v, offset, length);
  }

  Result<std::vector<VersionRecord>> ScanVersions(const VersionKey& after,
                                                  size_t limit) override {
    static const std::string sql =
        std::string("SELECT object_id, ") + kPgVersionColumns +
        " FROM ctxkit_versions WHERE (object_id, version) > ($1, $2) "
        "ORDER BY object_id, version LIMIT $3";
    core::MutexLock lock(&mu_);
    CTXKIT_RETURN_IF_ERROR(conn_->EnsureConnected());
    CTXKIT_ASSIGN_OR_RETURN(
        PgRows rows,
        conn_->Exec(sql, PgParams()
                             .Int(after.object_id)
                             .Int(static_cast<int64_t>(after.version))
                             .Int(static_cast<int64_t>(limit))));
    std::vector<VersionRecord> out;
    for (int r = 0; r < rows.size(); ++r) {
      out.push_back(PgVersionAt(rows, r, rows.Int(r, 0), 1));
    }
    return out;
  }

  Result<CollectReport> CollectVersions(
      const std::vector<VersionKey>& keys) override {
    return Collect(keys, /*apply=*/true);
  }

  Result<CollectReport> MeasureCollect(
      const std::vector<VersionKey>& keys) override {
    return Collect(keys, /*apply=*/false);
  }

  // CollectVersions, or with !apply its measure: the same work, rolled back.
  Result<CollectReport> Collect(const std::vector<VersionKey>& keys,
                                bool apply) {
    if (options_.read_only) return ReadOnlyError("gc");
    core::MutexLock lock(&mu_);
    CTXKIT_RETURN_IF_ERROR(BeginWriteLocked(1));
    Status none_held = pg_holds::LockExclusive(conn_.get());
    if (none_held.ok()) {
      none_held = pg_holds::CheckNoneHeld(conn_.get(), keys);
    }
    if (!none_held.ok()) return AbortLocked(none_held);
    Result<CollectReport> report = PgCollect(conn_.get(), keys);
    if (!report.ok()) return AbortLocked(report.status());
    if (!apply) {
      AbortLocked(Status::Ok()).IgnoreError();  // Measured: roll back.
      return report;
    }
    CTXKIT_RETURN_IF_ERROR(CommitLocked());
    return report;
  }

  Result<BackendStats> Stats() override {
    core::MutexLock lock(&mu_);
    CTXKIT_RETURN_IF_ERROR(conn_->EnsureConnected());
    CTXKIT_ASSIGN_OR_RETURN(
        PgRows rows,
        conn_->Exec(
            "SELECT (SELECT count(*) FROM ctxkit_objects), "
            "(SELECT count(*) FROM ctxkit_objects WHERE NOT deleted), "
            "(SELECT count(*) FROM ctxkit_versions), "
            "(SELECT coalesce(sum(size), 0)::bigint FROM ctxkit_contents)"));
    BackendStats stats;
    stats.objects = static_cast<uint64_t>(rows.Int(0, 0));
    stats.live_objects = static_cast<uint64_t>(rows.Int(0, 1));
    stats.versions = static_cast<uint64_t>(rows.Int(0, 2));
    stats.content_bytes = static_cast<uint64_t>(rows.Int(0, 3));
    stats.blob_files = 0;  // Every content is in the database.
    return stats;
  }

  Result<std::vector<UsageRecord>> Usage() override {
    // Each distinct content a (scope, type) group references counts once
    // in that group; every content is held in the database (kInline).
    static const std::string sql = R"sql(
WITH refs(scope, type, object_id, content_id) AS (
  SELECT o.scope, v.type, v.object_id, v.content_id
  FROM ctxkit_versions v JOIN ctxkit_objects o ON o.id = v.object_id
  WHERE v.content_id IS NOT NULL
  UNION ALL
  SELECT o.scope, v.type, c.object_id, c.content_id
  FROM ctxkit_chunks c
  JOIN ctxkit_versions v ON v.object_id = c.object_id AND v.version = c.version
  JOIN ctxkit_objects o ON o.id = c.object_id
)
SELECT g.scope, g.type, g.objects, g.versions,
       (SELECT coalesce(sum(k.size), 0)::bigint FROM ctxkit_contents k
        WHERE k.id IN (SELECT r.content_id FROM refs r
                       WHERE r.scope = g.scope AND r.type = g.type))
FROM (SELECT scope, type, count(DISTINCT object_id) AS objects,
             count(*) AS versions FROM refs GROUP BY scope, type) g
ORDER BY g.scope, g.type)sql";
    core::MutexLock lock(&mu_);
    CTXKIT_RETURN_IF_ERROR(conn_->EnsureConnected());
    CTXKIT_ASSIGN_OR_RETURN(PgRows rows, conn_->Exec(sql));
    std::vector<UsageRecord> out;
    for (int r = 0; r < rows.size(); ++r) {
      UsageRecord u;
      CTXKIT_ASSIGN_OR_RETURN(u.scope, Scope::Parse(rows.Bytes(r, 0)));
      std::optional<ValueType> type = core::ValueTypeFromCode(rows.Int(r, 1));
      if (!type) {
        return Status::Corruption("unknown value type code " +
                                  std::to_string(rows.Int(r, 1)));
      }
      u.type = *type;
      u.medium = UsageRecord::Medium::kInline;
      u.objects = static_cast<uint64_t>(rows.Int(r, 2));
      u.versions = static_cast<uint64_t>(rows.Int(r, 3));
      u.bytes = static_cast<uint64_t>(rows.Int(r, 4));
      out.push_back(std::move(u));
    }
    return out;
  }

  // ---- Session state ----

  Result<std::optional<uint64_t>> SessionGeneration(
      std::string_view id) override {
    core::MutexLock lock(&mu_);
    CTXKIT_RETURN_IF_ERROR(conn_->EnsureConnected());
    return pg_sessions::Generation(conn_.get(), id, /*lock_row=*/false);
  }

  Result<SessionRecord> LoadSession(std::string_view id) override {
    core::MutexLock lock(&mu_);
    CTXKIT_RETURN_IF_ERROR(conn_->EnsureConnected());
    return pg_sessions::Load(conn_.get(), id);
  }

  Result<SessionRecord> LoadSessionHead(std::string_view id,
                                        size_t listed_limit) override {
    core::MutexLock lock(&mu_);
    CTXKIT_RETURN_IF_ERROR(conn_->EnsureConnected());
    return pg_sessions::LoadHead(conn_.get(), id, listed_limit);
  }

  Result<uint64_t> CountListedSessionEntries(std::string_view id) override {
    core::MutexLock lock(&mu_);
    CTXKIT_RETURN_IF_ERROR(conn_->EnsureConnected());
    return pg_sessions::CountListed(conn_.get(), id);
  }

  Result<SessionRecord> LoadSessionEntries(
      std::string_view id,
      const std::vector<std::string>& object_ids) override {
    core::MutexLock lock(&mu_);
    CTXKIT_RETURN_IF_ERROR(conn_->EnsureConnected());
    return pg_sessions::LoadEntries(conn_.get(), id, object_ids);
  }

  // Session writes take no stamp: no cached object or version record can
  // go stale through them (as in the SQLite engine).
  Result<uint64_t> WriteSession(const SessionWrite& write) override {
    if (options_.read_only) return ReadOnlyError("session write");
    core::MutexLock lock(&mu_);
    CTXKIT_RETURN_IF_ERROR(conn_->EnsureConnected());
    CTXKIT_RETURN_IF_ERROR(conn_->Run("BEGIN"));
    Result<uint64_t> next = pg_sessions::Write(conn_.get(), write);
    if (!next.ok()) return AbortLocked(next.status());
    CTXKIT_RETURN_IF_ERROR(CommitPlainLocked());
    return next;
  }

  Result<std::vector<std::string>> ListSessions() override {
    core::MutexLock lock(&mu_);
    CTXKIT_RETURN_IF_ERROR(conn_->EnsureConnected());
    return pg_sessions::List(conn_.get());
  }

  Status RemoveSession(std::string_view id) override {
    if (options_.read_only) return ReadOnlyError("session remove");
    core::MutexLock lock(&mu_);
    CTXKIT_RETURN_IF_ERROR(conn_->EnsureConnected());
    CTXKIT_RETURN_IF_ERROR(conn_->Run("BEGIN"));
    Status s = pg_sessions::Remove(conn_.get(), id);
    if (!s.ok()) return AbortLocked(s);
    return CommitPlainLocked();
  }

  // A hold changes no object: no stamp, no notification.
  Status AddHolds(std::string_view holder,
                  std::span<const VersionKey> keys) override {
    if (keys.empty()) return Status::Ok();
    core::MutexLock lock(&mu_);
    CTXKIT_RETURN_IF_ERROR(conn_->EnsureConnected());
    CTXKIT_ASSIGN_OR_RETURN(bool all_held,
                            pg_holds::AllHeld(conn_.get(), keys));
    if (all_held) return Status::Ok();
    if (options_.read_only) return ReadOnlyError("hold");
    return PlainTransactionLocked([&](PgConn* conn) -> Status {
      CTXKIT_RETURN_IF_ERROR(pg_holds::LockShared(conn));
      return pg_holds::Add(conn, holder, keys);
    });
  }

  Result<std::vector<VersionKey>> ListHeld() override {
    core::MutexLock lock(&mu_);
    CTXKIT_RETURN_IF_ERROR(conn_->EnsureConnected());
    return pg_holds::ListHeld(conn_.get());
  }

  Status DropHolds(std::string_view holder) override {
    if (options_.read_only) return ReadOnlyError("hold");
    core::MutexLock lock(&mu_);
    CTXKIT_RETURN_IF_ERROR(conn_->EnsureConnected());
    return PlainTransactionLocked(
        [&](PgConn* conn) { return pg_holds::Drop(conn, holder); });
  }

  Result<bool> HoldsPending() override {
    core::MutexLock lock(&mu_);
    CTXKIT_RETURN_IF_ERROR(conn_->EnsureConnected());
    return pg_holds::Pending(conn_.get());
  }

  Status MarkHoldsRecorded() override {
    if (options_.read_only) return ReadOnlyError("gc");
    core::MutexLock lock(&mu_);
    CTXKIT_RETURN_IF_ERROR(conn_->EnsureConnected());
    return PlainTransactionLocked(
        [](PgConn* conn) { return pg_holds::ClearPending(conn); });
  }

  // Records change no object: no stamp, no notification.
  Status WriteRecords(const RecordWrite& write) override {
    CTXKIT_RETURN_IF_ERROR(CheckRecordWrite(write));
    if (options_.read_only) return ReadOnlyError("record write");
    core::MutexLock lock(&mu_);
    CTXKIT_RETURN_IF_ERROR(conn_->EnsureConnected());
    return PlainTransactionLocked(
        [&](PgConn* conn) { return pg_records::Write(conn, write); });
  }

  Result<std::optional<StoredRecord>> GetRecord(
      std::string_view kind, std::string_view name) override {
    core::MutexLock lock(&mu_);
    CTXKIT_RETURN_IF_ERROR(conn_->EnsureConnected());
    return pg_records::Get(conn_.get(), kind, name);
  }

  Result<std::vector<StoredRecord>> ListRecords(
      std::string_view kind) override {
    core::MutexLock lock(&mu_);
    CTXKIT_RETURN_IF_ERROR(conn_->EnsureConnected());
    return pg_records::List(conn_.get(), kind);
  }

  Result<std::vector<std::string>> ReadLog(std::string_view log,
                                           size_t limit) override {
    core::MutexLock lock(&mu_);
    CTXKIT_RETURN_IF_ERROR(conn_->EnsureConnected());
    return pg_records::ReadLog(conn_.get(), log, limit);
  }

  // `body` on the connection, in a transaction that takes no change stamp;
  // rolled back when it fails.
  Status PlainTransactionLocked(const std::function<Status(PgConn*)>& body)
      REQUIRES(mu_) {
    CTXKIT_RETURN_IF_ERROR(conn_->Run("BEGIN"));
    Status s = body(conn_.get());
    if (!s.ok()) return AbortLocked(s);
    return CommitPlainLocked();
  }

  Result<std::unique_ptr<CommitListener>> ListenForCommits() override {
    return OpenPgCommitListener(options_.url);
  }

  Result<uint64_t> ChangeCounter() override {
    core::MutexLock lock(&mu_);
    CTXKIT_RETURN_IF_ERROR(conn_->EnsureConnected());
    CTXKIT_ASSIGN_OR_RETURN(uint64_t seq, ReadSeqLocked());
    return CountChangeLocked(seq);
  }

  // The counter after reading `seq` from ctxkit_seq: it moves when the
  // sequence moved other than by this backend's own commits.
  uint64_t CountChangeLocked(uint64_t seq) REQUIRES(mu_) {
    if (seq != seen_seq_) {
      seen_seq_ = seq;
      ++external_changes_;
    }
    return external_changes_;
  }

  // FindObjects' statement; fills `p`. DISTINCT ON keeps the first row of
  // each scope: the live object, or the most recently removed one.
  static std::string FindObjectsSql(std::string_view key,
                                    const std::vector<Scope>& scopes,
                                    PgParams* p) {
    p->Text(key);
    for (const Scope& scope : scopes) p->Text(scope.ToString());
    return std::string("SELECT DISTINCT ON (o.scope) ") + kPgObjectColumns +
           " FROM ctxkit_objects o WHERE o.key = $1 AND o.scope IN (" +
           PgPlaceholders(2, scopes.size()) +
           ") ORDER BY o.scope, o.deleted, o.updated_ns DESC";
  }

  Result<std::string> RefSecret() override {
    core::MutexLock lock(&mu_);
    CTXKIT_RETURN_IF_ERROR(conn_->EnsureConnected());
    CTXKIT_ASSIGN_OR_RETURN(
        PgRows rows,
        conn_->Exec("SELECT value FROM ctxkit_meta WHERE name = 'ref_secret'"));
    std::optional<std::string> secret;
    if (!rows.empty()) secret = core::FromHex(rows.Bytes(0, 0));
    if (!secret || secret->size() < 16) {
      return Status::Corruption(
          "PostgreSQL store: ctxkit_meta.ref_secret is missing or malformed");
    }
    return *std::move(secret);
  }

 private:
  Result<uint64_t> ReadSeqLocked() REQUIRES(mu_) {
    CTXKIT_ASSIGN_OR_RETURN(PgRows rows,
                            conn_->Exec("SELECT seq FROM ctxkit_seq"));
    if (rows.empty()) {
      return Status::Corruption("PostgreSQL store: ctxkit_seq is empty");
    }
    return static_cast<uint64_t>(rows.Int(0, 0));
  }

  // ---- Transactions ----

  // Begins a write transaction: takes the change sequence's row (which
  // orders writers) and reserves `stamps` stamps above every committed one
  // (one per object the write changes; unused ones are harmless gaps).
  Status BeginWriteLocked(size_t stamps) REQUIRES(mu_) {
    stamps = std::max<size_t>(stamps, 1);
    CTXKIT_RETURN_IF_ERROR(conn_->EnsureConnected());
    CTXKIT_RETURN_IF_ERROR(conn_->Run("BEGIN"));
    Result<PgRows> rows =
        conn_->Exec("UPDATE ctxkit_seq SET seq = seq + $1 RETURNING seq",
                    PgParams().Int(static_cast<int64_t>(stamps)));
    if (!rows.ok()) return AbortLocked(rows.status());
    last_stamp_ = static_cast<uint64_t>(rows->Int(0, 0));
    txn_first_stamp_ = last_stamp_ - stamps + 1;
    next_stamp_ = txn_first_stamp_;
    return Status::Ok();
  }

  // The next stamp reserved by BeginWriteLocked (the change feed's order).
  Result<uint64_t> NextStampLocked() REQUIRES(mu_) {
    if (next_stamp_ > last_stamp_) {
      return Status::Internal("PostgreSQL store: more changes than stamps");
    }
    return next_stamp_++;
  }

  // Commits a write transaction. Our own commit is not an external change:
  // when nobody else committed since we last looked, the sequence we saw
  // moves along with it.
  Status CommitLocked() REQUIRES(mu_) {
    CTXKIT_RETURN_IF_ERROR(CommitPlainLocked());
    if (txn_first_stamp_ == seen_seq_ + 1) seen_seq_ = last_stamp_;
    return Status::Ok();
  }

  Status CommitPlainLocked() REQUIRES(mu_) {
    Status s = conn_->Run("COMMIT");
    if (s.ok()) return s;
    if (conn_->Broken()) {
      return Status::Unavailable(
          std::string(s.message()) +
          " (the connection was lost during COMMIT: the write may or may "
          "not have been applied)");
    }
    return AbortLocked(s);
  }

  // Rolls back the open transaction and returns `s`.
  Status AbortLocked(Status s) REQUIRES(mu_) {
    if (!conn_->Broken()) conn_->Run("ROLLBACK").IgnoreError();
    return s;
  }

  // ---- Objects ----

  Result<ObjectRecord> FindObjectLocked(const Scope& scope,
                                        std::string_view key) REQUIRES(mu_) {
    // A live object wins over removed ones with the same key.
    static const std::string sql =
        std::string("SELECT ") + kPgObjectColumns +
        " FROM ctxkit_objects o WHERE o.scope = $1 AND o.key = $2 "
        "ORDER BY o.deleted, o.updated_ns DESC LIMIT 1";
    const std::string scope_text = scope.ToString();
    CTXKIT_ASSIGN_OR_RETURN(
        PgRows rows, conn_->Exec(sql, PgParams().Text(scope_text).Text(key)));
    if (rows.empty()) {
      return KeyNotFound(key, scope_text);
    }
    return PgObjectAt(rows, 0);
  }

  Result<ObjectRecord> GetObjectLocked(int64_t id) REQUIRES(mu_) {
    static const std::string sql = std::string("SELECT ") + kPgObjectColumns +
                                   " FROM ctxkit_objects o WHERE o.id = $1";
    CTXKIT_ASSIGN_OR_RETURN(PgRows rows, conn_->Exec(sql, PgParams().Int(id)));
    if (rows.empty()) {
      return Status::NotFound("no object with that id in this store");
    }
    return PgObjectAt(rows, 0);
  }

  Result<VersionRecord> GetVersionLocked(int64_t id, uint64_t version)
      REQUIRES(mu_) {
    static const std::string sql =
        std::string("SELECT ") + kPgVersionColumns +
        " FROM ctxkit_versions WHERE object_id = $1 AND version = $2";
    CTXKIT_ASSIGN_OR_RETURN(
        PgRows rows, conn_->Exec(sql, PgParams().Int(id).Int(
                                          static_cast<int64_t>(version))));
    if (rows.empty()) {
      return Status::NotFound("no version " + std::to_string(version));
    }
    return PgVersionAt(rows, 0, id, 0);
  }

  // The live or most recent object at (scope, key), or a new empty one.
  Result<ObjectRecord> FindOrCreateLocked(const Scope& scope,
                                          std::string_view key, ValueType type,
                                          int64_t now) REQUIRES(mu_) {
    Result<ObjectRecord> found = FindObjectLocked(scope, key);
    if (found.ok() || !found.status().IsNotFound()) return found;
    // Its stamp comes with its first version (WriteVersionLocked), in this
    // same transaction.
    PgParams p;
    p.Text(scope.ToString()).Text(key).Int(core::ValueTypeCode(type)).Int(now);
    CTXKIT_ASSIGN_OR_RETURN(
        PgRows rows,
        conn_->Exec("INSERT INTO ctxkit_objects(id, scope, key, type, "
                    "latest_version, deleted, size, created_ns, updated_ns, "
                    "changed) VALUES (nextval('ctxkit_object_ids'), $1, $2, "
                    "$3, 0, false, 0, $4, $4, 0) RETURNING id",
                    p));
    ObjectRecord obj;
    obj.id = rows.Int(0, 0);
    obj.scope = scope;
    obj.key = std::string(key);
    obj.type = type;
    obj.created_unix_ns = now;
    obj.updated_unix_ns = now;
    return obj;
  }

  struct StampedWrite {
    WriteResult result;
    uint64_t stamp = 0;
  };

  // One put through ctxkit_put (pg_schema.cc), in the open transaction or
  // as a statement of its own. A content over one piece was uploaded
  // before (PgUploadContent) and is found by its hash.
  Result<StampedWrite> PutLocked(const PutRequest& req) REQUIRES(mu_) {
    static const std::string sql =
        "SELECT r_stamp, r_id, r_version, r_created, r_at FROM "
        "ctxkit_put($1, $2, $3::integer, $4, $5, $6::bytea, $7, $8, "
        "$9::bigint, $10, $11, $12::integer = 1)";
    const std::vector<std::string> tags = NormalizedTags(req.tags);
    std::string joined;
    for (const std::string& tag : tags) {
      if (!joined.empty()) joined += '\n';
      joined += tag;
    }
    PgParams p;
    p.Text(req.scope.ToString())
        .Text(req.key)
        .Int(core::ValueTypeCode(req.type))
        .Bytes(req.hash)
        .Int(static_cast<int64_t>(req.content.size()));
    if (req.content.size() <= kPgPieceBytes) {
      p.Bytes(req.content);
    } else {
      p.Null();
    }
    p.Text(req.producer).Int(req.now_unix_ns);
    if (req.tokens) {
      p.Int(static_cast<int64_t>(*req.tokens));
    } else {
      p.Null();
    }
    p.Int(static_cast<int64_t>(req.expected_version))
        .Text(joined)
        .Int(IsAppendableType(req.type) ? 1 : 0);
    CTXKIT_ASSIGN_OR_RETURN(PgRows rows, conn_->Exec(sql, p));
    if (rows.empty()) return Status::Internal("ctxkit_put returned no row");
    StampedWrite out;
    out.stamp = static_cast<uint64_t>(rows.Int(0, 0));
    if (rows.IsNull(0, 1)) {
      return VersionMoved(req.key, static_cast<uint64_t>(rows.Int(0, 4)),
                          req.expected_version);
    }
    ObjectRecord& obj = out.result.object;
    obj.id = rows.Int(0, 1);
    obj.scope = req.scope;
    obj.key = req.key;
    obj.latest_version = static_cast<uint64_t>(rows.Int(0, 2)) - 1;
    obj.created_unix_ns = rows.Int(0, 3);
    out.result.version = PutVersion(obj, req);
    AdvanceRecord(&obj, out.result.version);
    obj.tags = tags;
    return out;
  }

  Result<WriteResult> AppendLocked(const AppendRequest& req) REQUIRES(mu_) {
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
    CTXKIT_ASSIGN_OR_RETURN(
        ObjectRecord obj,
        FindOrCreateLocked(req.scope, req.key, plan.type, req.now_unix_ns));
    VersionRecord v = AppendVersion(obj, req, plan);
    CTXKIT_ASSIGN_OR_RETURN(int64_t content_id,
                            PgContentId(conn_.get(), req.hash, req.bytes));
    CTXKIT_RETURN_IF_ERROR(InsertChunkLocked(v, plan.offset, req.bytes.size(),
                                             req.hash, content_id));
    CTXKIT_RETURN_IF_ERROR(WriteVersionLocked(&obj, v, 0));
    if (!plan.continues) {
      CTXKIT_RETURN_IF_ERROR(ReplaceTagsLocked(&obj, req.tags));
    }
    return WriteResult{std::move(obj), std::move(v)};
  }

  Result<WriteResult> RemoveLocked(const Scope& scope, std::string_view key,
                                   std::string_view producer, int64_t now,
                                   VersionState state) REQUIRES(mu_) {
    CTXKIT_ASSIGN_OR_RETURN(ObjectRecord obj, FindObjectLocked(scope, key));
    if (obj.deleted) {
      return Status::NotFound("'" + std::string(key) + "' was removed");
    }
    VersionRecord v = TombstoneVersion(obj, state, producer, now);
    CTXKIT_RETURN_IF_ERROR(WriteVersionLocked(&obj, v, 0));
    return WriteResult{std::move(obj), std::move(v)};
  }

  // Move and Rename: object `id` to scope `*to` (nullptr: its own) under
  // key `to_key` (nullopt: its own), in one transaction.
  Result<ObjectRecord> Relocate(int64_t id, const Scope* to,
                                std::optional<std::string_view> to_key) {
    if (options_.read_only) return ReadOnlyError(to ? "promote" : "rename");
    core::MutexLock lock(&mu_);
    CTXKIT_RETURN_IF_ERROR(BeginWriteLocked(1));
    Result<ObjectRecord> moved = RelocateLocked(id, to, to_key);
    if (!moved.ok()) return AbortLocked(moved.status());
    CTXKIT_RETURN_IF_ERROR(CommitLocked());
    return moved;
  }

  Result<ObjectRecord> RelocateLocked(int64_t id, const Scope* to,
                                      std::optional<std::string_view> to_key)
      REQUIRES(mu_) {
    CTXKIT_ASSIGN_OR_RETURN(ObjectRecord obj, GetObjectLocked(id));
    Scope scope = to != nullptr ? *to : obj.scope;
    std::string key = to_key ? std::string(*to_key) : obj.key;
    CTXKIT_RETURN_IF_ERROR(
        CheckDestinationFree(FindObjectLocked(scope, key), obj.id, scope, key));
    CTXKIT_ASSIGN_OR_RETURN(uint64_t stamp, NextStampLocked());
    CTXKIT_RETURN_IF_ERROR(
        conn_
            ->Exec("UPDATE ctxkit_objects SET scope = $1, key = $2, changed "
                   "= $3 WHERE id = $4",
                   PgParams()
                       .Text(scope.ToString())
                       .Text(key)
                       .Int(static_cast<int64_t>(stamp))
                       .Int(obj.id))
            .status());
    obj.scope = std::move(scope);
    obj.key = std::move(key);
    return obj;
  }

  Status InsertChunkLocked(const VersionRecord& v, uint64_t offset,
                           uint64_t size, std::string_view hash,
                           int64_t content_id) REQUIRES(mu_) {
    PgParams p;
    p.Int(v.object_id)
        .Int(static_cast<int64_t>(v.version))
        .Int(static_cast<int64_t>(v.stream_base))
        .Int(static_cast<int64_t>(offset))
        .Int(static_cast<int64_t>(size))
        .Bytes(hash)
        .Int(content_id);
    return conn_
        ->Exec(
            "INSERT INTO ctxkit_chunks(object_id, version, stream_base, "
            "off, size, hash, content_id) VALUES ($1, $2, $3, $4, $5, $6, "
            "$7)",
            p)
        .status();
  }

  // Appends version `v` to `obj` and makes it the object's latest (a
  // tombstone removes the object), stamping the change, in one statement.
  // `content_id`: the whole content's row (contents ids start at 1); 0 for
  // tombstones and appendable values (their chunks name theirs).
  Status WriteVersionLocked(ObjectRecord* obj, const VersionRecord& v,
                            int64_t content_id) REQUIRES(mu_) {
    CTXKIT_ASSIGN_OR_RETURN(uint64_t stamp, NextStampLocked());
    const bool tombstone = v.state != VersionState::kPresent;
    PgParams p;
    p.Int(v.object_id)
        .Int(static_cast<int64_t>(v.version))
        .Int(static_cast<int64_t>(v.state))
        .Int(core::ValueTypeCode(v.type));
    if (v.hash.empty()) {
      p.Null();
    } else {
      p.Bytes(v.hash);
    }
    p.Int(static_cast<int64_t>(v.size_bytes))
        .Int(v.created_unix_ns)
        .Text(v.producer)
        .Int(static_cast<int64_t>(v.stream_base));
    if (content_id != 0) {
      p.Int(content_id);
    } else {
      p.Null();
    }
    if (v.tokens) {
      p.Int(static_cast<int64_t>(*v.tokens));
    } else {
      p.Null();
    }
    p.Int(tombstone ? 1 : 0).Int(static_cast<int64_t>(stamp));
    // A tombstone keeps the object's type and size (of its last present
    // version).
    CTXKIT_RETURN_IF_ERROR(
        conn_
            ->Exec("WITH v AS (INSERT INTO ctxkit_versions(object_id, version, "
                   "state, type, hash, size, created_ns, producer, "
                   "stream_base, content_id, tokens) VALUES ($1, $2, $3, $4, "
                   "$5::bytea, $6, $7, $8, $9, $10::bigint, $11::bigint)) "
                   "UPDATE ctxkit_objects SET latest_version = $2, deleted = "
                   "($12 = 1), type = CASE WHEN $12 = 1 THEN type ELSE $4 END, "
                   "size = CASE WHEN $12 = 1 THEN size ELSE $6 END, "
                   "updated_ns = $7, changed = $13 WHERE id = $1",
                   p)
            .status());
    if (tombstone) {
      RemoveRecord(obj, v);
    } else {
      AdvanceRecord(obj, v);
    }
    return Status::Ok();
  }

  // Sets the object's tags, touching the tags table only when they change.
  Status ReplaceTagsLocked(ObjectRecord* obj, std::vector<std::string> tags)
      REQUIRES(mu_) {
    tags = NormalizedTags(std::move(tags));
    if (tags == obj->tags) return Status::Ok();
    if (!obj->tags.empty()) {
      CTXKIT_RETURN_IF_ERROR(
          conn_
              ->Exec("DELETE FROM ctxkit_tags WHERE object_id = $1",
                     PgParams().Int(obj->id))
              .status());
    }
    for (const std::string& tag : tags) {
      CTXKIT_RETURN_IF_ERROR(
          conn_
              ->Exec("INSERT INTO ctxkit_tags(object_id, tag) VALUES ($1, $2)",
                     PgParams().Int(obj->id).Text(tag))
              .status());
    }
    obj->tags = std::move(tags);
    return Status::Ok();
  }

  const PostgresOptions options_;
  core::Mutex mu_;
  std::unique_ptr<PgConn> conn_ GUARDED_BY(mu_);
  uint64_t seen_seq_ GUARDED_BY(mu_) = 0;
  uint64_t external_changes_ GUARDED_BY(mu_) = 0;
  uint64_t txn_first_stamp_ GUARDED_BY(mu_) = 0;
  uint64_t last_stamp_ GUARDED_BY(mu_) = 0;
  uint64_t next_stamp_ GUARDED_BY(mu_) = 0;
};

}  // namespace

Result<std::unique_ptr<Backend>> OpenPostgresBackend(
    const PostgresOptions& options) {
  if (options.url.empty()) {
    return Status::InvalidArgument("the PostgreSQL store URL is empty");
  }
  // Each server session: the durability asked for, a bound on lock waits,
  // and (read-only) no write at all.
  std::string setup = "SET synchronous_commit = ";
  setup += options.durability == Durability::kFull ? "on" : "off";
  setup += "; SET lock_timeout = '60s'";
  if (options.read_only) setup += "; SET default_transaction_read_only = on";
  CTXKIT_ASSIGN_OR_RETURN(std::unique_ptr<PgConn> conn,
                          PgConn::Connect(options.url, std::move(setup)));
  auto backend = std::make_unique<PgBackend>(options, std::move(conn));
  CTXKIT_RETURN_IF_ERROR(backend->Init());
  return std::unique_ptr<Backend>(std::move(backend));
}

}  // namespace ctxkit::storage
