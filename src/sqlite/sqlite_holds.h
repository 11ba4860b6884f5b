// Holds in the embedded engine (Backend::AddHolds and friends): the
// `holds` table of schema v6, one row per (version, holder), and the
// `holds_pending` meta flag of a store migrated from an earlier schema.
#ifndef CTXKIT_SQLITE_SQLITE_HOLDS_H_
#define CTXKIT_SQLITE_SQLITE_HOLDS_H_

#include <span>
#include <string_view>
#include <vector>

#include "ctxkit/status.h"
#include "os/sqlite_db.h"
#include "storage/backend.h"

namespace ctxkit::storage::sqlite_holds {

// Schema v6: the table, and the flag when `migrated` (an existing store
// whose sessions and manifests predate holds). Runs inside the schema
// transaction.
Status CreateSchema(SqliteDb* db, bool migrated);

// Whether every key is held already (one read; no transaction of its own).
Result<bool> AllHeld(SqliteDb* db, std::span<const VersionKey> keys);
// Inside a write transaction: NotFound (NothingToHold) for a key naming no
// stored version; otherwise inserts the missing rows.
Status AddLocked(SqliteDb* db, std::string_view holder,
                 std::span<const VersionKey> keys);
// Inside a write transaction: FailedPrecondition (HeldIsKept) for the first
// held key.
Status CheckNoneHeld(SqliteDb* db, const std::vector<VersionKey>& keys);
Result<std::vector<VersionKey>> ListHeld(SqliteDb* db);
// Inside a write transaction.
Status DropLocked(SqliteDb* db, std::string_view holder);
Result<bool> Pending(SqliteDb* db);
// Inside a write transaction.
Status ClearPending(SqliteDb* db);

}  // namespace ctxkit::storage::sqlite_holds

#endif  // CTXKIT_SQLITE_SQLITE_HOLDS_H_
