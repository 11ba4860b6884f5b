// The rows index.db keeps for one variable (docs/index.md): its `objects`
// row, its chunks and their text, and how FindRelevant brings them in line
// with the variable's current metadata.

#ifndef CTXKIT_INDEX_INDEX_ROWS_H_
#define CTXKIT_INDEX_INDEX_ROWS_H_

#include <cstdint>
#include <optional>
#include <string>

#include "ctxkit/index.h"
#include "ctxkit/store.h"
#include "storage/sqlite_db.h"

namespace ctxkit::index {

// What index.db holds for a variable.
struct Indexed {
  uint64_t version = 0;
  std::string key;
  std::string scope;
};

Result<std::optional<Indexed>> LoadIndexed(storage::SqliteDb* db,
                                           const std::string& obj);

// The variable's current state, as FindRelevant sees it.
struct Current {
  const ObjectMeta* meta = nullptr;
  bool removed = false;  // Its latest version is a tombstone.
  // The call wants it indexed: covered, persistent and within the size
  // limit. A variable that is not wanted keeps rows of its current version
  // (a call with a larger limit made them; calls filter by size) but loses
  // rows of an older one.
  bool wanted = false;
};

// Brings the variable's rows in line with `current`: removed -> rows
// dropped; wanted and stale -> re-chunked at meta->version; current
// version already indexed -> renamed when promotion or rename moved it;
// older version indexed and not wanted -> dropped. Counts the work in
// `result`. Runs inside the caller's write transaction. A value that
// cannot be read now (removed meanwhile, a capability problem) is reported
// in result->skipped, not failed; an I/O error fails.
Status Reconcile(storage::SqliteDb* db, View& view, const Current& current,
                 uint32_t chunk_tokens, FindResult* result);

}  // namespace ctxkit::index

#endif  // CTXKIT_INDEX_INDEX_ROWS_H_
