// The PostgreSQL engine's tables (docs/postgres.md): made and migrated on
// open, in the connection's current schema (the first of its search_path
// that exists), so one database holds one store per schema.

#ifndef CTXKIT_POSTGRES_PG_SCHEMA_H_
#define CTXKIT_POSTGRES_PG_SCHEMA_H_

#include <string>
#include <string_view>

#include "ctxkit/status.h"
#include "postgres/pg_conn.h"

namespace ctxkit::storage {

// The schema version this build writes and reads. 2 adds the commit
// wake-up (every commit that takes a stamp notifies PgChangeChannel); a
// version-1 build still reads and writes it. 3 adds the session entries'
// hot and listed flags (Backend::LoadSessionHead); builds before it would
// write entries without them, so it is compatible since 3. 4 adds holds, 5
// the named records and logs (each compatible since itself). 6 replaces
// ctxkit_put with a body of fewer statements, same signature and effects:
// still compatible since 5.
inline constexpr int kPgSchemaVersion = 6;

// The LISTEN/NOTIFY channel of the store in schema `schema_sql` (a SQL
// expression: current_schema(), TG_TABLE_SCHEMA), as a SQL expression. A
// NOTIFY reaches every listener of the database, so each store has its own
// channel.
inline std::string PgChangeChannelSql(std::string_view schema_sql) {
  return "'ctxkit_' || left(md5(" + std::string(schema_sql) + "), 24)";
}

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
// FailedPrecondition when it is newer than this build reads.
Status CheckPgSchema(PgConn* conn);

}  // namespace ctxkit::storage

#endif  // CTXKIT_POSTGRES_PG_SCHEMA_H_
