// The watch list, in the store's engine: one named record per watched root
// (kind "watch", named by its canonical absolute path, holding
// {"path","kind","added_unix_ns"}), so every home that opens the store, on
// any machine, sees the same list (storage::Backend::WriteRecords). A list
// an earlier build kept in <home>/watch/watches.json is imported on first
// use (ImportLegacyWatchList).

#ifndef CTXKIT_WATCH_WATCH_LIST_H_
#define CTXKIT_WATCH_WATCH_LIST_H_

#include <string>
#include <vector>

#include "ctxkit/status.h"
#include "ctxkit/store.h"
#include "ctxkit/watch.h"

namespace ctxkit::watch {

// The entries, ordered by path, after ImportLegacyWatchList. Corruption
// when a record is not an entry this build understands.
Result<std::vector<WatchEntry>> LoadWatchList(Store& store);

// Adds `entry` in one write. AlreadyExists, nothing written, when its path
// is in the list already (added meanwhile, perhaps from another home).
Status AddToWatchList(Store& store, const WatchEntry& entry);

// Removes the entry of `path` (nothing to remove is not an error).
Status RemoveFromWatchList(Store& store, const std::string& path);

// Moves the entries of <home>/watch/watches.json (an earlier build's list)
// into the engine: in one write, keeping an entry the engine has already;
// then renames the file to watches.json.imported. Nothing to do when there
// is no such file or the store is read-only. Corruption, nothing written,
// when the file is not a list this build understands.
Status ImportLegacyWatchList(Store& store);

}  // namespace ctxkit::watch

#endif  // CTXKIT_WATCH_WATCH_LIST_H_
