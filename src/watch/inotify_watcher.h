// The running watcher behind ctxkit::Watcher: inotify events coalesced per
// path over a short settle window, then reconciled against the disk (see
// docs/watchers.md for the event rules).

#ifndef CTXKIT_WATCH_INOTIFY_WATCHER_H_
#define CTXKIT_WATCH_INOTIFY_WATCHER_H_

#include <sys/inotify.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "ctxkit/status.h"
#include "ctxkit/store.h"
#include "ctxkit/watch.h"
#include "os/posix_io.h"
#include "watch/file_indexer.h"

namespace ctxkit {

class WatcherImpl {
 public:
  static Result<std::unique_ptr<WatcherImpl>> Start(
      Store* store, const WatchOptions& options);
  WatcherImpl(const WatcherImpl&) = delete;
  WatcherImpl& operator=(const WatcherImpl&) = delete;
  ~WatcherImpl();

  Status Run();
  void Stop();
  const WatchReport& totals() const { return totals_; }

 private:
  using Clock = std::chrono::steady_clock;

  WatcherImpl(Store* store, View view, const WatchOptions& options);

  Status Init();
  // A catch-up pass over every root, adding watches as it walks.
  Status FullPass();
  Status ReloadRoots();
  // Reads the list when kListCheck has passed since the last look, and
  // asks for a reload when it differs from roots_: a change made on
  // another machine (this one's changes also wake the watcher through
  // storage::kWatchListHintName).
  void CheckListChanged();
  Status AddDirWatch(const std::string& dir);
  // Watches a directory that appeared and queues its files.
  Status AddTree(const std::string& dir);
  void DropWatchesUnder(const std::string& dir);
  Status ReadEvents();
  Status HandleEvent(const inotify_event& event);
  Status ApplyDirMove(const std::string& from, const std::string& to);
  // True when `path` is a watched file root or lies in a directory root.
  bool Covered(const std::string& path) const;
  // `writing`: the event says the file may still be open for writing
  // (IN_CREATE, IN_MODIFY); see Deadline().
  void MarkDirty(const std::string& path, bool writing = false);
  void Touch();
  bool Pending() const { return fresh_ || !dirty_.empty(); }
  // When pending events are acted on: settle_ms after the last one, at most
  // max_settle_ms after the first. A path whose last event was a write
  // without a close waits until no write touched it for kWriteQuiet (at
  // most max_settle_ms), so a file is not read half-written.
  Clock::time_point Deadline() const;
  // Whether a reconcile at `now` handles `path` or keeps it waiting.
  struct DirtyPath;
  bool Due(const DirtyPath& d, Clock::time_point now, bool stopping) const;
  Status Reconcile(bool stopping);
  // Per-file store failures are reported, never fatal, in a running
  // watcher: one bad file must not stop the others being watched.
  void Report(const std::string& path, const Status& status);

  // Constant after construction.
  Store* store_;
  WatchOptions options_;
  std::string home_;
  std::string watch_dir_;

  WatchReport totals_;
  watch::FileIndexer indexer_;
  std::optional<storage::FileLock> run_lock_;
  int inotify_fd_ = -1;
  int stop_fd_ = -1;
  int list_wd_ = -1;
  std::vector<WatchEntry> roots_;
  std::unordered_map<int, std::string> wd_path_;
  std::map<std::string, int> path_wd_;

  // Events waiting for the settle window to pass.
  struct PendingMove {
    uint32_t cookie = 0;
    std::string from;
    std::string to;  // Empty until the IN_MOVED_TO half arrives.
  };
  struct DirtyPath {
    Clock::time_point first;
    Clock::time_point last;
    bool writing = false;
  };
  std::map<std::string, DirtyPath> dirty_;
  std::vector<PendingMove> moves_;
  std::unordered_map<uint32_t, std::string> dir_moves_from_;
  bool rescan_ = false;
  bool reload_ = false;
  Clock::time_point next_list_check_;
  // Events arrived since the last reconcile; first_pending_ is the first.
  bool fresh_ = false;
  Clock::time_point first_pending_;
  Clock::time_point last_event_;
};

}  // namespace ctxkit

#endif  // CTXKIT_WATCH_INOTIFY_WATCHER_H_
