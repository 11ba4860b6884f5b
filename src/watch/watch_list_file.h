// The persistent watch list, <home>/watch/watches.json (format in
// docs/watchers.md). Its users serialize on storage::FileLock.

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
Result<std::vector<WatchEntry>> LoadWatchList(const std::string& watch_dir);

// Replaces the list atomically (temp file, fsync, rename, directory fsync):
// readers see the old list or the new one, never a mix.
Status SaveWatchList(const std::string& watch_dir,
                     const std::vector<WatchEntry>& entries);

}  // namespace ctxkit::watch

#endif  // CTXKIT_WATCH_WATCH_LIST_FILE_H_
