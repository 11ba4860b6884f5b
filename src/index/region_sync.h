// Keeping index.db in step with the store for a listing call: the variables
// a call without a key or ref covers form a region (scopes, key prefix,
// size limit), synced from the store's change feed
// (StoreInternals::DurableChanges). Each region remembers the last stamp it
// has seen, so a call reads only the changes made since: nothing at all
// when nothing changed, whatever the size of the store.

#ifndef CTXKIT_INDEX_REGION_SYNC_H_
#define CTXKIT_INDEX_REGION_SYNC_H_

#include <cstdint>
#include <string>
#include <vector>

#include "ctxkit/index.h"
#include "ctxkit/store.h"
#include "os/sqlite_db.h"

namespace ctxkit::index {

struct Region {
  std::vector<std::string> scopes;  // Scope strings, sorted.
  std::string key_prefix;
  uint64_t max_value_bytes = 0;
};

// The region a listing call covers in `view`: the scope FindOptions::scope
// names (ResolveScopeName), or every scope the view sees when it is empty;
// its key prefix and size limit. The errors of ResolveScopeName.
Result<Region> RegionOf(const View& view, const FindOptions& options);

// Brings index.db's rows of the durable variables in `region` up to date:
// every change the feed lists after the region's stamp is reconciled
// (index_rows.h), in write transactions of a bounded number of changes,
// each advancing the stamp (a long first build is resumable and keeps the
// WAL bounded). Values in the region too large to index are reported in
// result->skipped when their change is read. When nothing changed since the
// last call, this reads one row of each database and writes nothing.
// Reports its progress in changes read from the feed (ctxkit/progress.h).
Status CatchUp(storage::SqliteDb* db, View& view, const Region& region,
               uint32_t chunk_tokens, const ProgressOptions& progress,
               FindResult* result);

}  // namespace ctxkit::index

#endif  // CTXKIT_INDEX_REGION_SYNC_H_
