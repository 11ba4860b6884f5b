#include "postgres/pg_holds.h"

#include <string>

#include "core/status_macros.h"
#include "storage/engine_rules.h"

namespace ctxkit::storage::pg_holds {
namespace {

constexpr const char* kLockKey =
    "hashtext('ctxkit holds ' || current_schema())::bigint";

PgParams KeyParams(const VersionKey& key) {
  PgParams p;
  p.Int(key.object_id).Int(static_cast<int64_t>(key.version));
  return p;
}

Result<bool> IsHeld(PgConn* conn, const VersionKey& key) {
  CTXKIT_ASSIGN_OR_RETURN(
      PgRows rows,
      conn->Exec("SELECT 1 FROM ctxkit_holds WHERE object_id = $1 AND "
                 "version = $2 LIMIT 1",
                 KeyParams(key)));
  return !rows.empty();
}

}  // namespace

Status CreateSchema(PgConn* conn, bool migrated) {
  CTXKIT_RETURN_IF_ERROR(conn->Run(
      "CREATE TABLE ctxkit_holds("
      "  object_id bigint NOT NULL,"
      "  version   bigint NOT NULL,"
      "  holder    text COLLATE \"C\" NOT NULL,"
      "  PRIMARY KEY(object_id, version, holder));"
      "CREATE INDEX ctxkit_holds_by_holder ON ctxkit_holds(holder);"
      "UPDATE ctxkit_meta SET value = '4' WHERE name = 'schema_version';"
      "INSERT INTO ctxkit_meta(name, value) VALUES ('compatible_since', '4') "
      "  ON CONFLICT (name) DO UPDATE SET value = excluded.value"));
  if (!migrated) return Status::Ok();
  return conn->Run(
      "INSERT INTO ctxkit_meta(name, value) VALUES ('holds_pending', '1') "
      "ON CONFLICT (name) DO NOTHING");
}

Status LockShared(PgConn* conn) {
  return conn->Run(std::string("SELECT pg_advisory_xact_lock_shared(") +
                   kLockKey + ")");
}

Status LockExclusive(PgConn* conn) {
  return conn->Run(std::string("SELECT pg_advisory_xact_lock(") + kLockKey +
                   ")");
}

Result<bool> AllHeld(PgConn* conn, std::span<const VersionKey> keys) {
  for (const VersionKey& key : keys) {
    CTXKIT_ASSIGN_OR_RETURN(bool held, IsHeld(conn, key));
    if (!held) return false;
  }
  return true;
}

Status Add(PgConn* conn, std::string_view holder,
           std::span<const VersionKey> keys) {
  for (const VersionKey& key : keys) {
    CTXKIT_ASSIGN_OR_RETURN(
        PgRows stored,
        conn->Exec("SELECT 1 FROM ctxkit_versions WHERE object_id = $1 AND "
                   "version = $2",
                   KeyParams(key)));
    if (stored.empty()) return NothingToHold(key.object_id, key.version);
    PgParams p = KeyParams(key);
    p.Text(holder);
    CTXKIT_RETURN_IF_ERROR(
        conn->Exec("INSERT INTO ctxkit_holds(object_id, version, holder) "
                   "VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
                   p)
            .status());
  }
  return Status::Ok();
}

Status CheckNoneHeld(PgConn* conn, const std::vector<VersionKey>& keys) {
  for (const VersionKey& key : keys) {
    CTXKIT_ASSIGN_OR_RETURN(bool held, IsHeld(conn, key));
    if (held) return HeldIsKept(key.object_id, key.version);
  }
  return Status::Ok();
}

Result<std::vector<VersionKey>> ListHeld(PgConn* conn) {
  CTXKIT_ASSIGN_OR_RETURN(
      PgRows rows, conn->Exec("SELECT DISTINCT object_id, version FROM "
                              "ctxkit_holds ORDER BY object_id, version"));
  std::vector<VersionKey> out;
  out.reserve(rows.size());
  for (int r = 0; r < rows.size(); ++r) {
    out.push_back({rows.Int(r, 0), static_cast<uint64_t>(rows.Int(r, 1))});
  }
  return out;
}

Status Drop(PgConn* conn, std::string_view holder) {
  return conn
      ->Exec("DELETE FROM ctxkit_holds WHERE holder = $1",
             PgParams().Text(holder))
      .status();
}

Result<bool> Pending(PgConn* conn) {
  CTXKIT_ASSIGN_OR_RETURN(
      PgRows rows,
      conn->Exec("SELECT 1 FROM ctxkit_meta WHERE name = 'holds_pending'"));
  return !rows.empty();
}

Status ClearPending(PgConn* conn) {
  return conn->Run("DELETE FROM ctxkit_meta WHERE name = 'holds_pending'");
}

}  // namespace ctxkit::storage::pg_holds
