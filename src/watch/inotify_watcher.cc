#include "watch/inotify_watcher.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include "core/status_macros.h"
#include "os/filename.h"
#include "os/posix_io.h"
#include "watch/catch_up.h"
#include "watch/inotify_errors.h"
#include "watch/tree_walk.h"
#include "watch/watch_list.h"
#include "watch/watch_list_file.h"
#include "watch/watch_paths.h"

namespace ctxkit {

namespace {

using watch::IsWithin;
using watch::JoinPath;

constexpr uint32_t kDirMask = IN_CLOSE_WRITE | IN_MODIFY | IN_CREATE |
                              IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO |
                              IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR |
                              IN_DONT_FOLLOW | IN_EXCL_UNLINK;

// How long a file written without a close (IN_MODIFY only: a log kept
// open, a truncate) must stay quiet before it is read.
constexpr std::chrono::milliseconds kWriteQuiet(100);
// How often a running watcher looks for changes to the list made on
// another machine (changes made on this one wake it at once).
constexpr std::chrono::milliseconds kListCheck(2000);

bool Exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

// `path` with its prefix `from` replaced by `to`. REQUIRES IsWithin.
std::string Rebase(const std::string& path, const std::string& from,
                   const std::string& to) {
  return to + path.substr(from.size());
}

}  // namespace

WatcherImpl::WatcherImpl(Store* store, View view, const WatchOptions& options)
    : store_(store),
      options_(options),
      home_(store->home()),
      indexer_(std::move(view), &options_, &totals_) {}

WatcherImpl::~WatcherImpl() {
  if (inotify_fd_ >= 0) ::close(inotify_fd_);
  if (stop_fd_ >= 0) ::close(stop_fd_);
}

Result<std::unique_ptr<WatcherImpl>> WatcherImpl::Start(
    Store* store, const WatchOptions& options) {
  CTXKIT_ASSIGN_OR_RETURN(View view, store->OpenView("", ""));
  std::unique_ptr<WatcherImpl> impl(
      new WatcherImpl(store, std::move(view), options));
  CTXKIT_RETURN_IF_ERROR(impl->Init());
  return impl;
}

Status WatcherImpl::Init() {
  CTXKIT_ASSIGN_OR_RETURN(watch_dir_, watch::WatchDir(home_));
  Result<storage::FileLock> lock = storage::FileLock::Acquire(
      storage::WatchRunLockPath(home_), storage::LockMode::kExclusive,
      storage::LockWait::kTry);
  if (!lock.ok()) {
    if (lock.status().code() == StatusCode::kFailedPrecondition) {
      return Status::FailedPrecondition(
          "another watcher (ctxkit watch run) is already running on the "
          "store at " +
          home_);
    }
    return lock.status();
  }
  run_lock_ = std::move(*lock);
  inotify_fd_ = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (inotify_fd_ < 0) return watch::InotifyError(errno, "the watch list");
  stop_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (stop_fd_ < 0) return storage::ErrnoStatus("eventfd for", watch_dir_);
  // The list's hint file: `watch add`/`rm` replace it by rename.
  list_wd_ = ::inotify_add_watch(inotify_fd_, watch_dir_.c_str(),
                                 IN_MOVED_TO | IN_CLOSE_WRITE | IN_ONLYDIR);
  if (list_wd_ < 0) return watch::InotifyError(errno, watch_dir_);
  CTXKIT_ASSIGN_OR_RETURN(roots_, watch::LoadWatchList(*store_));
  next_list_check_ = Clock::now() + kListCheck;
  return FullPass();
}

Status WatcherImpl::FullPass() {
  auto on_dir = [this](const std::string& dir) { return AddDirWatch(dir); };
  for (const WatchEntry& root : roots_) {
    CTXKIT_RETURN_IF_ERROR(watch::CatchUp(indexer_, root, on_dir, &totals_));
  }
  return Status::Ok();
}

Status WatcherImpl::ReloadRoots() {
  Result<std::vector<WatchEntry>> list = watch::LoadWatchList(*store_);
  if (!list.ok()) {
    // An entry another build wrote, or a store error: keep watching the
    // old list rather than stop.
    Report(watch_dir_, list.status());
    return Status::Ok();
  }
  std::vector<WatchEntry> added;
  for (const WatchEntry& e : *list) {
    bool known =
        std::any_of(roots_.begin(), roots_.end(), [&](const WatchEntry& r) {
          return r.path == e.path && r.directory == e.directory;
        });
    if (!known) added.push_back(e);
  }
  roots_ = std::move(*list);
  // Watches only the removed roots needed.
  std::vector<std::string> unneeded;
  for (const auto& entry : path_wd_) {
    const std::string& path = entry.first;
    bool needed =
        Covered(path) ||
        std::any_of(roots_.begin(), roots_.end(), [&](const WatchEntry& r) {
          return !r.directory && watch::ParentOf(r.path) == path;
        });
    if (!needed) unneeded.push_back(path);
  }
  for (const std::string& path : unneeded) {
    int wd = path_wd_[path];
    ::inotify_rm_watch(inotify_fd_, wd);
    wd_path_.erase(wd);
    path_wd_.erase(path);
  }
  auto on_dir = [this](const std::string& dir) { return AddDirWatch(dir); };
  for (const WatchEntry& root : added) {
    CTXKIT_RETURN_IF_ERROR(watch::CatchUp(indexer_, root, on_dir, &totals_));
  }
  return Status::Ok();
}

Status WatcherImpl::AddDirWatch(const std::string& dir) {
  int wd = ::inotify_add_watch(inotify_fd_, dir.c_str(), kDirMask);
  if (wd < 0) {
    int err = errno;
    // Gone or replaced by a non-directory (or a symlink) meanwhile: the
    // parent's events cover it.
    if (err == ENOENT || err == ENOTDIR) return Status::Ok();
    if (err == EACCES) {
      indexer_.AddSkipped(dir, "cannot watch directory: permission denied");
      return Status::Ok();
    }
    return watch::InotifyError(err, dir);
  }
  auto old = wd_path_.find(wd);
  if (old != wd_path_.end() && old->second != dir) {
    path_wd_.erase(old->second);
  }
  wd_path_[wd] = dir;
  path_wd_[dir] = wd;
  return Status::Ok();
}

Status WatcherImpl::AddTree(const std::string& dir) {
  watch::TreeVisitor visitor;
  visitor.on_dir = [this](const std::string& d) { return AddDirWatch(d); };
  visitor.on_file = [this](const std::string& f) {
    MarkDirty(f, /*writing=*/true);
    return Status::Ok();
  };
  visitor.on_skip = [this](const std::string& path, const std::string& why) {
    indexer_.AddSkipped(path, why);
  };
  return watch::WalkTree(dir, visitor);
}

void WatcherImpl::DropWatchesUnder(const std::string& dir) {
  for (auto it = path_wd_.lower_bound(dir);
       it != path_wd_.end() && it->first.starts_with(dir);) {
    if (!IsWithin(it->first, dir)) {
      ++it;
      continue;
    }
    ::inotify_rm_watch(inotify_fd_, it->second);
    wd_path_.erase(it->second);
    it = path_wd_.erase(it);
  }
}

bool WatcherImpl::Covered(const std::string& path) const {
  for (const WatchEntry& root : roots_) {
    if (root.directory ? IsWithin(path, root.path) : path == root.path) {
      return true;
    }
  }
  return false;
}

void WatcherImpl::Touch() {
  Clock::time_point now = Clock::now();
  if (!fresh_) {
    fresh_ = true;
    first_pending_ = now;
  }
  last_event_ = now;
}

void WatcherImpl::MarkDirty(const std::string& path, bool writing) {
  Touch();
  auto [it, added] = dirty_.try_emplace(path);
  if (added) it->second.first = last_event_;
  it->second.last = last_event_;
  it->second.writing = writing;
}

void WatcherImpl::Report(const std::string& path, const Status& status) {
  indexer_.AddSkipped(path, "error: " + status.ToString());
}

Status WatcherImpl::ReadEvents() {
  // Aligned for inotify_event; 64 KiB holds hundreds of events per read.
  alignas(inotify_event) char buf[64 * 1024];
  for (;;) {
    ssize_t n = ::read(inotify_fd_, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN) return Status::Ok();
      return storage::ErrnoStatus("read inotify events for", home_);
    }
    if (n == 0) return Status::Ok();
    for (char* p = buf; p < buf + n;) {
      auto* event = reinterpret_cast<inotify_event*>(p);
      CTXKIT_RETURN_IF_ERROR(HandleEvent(*event));
      p += sizeof(inotify_event) + event->len;
    }
  }
}

