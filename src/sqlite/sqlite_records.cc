#include "sqlite/sqlite_records.h"

#include <algorithm>
#include <string>

#include "core/status_macros.h"
#include "storage/engine_rules.h"

namespace ctxkit::storage::sqlite_records {
namespace {

// Records keyed by (kind, name); log entries numbered in commit order
// (AUTOINCREMENT: a number is never reused, so the order survives
// deletions), read newest first through the (log, seq) index.
constexpr const char* kSchema = R"sql(
CREATE TABLE records(
  kind       TEXT NOT NULL,
  name       TEXT NOT NULL,
  bytes      BLOB NOT NULL,
  updated_ns INTEGER NOT NULL,
  PRIMARY KEY(kind, name)
) WITHOUT ROWID;
CREATE TABLE record_log(
  seq   INTEGER PRIMARY KEY AUTOINCREMENT,
  log   TEXT NOT NULL,
  bytes BLOB NOT NULL
);
CREATE INDEX record_log_by_log ON record_log(log, seq);
UPDATE meta SET value = '7' WHERE name = 'schema_version';
)sql";

Result<bool> Exists(SqliteDb* db, const RecordPut& put) {
  CTXKIT_ASSIGN_OR_RETURN(
      auto q, db->Prepare("SELECT 1 FROM records WHERE kind = ? AND name = ?"));
  q->BindText(1, put.kind).BindText(2, put.name);
  return q->Step();
}

StoredRecord RowOf(const Query& q) {
  return StoredRecord{q.Text(0), q.Text(1), q.Blob(2), q.Int(3)};
}

}  // namespace

Status CreateSchema(SqliteDb* db) { return db->Exec(kSchema); }

Status WriteLocked(SqliteDb* db, const RecordWrite& write) {
  for (const RecordPut& put : write.puts) {
    if (put.when != RecordPut::When::kAlways) {
      CTXKIT_ASSIGN_OR_RETURN(bool exists, Exists(db, put));
      if (exists && put.when == RecordPut::When::kCreate) {
        return RecordExists(put.kind, put.name);
      }
      if (exists) continue;
    }
    CTXKIT_ASSIGN_OR_RETURN(
        auto q, db->Prepare("INSERT OR REPLACE INTO records(kind, name, "
                            "bytes, updated_ns) VALUES (?, ?, ?, ?)"));
    q->BindText(1, put.kind).BindText(2, put.name).BindBlob(3, put.bytes);
    CTXKIT_RETURN_IF_ERROR(q->Bind(4, write.now_unix_ns).Run());
  }
  for (const RecordKey& key : write.removes) {
    CTXKIT_ASSIGN_OR_RETURN(
        auto q, db->Prepare("DELETE FROM records WHERE kind = ? AND name = ?"));
    CTXKIT_RETURN_IF_ERROR(
        q->BindText(1, key.kind).BindText(2, key.name).Run());
  }
  for (const LogAppend& append : write.appends) {
    CTXKIT_ASSIGN_OR_RETURN(
        auto q,
        db->Prepare("INSERT INTO record_log(log, bytes) VALUES (?, ?)"));
    CTXKIT_RETURN_IF_ERROR(
        q->BindText(1, append.log).BindBlob(2, append.bytes).Run());
  }
  return Status::Ok();
}

Result<std::optional<StoredRecord>> Get(SqliteDb* db, std::string_view kind,
                                        std::string_view name) {
  CTXKIT_ASSIGN_OR_RETURN(
      auto q, db->Prepare("SELECT kind, name, bytes, updated_ns FROM records "
                          "WHERE kind = ? AND name = ?"));
  q->BindText(1, kind).BindText(2, name);
  CTXKIT_ASSIGN_OR_RETURN(bool row, q->Step());
  if (!row) return std::optional<StoredRecord>();
  return std::optional<StoredRecord>(RowOf(*q));
}

Result<std::vector<StoredRecord>> List(SqliteDb* db, std::string_view kind) {
  CTXKIT_ASSIGN_OR_RETURN(
      auto q, db->Prepare("SELECT kind, name, bytes, updated_ns FROM records "
                          "WHERE kind = ? ORDER BY name"));
  q->BindText(1, kind);
  std::vector<StoredRecord> out;
  while (true) {
    CTXKIT_ASSIGN_OR_RETURN(bool row, q->Step());
    if (!row) break;
    out.push_back(RowOf(*q));
  }
  return out;
}

Result<std::vector<std::string>> ReadLog(SqliteDb* db, std::string_view log,
                                         size_t limit) {
  CTXKIT_ASSIGN_OR_RETURN(
      auto q, db->Prepare("SELECT bytes FROM record_log WHERE log = ? "
                          "ORDER BY seq DESC LIMIT ?"));
  q->BindText(1, log).Bind(
      2, static_cast<int64_t>(std::min<size_t>(limit, INT64_MAX)));
  std::vector<std::string> out;
  while (true) {
    CTXKIT_ASSIGN_OR_RETURN(bool row, q->Step());
    if (!row) break;
    out.push_back(q->Blob(0));
  }
  std::reverse(out.begin(), out.end());
  return out;
}

}  // namespace ctxkit::storage::sqlite_records
