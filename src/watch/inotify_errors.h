// Turning inotify failures into Status values that say what to do: the
// kernel's per-user limits are the usual cause, and the sysctl that raises
// each one is part of the message.

#ifndef CTXKIT_WATCH_INOTIFY_ERRORS_H_
#define CTXKIT_WATCH_INOTIFY_ERRORS_H_

#include <string>

#include "ctxkit/status.h"

namespace ctxkit::watch {

// `err` is the errno of inotify_init1 or inotify_add_watch on `what`.
// ENOSPC (fs.inotify.max_user_watches) and EMFILE
// (fs.inotify.max_user_instances) are ResourceExhausted naming the current
// limit and the sysctl; anything else is IoError.
Status InotifyError(int err, const std::string& what);

}  // namespace ctxkit::watch

#endif  // CTXKIT_WATCH_INOTIFY_ERRORS_H_
