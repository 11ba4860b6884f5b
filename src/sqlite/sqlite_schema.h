// The embedded engine's schema and its migrations. The layout is
// documented in docs/storage-format.md; change both together.

#ifndef CTXKIT_SQLITE_SQLITE_SCHEMA_H_
#define CTXKIT_SQLITE_SQLITE_SCHEMA_H_

#include <string>

#include "ctxkit/status.h"
#include "os/sqlite_db.h"

namespace ctxkit::storage {

// The schema version this build writes. Bump it and add a migration step
// whenever the schema changes.
inline constexpr int kSchemaVersion = 7;

// Creates the schema in an empty database or migrates an older one, in one
// write transaction; a current database is only read (no write lock).
// Corruption when the database is from a newer build.
Status EnsureSchema(SqliteDb* db);

// For a database opened read-only: OK when it holds this build's schema;
// NotFound when it holds none, FailedPrecondition for another version.
// `path` names the database in messages.
Status CheckSchema(SqliteDb* db, const std::string& path);

}  // namespace ctxkit::storage

#endif  // CTXKIT_SQLITE_SQLITE_SCHEMA_H_
