#include "watch/catch_up.h"

#include <sys/stat.h>

#include <set>
#include <vector>

#include "core/status_macros.h"
#include "watch/tree_walk.h"
#include "watch/watch_paths.h"

namespace ctxkit::watch {

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
  std::set<std::string> seen;
  TreeVisitor visitor;
  visitor.on_dir = on_dir;
  visitor.on_file = [&](const std::string& file) {
    seen.insert(file);
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