Status WatcherImpl::HandleEvent(const inotify_event& event) {
  if (event.mask & IN_Q_OVERFLOW) {
    // Events were lost: only a full pass can tell what changed.
    rescan_ = true;
    Touch();
    return Status::Ok();
  }
  if (event.wd == list_wd_) {
    if (event.len > 0 &&
        std::string_view(event.name) == storage::kWatchListHintName) {
      reload_ = true;
      Touch();
    }
    return Status::Ok();
  }
  auto it = wd_path_.find(event.wd);
  if (it == wd_path_.end()) return Status::Ok();
  if (event.mask & IN_IGNORED) {
    auto p = path_wd_.find(it->second);
    if (p != path_wd_.end() && p->second == event.wd) path_wd_.erase(p);
    wd_path_.erase(it);
    return Status::Ok();
  }
  if (event.len == 0) {
    // IN_DELETE_SELF / IN_MOVE_SELF of a watched directory: its parent's
    // event covers it, except for a root, whose parent is not watched.
    if (Covered(it->second)) MarkDirty(it->second);
    return Status::Ok();
  }
  std::string path = JoinPath(it->second, event.name);
  if (event.mask & IN_ISDIR) {
    if (event.mask & IN_MOVED_FROM) {
      if (Covered(path)) {
        dir_moves_from_[event.cookie] = path;
        Touch();
      }
      return Status::Ok();
    }
    if (event.mask & IN_MOVED_TO) {
      auto from = dir_moves_from_.find(event.cookie);
      if (from != dir_moves_from_.end()) {
        std::string from_path = std::move(from->second);
        dir_moves_from_.erase(from);
        return ApplyDirMove(from_path, path);
      }
      return Covered(path) ? AddTree(path) : Status::Ok();
    }
    if (event.mask & IN_CREATE) {
      return Covered(path) ? AddTree(path) : Status::Ok();
    }
    if ((event.mask & IN_DELETE) && Covered(path)) MarkDirty(path);
    return Status::Ok();
  }
  // A file. Outside coverage (a sibling of a watched file in its parent
  // directory) only matters as the far side of a move, which the covered
  // side's own event handles.
  if (!Covered(path)) return Status::Ok();
  if (event.mask & IN_MOVED_FROM) {
    moves_.push_back({event.cookie, path, ""});
  } else if (event.mask & IN_MOVED_TO) {
    for (PendingMove& m : moves_) {
      if (m.cookie == event.cookie && m.to.empty()) m.to = path;
    }
  }
  MarkDirty(path, (event.mask & (IN_CREATE | IN_MODIFY)) != 0);
  return Status::Ok();
}

