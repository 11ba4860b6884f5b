// CollectVersions' row work in the PostgreSQL engine (as sqlite_gc.h is
// the SQLite engine's): version rows and stream chunks, then the contents
// no remaining version or chunk references (and uploads left unreferenced
// for over an hour, PgDropOrphanContents). Runs inside a write
// transaction the caller opened, which orders it after every writer that
// could still reference a content.

#ifndef CTXKIT_POSTGRES_PG_GC_H_
#define CTXKIT_POSTGRES_PG_GC_H_

#include <vector>

#include "ctxkit/status.h"
#include "postgres/pg_conn.h"
#include "storage/backend.h"

namespace ctxkit::storage {

Result<CollectReport> PgCollect(PgConn* conn,
                                const std::vector<VersionKey>& keys);

}  // namespace ctxkit::storage

#endif  // CTXKIT_POSTGRES_PG_GC_H_
