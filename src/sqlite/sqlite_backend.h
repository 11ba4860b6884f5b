// The embedded SQLite engine: one SQLite database in WAL mode per store
// root plus content-addressed blob files (docs/storage-format.md). Opened
// by the store layer (store/store_impl.cc) and the engine's tests; the
// layers above the store reach it only through Store.

#ifndef CTXKIT_SQLITE_SQLITE_BACKEND_H_
#define CTXKIT_SQLITE_SQLITE_BACKEND_H_

#include <cstdint>
#include <memory>
#include <string>

#include "ctxkit/status.h"
#include "ctxkit/types.h"
#include "storage/backend.h"

namespace ctxkit::storage {

struct SqliteOptions {
  std::string home;  // Created when missing (unless read_only).
  // Nothing under `home` is created or written: the store must exist, and
  // every write fails with PermissionDenied (ReadOnlyError).
  bool read_only = false;
  Durability durability = Durability::kFull;
  uint64_t inline_max_bytes = 64 << 10;
  int busy_timeout_ms = 30000;
  // WAL checkpoints run on a background thread, not inside a writer's
  // commit (storage/checkpointer.h). false: SQLite's own, in the commit
  // that fills the WAL (kept for comparison in bench/store_bench.cc).
  bool background_checkpoints = true;
};

Result<std::unique_ptr<Backend>> OpenSqliteBackend(
    const SqliteOptions& options);

}  // namespace ctxkit::storage

#endif  // CTXKIT_SQLITE_SQLITE_BACKEND_H_
