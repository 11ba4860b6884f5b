// One catch-up pass over a watched root: every file read, hashed and
// compared with the store; objects whose file is gone marked deleted.

#ifndef CTXKIT_WATCH_CATCH_UP_H_
#define CTXKIT_WATCH_CATCH_UP_H_

#include <functional>
#include <string>

#include "ctxkit/status.h"
#include "ctxkit/watch.h"
#include "watch/file_indexer.h"

namespace ctxkit::watch {

// Brings the store in line with `root` as it is on disk now. `on_dir` (may
// be empty) is called for each directory walked, root first; the watcher
// adds its inotify watches there, before the files of that directory are
// read, so a change racing the pass is either read now or seen as an
// event.
Status CatchUp(FileIndexer& indexer, const WatchEntry& root,
               const std::function<Status(const std::string&)>& on_dir,
               WatchReport* report);

}  // namespace ctxkit::watch

#endif  // CTXKIT_WATCH_CATCH_UP_H_
