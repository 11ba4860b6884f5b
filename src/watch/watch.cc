// The public watch API (include/ctxkit/watch.h): the watch list verbs,
// catch-up passes, and Watcher forwarding to WatcherImpl.

#include "ctxkit/watch.h"

#include <sys/stat.h>

#include <algorithm>

#include "core/clock.h"
#include "core/status_macros.h"
#include "os/file_util.h"
#include "os/filename.h"
#include "os/posix_io.h"
#include "watch/catch_up.h"
#include "watch/file_indexer.h"
#include "watch/inotify_watcher.h"
#include "watch/watch_list.h"
#include "watch/watch_list_file.h"
#include "watch/watch_paths.h"

namespace ctxkit {

namespace {

Status CheckOptions(const WatchOptions& o) {
  if (o.max_file_bytes == 0 || o.max_file_bytes > (1ull << 30)) {
    return Status::InvalidArgument("max file size must be 1 byte to 1 GiB");
  }
  if (o.settle_ms > 10000 || o.max_settle_ms > 10000) {
    return Status::InvalidArgument("settle times must be 0-10000 ms");
  }
  return Status::Ok();
}

// The canonical form of an existing path to watch, checked against what a
// watch may be.
Result<WatchEntry> ResolveNewWatch(Store& store, std::string_view path) {
  CTXKIT_ASSIGN_OR_RETURN(std::string canon, watch::Canonicalize(path));
  struct stat st {};
  if (::stat(canon.c_str(), &st) != 0) {
    return Status::NotFound(canon + ": vanished while being added");
  }
  if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode)) {
    return Status::InvalidArgument(canon +
                                   " is neither a regular file nor a "
                                   "directory");
  }
  CTXKIT_RETURN_IF_ERROR(watch::CheckKeyable(canon));
  // A store inside a watched tree would index its own writes forever.
  Result<std::string> home = watch::Canonicalize(store.home());
  if (home.ok() &&
      (watch::IsWithin(canon, *home) || watch::IsWithin(*home, canon))) {
    return Status::InvalidArgument(
        canon + (watch::IsWithin(canon, *home) ? " is inside" : " contains") +
        " the store home " + *home + "; a store cannot watch itself");
  }
  WatchEntry entry;
  entry.path = std::move(canon);
  entry.directory = S_ISDIR(st.st_mode);
  entry.added_unix_ns = core::NowUnixNanos();
  return entry;
}

Result<storage::FileLock> LockList(const Store& store) {
  return storage::FileLock::Acquire(storage::WatchListLockPath(store.home()),
                                    storage::LockMode::kExclusive,
                                    storage::LockWait::kBlock);
}

// Tells a watcher running on this machine that the list changed
// (storage::kWatchListHintName; a watcher elsewhere notices on its next
// check of the list). Best effort: the list is written already.
void NotifyListChanged(const std::string& dir) {
  storage::AtomicWriteFile(dir, dir + "/" + storage::kWatchListHintName, "",
                           /*sync=*/false)
      .IgnoreError();
}

}  // namespace

std::string_view WatchChangeKindName(WatchChange::Kind kind) {
  switch (kind) {
    case WatchChange::Kind::kCreated:
      return "created";
    case WatchChange::Kind::kUpdated:
      return "updated";
    case WatchChange::Kind::kDeleted:
      return "deleted";
    case WatchChange::Kind::kMoved:
      return "moved";
  }
  return "unknown";
}

