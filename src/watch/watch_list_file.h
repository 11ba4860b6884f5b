// The file earlier builds kept the watch list in, <home>/watch/watches.json
// (format in docs/watchers.md): read once, by ImportLegacyWatchList
// (watch/watch_list.h), which moves it into the store's engine.

#ifndef CTXKIT_WATCH_WATCH_LIST_FILE_H_
#define CTXKIT_WATCH_WATCH_LIST_FILE_H_

#include <string>
#include <vector>

#include "ctxkit/status.h"
#include "ctxkit/watch.h"

namespace ctxkit::watch {

// <home>/watch, created (0700) when missing.
Result<std::string> WatchDir(const std::string& home);

// The entries, ordered by path; empty when the file does not exist yet.
// Corruption when it is not a watch list this build understands.
Result<std::vector<WatchEntry>> LoadWatchListFile(const std::string& watch_dir);

// Writes a list file in that format atomically (temp file, fsync, rename,
// directory fsync): what an earlier build left behind, for the import's
// tests.
Status SaveWatchListFile(const std::string& watch_dir,
                         const std::vector<WatchEntry>& entries);

}  // namespace ctxkit::watch

#endif  // CTXKIT_WATCH_WATCH_LIST_FILE_H_