Status WatcherImpl::ApplyDirMove(const std::string& from,
                                 const std::string& to) {
  if (!Covered(to)) {
    // Moved out of every watched tree: as good as deleted.
    DropWatchesUnder(from);
    MarkDirty(from);
    return Status::Ok();
  }
  // The kernel keeps the watches (they follow the inode); only their
  // paths change.
  std::vector<std::pair<std::string, int>> moved;
  for (auto it = path_wd_.lower_bound(from);
       it != path_wd_.end() && it->first.starts_with(from); ++it) {
    if (IsWithin(it->first, from)) moved.emplace_back(it->first, it->second);
  }
  for (const auto& [path, wd] : moved) {
    std::string now = Rebase(path, from, to);
    path_wd_.erase(path);
    path_wd_[now] = wd;
    wd_path_[wd] = now;
  }
  std::vector<std::string> files;
  for (auto it = indexer_.known().lower_bound(from);
       it != indexer_.known().end() && it->first.starts_with(from); ++it) {
    if (IsWithin(it->first, from)) files.push_back(it->first);
  }
  for (const std::string& file : files) {
    std::string now = Rebase(file, from, to);
    Result<bool> moved_object = indexer_.Move(file, now);
    if (!moved_object.ok()) {
      Report(file, moved_object.status());
    } else if (!*moved_object) {
      MarkDirty(file);
    }
    MarkDirty(now);
  }
  // Paths queued under the old name now live under the new one.
  std::map<std::string, DirtyPath> dirty;
  for (const auto& [path, d] : dirty_) {
    dirty[IsWithin(path, from) ? Rebase(path, from, to) : path] = d;
  }
  dirty_ = std::move(dirty);
  for (PendingMove& m : moves_) {
    if (IsWithin(m.from, from)) m.from = Rebase(m.from, from, to);
    if (IsWithin(m.to, from)) m.to = Rebase(m.to, from, to);
  }
  Touch();
  return Status::Ok();
}

bool WatcherImpl::Due(const DirtyPath& d, Clock::time_point now,
                      bool stopping) const {
  if (stopping || !d.writing) return true;
  return now >= d.last + kWriteQuiet ||
         now >= d.first + std::chrono::milliseconds(options_.max_settle_ms);
}

