#include "postgres/pg_records.h"

#include <algorithm>
#include <cstdint>
#include <string>

#include "core/status_macros.h"
#include "storage/engine_rules.h"

namespace ctxkit::storage::pg_records {
namespace {

constexpr const char* kColumns = "kind, name, bytes, updated_ns";

StoredRecord RowOf(const PgRows& rows, int r) {
  return StoredRecord{rows.Bytes(r, 0), rows.Bytes(r, 1), rows.Bytes(r, 2),
                      rows.Int(r, 3)};
}

}  // namespace

// Log entries are numbered by a sequence: numbers follow the order rows
// were inserted, which for one writer is its commit order; entries of two
// concurrent writers may interleave either way, as their appends did.
Status CreateSchema(PgConn* conn) {
  return conn->Run(
      "CREATE TABLE ctxkit_records("
      "  kind       text COLLATE \"C\" NOT NULL,"
      "  name       text COLLATE \"C\" NOT NULL,"
      "  bytes      bytea NOT NULL,"
      "  updated_ns bigint NOT NULL,"
      "  PRIMARY KEY(kind, name));"
      "CREATE TABLE ctxkit_record_log("
      "  seq   bigserial PRIMARY KEY,"
      "  log   text COLLATE \"C\" NOT NULL,"
      "  bytes bytea NOT NULL);"
      "CREATE INDEX ctxkit_record_log_by_log ON ctxkit_record_log(log, seq);"
      "UPDATE ctxkit_meta SET value = '5' WHERE name = 'schema_version';"
      "INSERT INTO ctxkit_meta(name, value) VALUES ('compatible_since', '5') "
      "  ON CONFLICT (name) DO UPDATE SET value = excluded.value");
}

Status Write(PgConn* conn, const RecordWrite& write) {
  for (const RecordPut& put : write.puts) {
    PgParams p;
    p.Text(put.kind).Text(put.name).Bytes(put.bytes).Int(write.now_unix_ns);
    const char* conflict =
        put.when == RecordPut::When::kAlways
            ? " ON CONFLICT (kind, name) DO UPDATE SET bytes = excluded.bytes, "
              "updated_ns = excluded.updated_ns"
            : " ON CONFLICT (kind, name) DO NOTHING";
    CTXKIT_ASSIGN_OR_RETURN(
        PgRows rows,
        conn->Exec(std::string("INSERT INTO ctxkit_records(") + kColumns +
                       ") VALUES ($1, $2, $3, $4)" + conflict + " RETURNING 1",
                   p));
    if (rows.empty() && put.when == RecordPut::When::kCreate) {
      return RecordExists(put.kind, put.name);
    }
  }
  for (const RecordKey& key : write.removes) {
    CTXKIT_RETURN_IF_ERROR(
        conn->Exec("DELETE FROM ctxkit_records WHERE kind = $1 AND name = $2",
                   PgParams().Text(key.kind).Text(key.name))
            .status());
  }
  for (const LogAppend& append : write.appends) {
    CTXKIT_RETURN_IF_ERROR(
        conn->Exec("INSERT INTO ctxkit_record_log(log, bytes) VALUES ($1, $2)",
                   PgParams().Text(append.log).Bytes(append.bytes))
            .status());
  }
  return Status::Ok();
}

Result<std::optional<StoredRecord>> Get(PgConn* conn, std::string_view kind,
                                        std::string_view name) {
  CTXKIT_ASSIGN_OR_RETURN(
      PgRows rows,
      conn->Exec(std::string("SELECT ") + kColumns +
                     " FROM ctxkit_records WHERE kind = $1 AND name = $2",
                 PgParams().Text(kind).Text(name)));
  if (rows.empty()) return std::optional<StoredRecord>();
  return std::optional<StoredRecord>(RowOf(rows, 0));
}

Result<std::vector<StoredRecord>> List(PgConn* conn, std::string_view kind) {
  CTXKIT_ASSIGN_OR_RETURN(
      PgRows rows,
      conn->Exec(std::string("SELECT ") + kColumns +
                     " FROM ctxkit_records WHERE kind = $1 ORDER BY name",
                 PgParams().Text(kind)));
  std::vector<StoredRecord> out;
  out.reserve(rows.size());
  for (int r = 0; r < rows.size(); ++r) out.push_back(RowOf(rows, r));
  return out;
}

Result<std::vector<std::string>> ReadLog(PgConn* conn, std::string_view log,
                                         size_t limit) {
  PgParams p;
  p.Text(log).Int(static_cast<int64_t>(std::min<size_t>(limit, INT64_MAX)));
  CTXKIT_ASSIGN_OR_RETURN(
      PgRows rows, conn->Exec("SELECT bytes FROM ctxkit_record_log WHERE "
                              "log = $1 ORDER BY seq DESC LIMIT $2",
                              p));
  std::vector<std::string> out;
  out.reserve(rows.size());
  for (int r = rows.size() - 1; r >= 0; --r) out.push_back(rows.Bytes(r, 0));
  return out;
}

}  // namespace ctxkit::storage::pg_records
