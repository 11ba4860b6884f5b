#include "watch/catch_up.h"

#include <sys/stat.h>

#include <set>
#include <vector>

#include "core/progress_meter.h"
#include "core/status_macros.h"
#include "watch/tree_walk.h"
#include "watch/watch_paths.h"

namespace ctxkit::watch {
namespace {

// The regular files under `dir`, for a progress estimate: a walk that
// reads no file, a small fraction of reading them.
uint64_t CountFiles(const std::string& dir) {
  uint64_t files = 0;
  TreeVisitor counter;
  counter.on_file = [&](const std::string&) {
    ++files;
    return Status::Ok();
  };
  (void)WalkTree(dir, counter);  // A failed count only loses the estimate.
  return files;
}

}  // namespace

Status CatchUp(FileIndexer& indexer, const WatchEntry& root,
               const std::function<Status(const std::string&)>& on_dir,
               WatchReport* report) {
  CTXKIT_RETURN_IF_ERROR(indexer.LoadTracked(root.path, root.directory));
  struct stat st {};
  bool present = ::lstat(root.path.c_str(), &st) == 0 &&
                 (root.directory ? S_ISDIR(st.st_mode) : !S_ISDIR(st.st_mode));
  if (!present) {
    report->missing_roots.push_back(root.path);
    return root.directory ? indexer.MarkGoneUnder(root.path)
                          : indexer.MarkGone(root.path);
  }
  if (!root.directory) {
    if (on_dir) CTXKIT_RETURN_IF_ERROR(on_dir(ParentOf(root.path)));
    CTXKIT_RETURN_IF_ERROR(indexer.Sync(root.path));
    return indexer.Flush();
  }
  const ProgressOptions& progress = indexer.options().progress;
  core::ProgressMeter meter(progress, "reading", "files",
                            progress.report ? CountFiles(root.path) : 0);
  std::set<std::string> seen;
  TreeVisitor visitor;
  visitor.on_dir = on_dir;
  visitor.on_file = [&](const std::string& file) {
    seen.insert(file);
    meter.Advance();
    return indexer.Sync(file);
  };
  visitor.on_skip = [&](const std::string& path, const std::string& why) {
    indexer.AddSkipped(path, why);
  };
  CTXKIT_RETURN_IF_ERROR(WalkTree(root.path, visitor));
  // Known objects under the root that the walk did not meet: deleted while
  // nobody watched (or now skipped: a symlink, a special file).
  std::vector<std::string> gone;
  for (const auto& [path, known] : indexer.known()) {
    if (IsWithin(path, root.path) && !seen.count(path)) gone.push_back(path);
  }
  for (const std::string& path : gone) {
    CTXKIT_RETURN_IF_ERROR(indexer.MarkGone(path));
  }
  return indexer.Flush();
}

}  // namespace ctxkit::watch