Result<WatchEntry> AddWatch(Store& store, std::string_view path,
                            const WatchOptions& options, WatchReport* report) {
  CTXKIT_RETURN_IF_ERROR(CheckOptions(options));
  CTXKIT_ASSIGN_OR_RETURN(WatchEntry entry, ResolveNewWatch(store, path));
  CTXKIT_ASSIGN_OR_RETURN(std::string dir, watch::WatchDir(store.home()));
  CTXKIT_ASSIGN_OR_RETURN(storage::FileLock lock, LockList(store));
  CTXKIT_ASSIGN_OR_RETURN(std::vector<WatchEntry> list,
                          watch::LoadWatchList(store));
  for (const WatchEntry& e : list) {
    if (e.path == entry.path) {
      return Status::AlreadyExists(entry.path + " is already watched");
    }
    if (e.directory && watch::IsWithin(entry.path, e.path)) {
      return Status::AlreadyExists(
          entry.path + " is inside the watched directory " + e.path);
    }
  }
  // Index first: if that fails the list is left as it was.
  WatchReport local;
  WatchReport* out = report != nullptr ? report : &local;
  *out = WatchReport{};
  CTXKIT_ASSIGN_OR_RETURN(View view, store.OpenView("", ""));
  watch::FileIndexer indexer(std::move(view), &options, out);
  CTXKIT_RETURN_IF_ERROR(watch::CatchUp(indexer, entry, nullptr, out));
  CTXKIT_RETURN_IF_ERROR(watch::AddToWatchList(store, entry));
  NotifyListChanged(dir);
  return entry;
}

Status RemoveWatch(Store& store, std::string_view path) {
  if (path.empty()) return Status::InvalidArgument("empty path");
  Result<std::string> canon = watch::Canonicalize(path);
  std::string target = canon.ok() ? *canon : watch::LexicalAbsolute(path);
  CTXKIT_ASSIGN_OR_RETURN(std::string dir, watch::WatchDir(store.home()));
  CTXKIT_ASSIGN_OR_RETURN(storage::FileLock lock, LockList(store));
  CTXKIT_ASSIGN_OR_RETURN(std::vector<WatchEntry> list,
                          watch::LoadWatchList(store));
  auto it = std::find_if(list.begin(), list.end(),
                         [&](const WatchEntry& e) { return e.path == target; });
  if (it == list.end()) {
    // A path given through a symlink that is gone now: the lexical form
    // may still name the entry.
    std::string lexical = watch::LexicalAbsolute(path);
    it = std::find_if(list.begin(), list.end(),
                      [&](const WatchEntry& e) { return e.path == lexical; });
  }
  if (it == list.end()) return Status::NotFound(target + " is not watched");
  CTXKIT_RETURN_IF_ERROR(watch::RemoveFromWatchList(store, it->path));
  NotifyListChanged(dir);
  return Status::Ok();
}

Result<std::vector<WatchEntry>> ListWatches(Store& store) {
  return watch::LoadWatchList(store);
}

Result<WatchReport> ScanWatches(Store& store, const WatchOptions& options) {
  CTXKIT_RETURN_IF_ERROR(CheckOptions(options));
  CTXKIT_ASSIGN_OR_RETURN(std::vector<WatchEntry> list, ListWatches(store));
  WatchReport report;
  CTXKIT_ASSIGN_OR_RETURN(View view, store.OpenView("", ""));
  watch::FileIndexer indexer(std::move(view), &options, &report);
  for (const WatchEntry& root : list) {
    CTXKIT_RETURN_IF_ERROR(watch::CatchUp(indexer, root, nullptr, &report));
  }
  return report;
}

Watcher::Watcher(std::unique_ptr<WatcherImpl> impl) : impl_(std::move(impl)) {}
Watcher::~Watcher() = default;

Result<std::unique_ptr<Watcher>> Watcher::Start(Store* store,
                                                const WatchOptions& options) {
  if (store == nullptr) return Status::InvalidArgument("null store");
  CTXKIT_RETURN_IF_ERROR(CheckOptions(options));
  CTXKIT_ASSIGN_OR_RETURN(std::unique_ptr<WatcherImpl> impl,
                          WatcherImpl::Start(store, options));
  return std::unique_ptr<Watcher>(new Watcher(std::move(impl)));
}

Status Watcher::Run() { return impl_->Run(); }
void Watcher::Stop() { impl_->Stop(); }
const WatchReport& Watcher::totals() const { return impl_->totals(); }

}  // namespace ctxkit
