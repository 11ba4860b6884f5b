// The PostgreSQL engine's server-side put (schema v6): ctxkit_put, the
// PL/pgSQL function pg_backend.cc's PutLocked calls, one round trip per
// put. Version 6 replaces version 1's body with one of fewer statements
// (each statement inside a function costs the server an executor start and
// end): the same signature, results and effects, so builds of version 5
// call it unchanged.

#ifndef CTXKIT_POSTGRES_PG_PUT_H_
#define CTXKIT_POSTGRES_PG_PUT_H_

#include "ctxkit/status.h"
#include "postgres/pg_conn.h"

namespace ctxkit::storage::pg_put {

// Schema v6 (inside the migration's transaction): replaces ctxkit_put and
// records schema_version 6 (compatible_since stays as it is: 5).
// PermissionDenied for a role that does not own the function.
Status Migrate(PgConn* conn);

}  // namespace ctxkit::storage::pg_put

#endif  // CTXKIT_POSTGRES_PG_PUT_H_
