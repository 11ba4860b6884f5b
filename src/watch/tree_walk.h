// Walking a watched directory tree without following symbolic links.

#ifndef CTXKIT_WATCH_TREE_WALK_H_
#define CTXKIT_WATCH_TREE_WALK_H_

#include <functional>
#include <string>

#include "ctxkit/status.h"

namespace ctxkit::watch {

struct TreeVisitor {
  // Each directory, `root` first, parents before children. A non-OK Status
  // stops the walk and is returned.
  std::function<Status(const std::string& dir)> on_dir;
  // Each regular file.
  std::function<Status(const std::string& file)> on_file;
  // Entries that are not walked: symlinks, special files, unreadable
  // directories.
  std::function<void(const std::string& path, const std::string& why)> on_skip;
};

// Depth-first over `root` (a directory). Entries vanishing during the walk
// are ignored. Symlinks are reported to on_skip and never followed, so the
// walk never leaves `root`.
Status WalkTree(const std::string& root, const TreeVisitor& visitor);

}  // namespace ctxkit::watch

#endif  // CTXKIT_WATCH_TREE_WALK_H_