Status WatcherImpl::Reconcile(bool stopping) {
  fresh_ = false;
  if (reload_) {
    reload_ = false;
    CTXKIT_RETURN_IF_ERROR(ReloadRoots());
  }
  if (rescan_) {
    rescan_ = false;
    dirty_.clear();
    moves_.clear();
    dir_moves_from_.clear();
    return FullPass();
  }
  // A directory moved away with no IN_MOVED_TO in the watched trees.
  for (auto& [cookie, from] : dir_moves_from_) {
    DropWatchesUnder(from);
    MarkDirty(from);
  }
  dir_moves_from_.clear();
  fresh_ = false;
  // A rename is the same object only when the old name is really gone;
  // editors that rename the original aside and write a new file keep the
  // original object (the old path still exists, see docs/watchers.md).
  for (const PendingMove& m : moves_) {
    if (m.to.empty() || Exists(m.from)) continue;
    Result<bool> moved = indexer_.Move(m.from, m.to);
    if (!moved.ok()) Report(m.from, moved.status());
  }
  moves_.clear();
  Clock::time_point now = Clock::now();
  std::vector<std::string> due;
  for (auto it = dirty_.begin(); it != dirty_.end();) {
    if (Due(it->second, now, stopping)) {
      due.push_back(it->first);
      it = dirty_.erase(it);
    } else {
      ++it;
    }
  }
  for (const std::string& path : due) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) {
      DropWatchesUnder(path);
      Status s = indexer_.MarkGone(path);
      if (s.ok()) s = indexer_.MarkGoneUnder(path);
      if (!s.ok()) Report(path, s);
      continue;
    }
    // Directories were walked when they appeared.
    if (S_ISDIR(st.st_mode) || !Covered(path)) continue;
    Status s = indexer_.Sync(path);
    if (!s.ok()) Report(path, s);
  }
  // The changes of this pass as one write; a failure is already listed
  // under each path it concerns.
  indexer_.Flush().IgnoreError();
  return Status::Ok();
}

void WatcherImpl::CheckListChanged() {
  const Clock::time_point now = Clock::now();
  if (now < next_list_check_) return;
  next_list_check_ = now + kListCheck;
  Result<std::vector<WatchEntry>> list = watch::LoadWatchList(*store_);
  if (!list.ok()) return;  // ReloadRoots reports it when it matters.
  const bool same =
      std::equal(list->begin(), list->end(), roots_.begin(), roots_.end(),
                 [](const WatchEntry& a, const WatchEntry& b) {
                   return a.path == b.path && a.directory == b.directory;
                 });
  if (!same) {
    reload_ = true;
    Touch();
  }
}

Status WatcherImpl::Run() {
  bool stopping = false;
  for (;;) {
    Clock::time_point deadline = std::min(Deadline(), next_list_check_);
    if (!Pending()) deadline = next_list_check_;
    auto left =
        std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());
    int timeout_ms =
        static_cast<int>(std::clamp<int64_t>(left.count(), 0, 3600 * 1000));
    pollfd fds[2] = {{inotify_fd_, POLLIN, 0}, {stop_fd_, POLLIN, 0}};
    int n = ::poll(fds, 2, timeout_ms);
    if (n < 0) {
      if (errno == EINTR) continue;
      return storage::ErrnoStatus("poll inotify for", home_);
    }
    if (fds[1].revents & POLLIN) {
      uint64_t count = 0;
      ssize_t r = ::read(stop_fd_, &count, sizeof count);
      (void)r;
      stopping = true;
    }
    // Read even when stopping, so changes made before Stop() are applied.
    if ((fds[0].revents & POLLIN) || stopping) {
      CTXKIT_RETURN_IF_ERROR(ReadEvents());
    }
    if (!stopping) CheckListChanged();
    if (Pending() && (stopping || Clock::now() >= Deadline())) {
      CTXKIT_RETURN_IF_ERROR(Reconcile(stopping));
    }
    if (stopping) return Status::Ok();
  }
}

WatcherImpl::Clock::time_point WatcherImpl::Deadline() const {
  auto max_settle = std::chrono::milliseconds(options_.max_settle_ms);
  Clock::time_point t = Clock::time_point::max();
  if (fresh_) {
    t = std::min(last_event_ + std::chrono::milliseconds(options_.settle_ms),
                 first_pending_ + max_settle);
  }
  // Only paths still being written wait past the settle window.
  for (const auto& [path, d] : dirty_) {
    if (d.writing) {
      t = std::min(t, std::min(d.last + kWriteQuiet, d.first + max_settle));
    }
  }
  return t;
}

void WatcherImpl::Stop() {
  uint64_t one = 1;
  // write(2) on an eventfd is async-signal-safe; a full counter (2^64 - 2
  // stops) cannot happen in practice.
  ssize_t r = ::write(stop_fd_, &one, sizeof one);
  (void)r;
}

}  // namespace ctxkit
