// The PostgreSQL engine (docs/postgres.md). Opened by the store layer
// (store/store_impl.cc) and the engine's tests; the layers above the store
// reach it only through Store.

#ifndef CTXKIT_POSTGRES_PG_BACKEND_H_
#define CTXKIT_POSTGRES_PG_BACKEND_H_

#include <memory>
#include <string>

#include "ctxkit/status.h"
#include "ctxkit/types.h"
#include "storage/backend.h"

namespace ctxkit::storage {

struct PostgresOptions {
  // A libpq connection string (postgresql://... or key=value ...); the
  // store lives in the connection's current schema (docs/postgres.md).
  std::string url;
  // No table is made or migrated, and every write fails with
  // PermissionDenied (the session is read-only).
  bool read_only = false;
  // kFull: synchronous_commit=on (acknowledged writes survive a crash of
  // the server and of its machine). kProcess: off (they survive the
  // client's crash; the server may lose its last moments of commits).
  Durability durability = Durability::kFull;
};

// The PostgreSQL engine: every table in one database schema, shared by
// every process and machine that opens the same URL. Unavailable when the
// server cannot be reached; a later call reconnects.
Result<std::unique_ptr<Backend>> OpenPostgresBackend(
    const PostgresOptions& options);

}  // namespace ctxkit::storage

#endif  // CTXKIT_POSTGRES_PG_BACKEND_H_
