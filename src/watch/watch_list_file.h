// The persistent watch list, <home>/watch/watches.json (format in
// docs/watchers.md), and the locks that serialize its users.

#ifndef CTXKIT_WATCH_WATCH_LIST_FILE_H_
#define CTXKIT_WATCH_WATCH_LIST_FILE_H_

#include <string>
#include <vector>

#include "ctxkit/status.h"
#include "ctxkit/watch.h"

namespace ctxkit::watch {

// <home>/watch, created (0700) when missing.
Result<std::string> WatchDir(const std::string& home);

// The file name of the list inside WatchDir.
inline constexpr char kWatchListName[] = "watches.json";

// The entries, ordered by path; empty when the file does not exist yet.
// Corruption when it is not a watch list this build understands.
Result<std::vector<WatchEntry>> LoadWatchList(const std::string& watch_dir);

// Replaces the list atomically (temp file, fsync, rename, directory fsync):
// readers see the old list or the new one, never a mix.
Status SaveWatchList(const std::string& watch_dir,
                     const std::vector<WatchEntry>& entries);

// An flock(2) on <watch_dir>/<name>, released on destruction (or when the
// process dies, so a crashed holder never blocks the next one).
class FileLock {
 public:
  // Blocks until the lock is held (wait) or fails at once with
  // FailedPrecondition when another holder has it (!wait).
  static Result<std::unique_ptr<FileLock>> Acquire(const std::string& path,
                                                   bool wait);
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;
  ~FileLock();

 private:
  explicit FileLock(int fd) : fd_(fd) {}
  int fd_;
};

}  // namespace ctxkit::watch

#endif  // CTXKIT_WATCH_WATCH_LIST_FILE_H_
