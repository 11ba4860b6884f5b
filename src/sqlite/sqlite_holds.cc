#include "sqlite/sqlite_holds.h"

#include <string>

#include "core/status_macros.h"
#include "storage/engine_rules.h"

namespace ctxkit::storage::sqlite_holds {
namespace {

// WITHOUT ROWID, keyed by the version first: CollectVersions and AddHolds
// ask "is this version held" by its key; DropHolds scans by holder.
constexpr const char* kSchema = R"sql(
CREATE TABLE holds(
  object_id INTEGER NOT NULL,
  version   INTEGER NOT NULL,
  holder    TEXT NOT NULL,
  PRIMARY KEY(object_id, version, holder)
) WITHOUT ROWID;
CREATE INDEX holds_by_holder ON holds(holder);
)sql";

Result<bool> IsHeld(SqliteDb* db, const VersionKey& key) {
  CTXKIT_ASSIGN_OR_RETURN(
      auto q, db->Prepare("SELECT 1 FROM holds WHERE object_id = ? AND "
                          "version = ? LIMIT 1"));
  q->Bind(1, key.object_id).Bind(2, static_cast<int64_t>(key.version));
  return q->Step();
}

Result<bool> IsStored(SqliteDb* db, const VersionKey& key) {
  CTXKIT_ASSIGN_OR_RETURN(
      auto q, db->Prepare("SELECT 1 FROM versions WHERE object_id = ? AND "
                          "version = ?"));
  q->Bind(1, key.object_id).Bind(2, static_cast<int64_t>(key.version));
  return q->Step();
}

}  // namespace

Status CreateSchema(SqliteDb* db, bool migrated) {
  CTXKIT_RETURN_IF_ERROR(db->Exec(kSchema));
  if (migrated) {
    CTXKIT_RETURN_IF_ERROR(db->Exec(
        "INSERT INTO meta(name, value) VALUES ('holds_pending', '1')"));
  }
  return db->Exec("UPDATE meta SET value = '6' WHERE name = 'schema_version'");
}

Result<bool> AllHeld(SqliteDb* db, std::span<const VersionKey> keys) {
  for (const VersionKey& key : keys) {
    CTXKIT_ASSIGN_OR_RETURN(bool held, IsHeld(db, key));
    if (!held) return false;
  }
  return true;
}

Status AddLocked(SqliteDb* db, std::string_view holder,
                 std::span<const VersionKey> keys) {
  for (const VersionKey& key : keys) {
    CTXKIT_ASSIGN_OR_RETURN(bool stored, IsStored(db, key));
    if (!stored) return NothingToHold(key.object_id, key.version);
    CTXKIT_ASSIGN_OR_RETURN(
        auto q, db->Prepare("INSERT OR IGNORE INTO holds(object_id, version, "
                            "holder) VALUES (?, ?, ?)"));
    q->Bind(1, key.object_id).Bind(2, static_cast<int64_t>(key.version));
    CTXKIT_RETURN_IF_ERROR(q->BindText(3, holder).Run());
  }
  return Status::Ok();
}

Status CheckNoneHeld(SqliteDb* db, const std::vector<VersionKey>& keys) {
  for (const VersionKey& key : keys) {
    CTXKIT_ASSIGN_OR_RETURN(bool held, IsHeld(db, key));
    if (held) return HeldIsKept(key.object_id, key.version);
  }
  return Status::Ok();
}

Result<std::vector<VersionKey>> ListHeld(SqliteDb* db) {
  CTXKIT_ASSIGN_OR_RETURN(
      auto q, db->Prepare("SELECT DISTINCT object_id, version FROM holds "
                          "ORDER BY object_id, version"));
  std::vector<VersionKey> out;
  while (true) {
    CTXKIT_ASSIGN_OR_RETURN(bool row, q->Step());
    if (!row) break;
    out.push_back({q->Int(0), static_cast<uint64_t>(q->Int(1))});
  }
  return out;
}

Status DropLocked(SqliteDb* db, std::string_view holder) {
  CTXKIT_ASSIGN_OR_RETURN(auto q,
                          db->Prepare("DELETE FROM holds WHERE holder = ?"));
  return q->BindText(1, holder).Run();
}

Result<bool> Pending(SqliteDb* db) {
  CTXKIT_ASSIGN_OR_RETURN(
      auto q, db->Prepare("SELECT 1 FROM meta WHERE name = 'holds_pending'"));
  return q->Step();
}

Status ClearPending(SqliteDb* db) {
  return db->Exec("DELETE FROM meta WHERE name = 'holds_pending'");
}

}  // namespace ctxkit::storage::sqlite_holds
