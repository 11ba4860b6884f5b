// The PostgreSQL engine's tables (docs/postgres.md): made and migrated on
// open, in the connection's current schema (the first of its search_path
// that exists), so one database holds one store per schema.

#ifndef CTXKIT_STORAGE_PG_SCHEMA_H_
#define CTXKIT_STORAGE_PG_SCHEMA_H_

#include "ctxkit/status.h"
#include "storage/pg_conn.h"

namespace ctxkit::storage {

// The schema version this build writes and reads.
inline constexpr int kPgSchemaVersion = 1;

// Contents are stored in pieces of this many bytes (the last one shorter),
// so a range read fetches only the pieces it overlaps.
inline constexpr uint64_t kPgPieceBytes = 256 << 10;

// Makes the tables when the schema holds none, or migrates older ones, in
// one transaction under an advisory lock (one opener migrates; others wait
// for it, then find the schema current). FailedPrecondition when the
// connection has no current schema, or when the stored schema is newer than
// this build reads (it says which version to upgrade to).
Status EnsurePgSchema(PgConn* conn);

// For a read-only open: NotFound when the schema holds no store,
// FailedPrecondition when its version is not this build's.
Status CheckPgSchema(PgConn* conn);

}  // namespace ctxkit::storage

#endif  // CTXKIT_STORAGE_PG_SCHEMA_H_
