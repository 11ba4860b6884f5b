// The embedded engine's garbage collection (Backend::CollectVersions): the
// row work inside the caller's write transaction.

#ifndef CTXKIT_SQLITE_SQLITE_GC_H_
#define CTXKIT_SQLITE_SQLITE_GC_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ctxkit/status.h"
#include "os/sqlite_db.h"
#include "storage/backend.h"

namespace ctxkit::storage {

struct SqliteCollected {
  uint64_t versions = 0;
  uint64_t inline_bytes = 0;
  // Blobs whose last reference went (their `blobs` rows are deleted too):
  // the caller moves their files out once it may, and frees them on commit.
  std::vector<std::string> unreferenced_blobs;
};

// Deletes the versions `keys` name, their inline contents and stream
// chunks, inside the caller's open write transaction (see
// Backend::CollectVersions for the errors; the caller rolls back on one).
Result<SqliteCollected> SqliteCollectLocked(
    SqliteDb* db, const std::vector<VersionKey>& keys);

// Whether any version or stream chunk keeps its content in the blob
// `hash`.
Result<bool> SqliteBlobReferenced(SqliteDb* db, std::string_view hash);

}  // namespace ctxkit::storage

#endif  // CTXKIT_SQLITE_SQLITE_GC_H_
