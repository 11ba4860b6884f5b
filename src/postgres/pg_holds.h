// Holds in the PostgreSQL engine (Backend::AddHolds and friends): the
// ctxkit_holds table of schema v4 and the holds_pending meta flag. Adding
// holds and collecting exclude each other through one advisory lock of the
// store's schema (AddHolds shared, CollectVersions exclusive), taken at
// the start of their transactions, so each sees what the other committed.
// The caller holds the lock of the engine's connection and runs these
// inside a transaction it opened (except Pending and ListHeld).

#ifndef CTXKIT_POSTGRES_PG_HOLDS_H_
#define CTXKIT_POSTGRES_PG_HOLDS_H_

#include <span>
#include <string_view>
#include <vector>

#include "ctxkit/status.h"
#include "postgres/pg_conn.h"
#include "storage/backend.h"

namespace ctxkit::storage::pg_holds {

// Schema v4 (inside the migration's transaction): the table, and the flag
// when `migrated` (the store had state that predates holds).
Status CreateSchema(PgConn* conn, bool migrated);
// The advisory lock: shared for AddHolds, exclusive for a collection.
Status LockShared(PgConn* conn);
Status LockExclusive(PgConn* conn);
Result<bool> AllHeld(PgConn* conn, std::span<const VersionKey> keys);
// NotFound (NothingToHold) for a key naming no stored version.
Status Add(PgConn* conn, std::string_view holder,
           std::span<const VersionKey> keys);
// FailedPrecondition (HeldIsKept) for the first held key.
Status CheckNoneHeld(PgConn* conn, const std::vector<VersionKey>& keys);
Result<std::vector<VersionKey>> ListHeld(PgConn* conn);
Status Drop(PgConn* conn, std::string_view holder);
Result<bool> Pending(PgConn* conn);
Status ClearPending(PgConn* conn);

}  // namespace ctxkit::storage::pg_holds

#endif  // CTXKIT_POSTGRES_PG_HOLDS_H_
