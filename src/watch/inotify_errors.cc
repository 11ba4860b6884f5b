#include "watch/inotify_errors.h"

#include <errno.h>

#include <fstream>

#include "os/posix_io.h"

namespace ctxkit::watch {

namespace {

std::string ProcValue(const char* path) {
  std::ifstream in(path);
  std::string value;
  in >> value;
  return value.empty() ? "?" : value;
}

}  // namespace

Status InotifyError(int err, const std::string& what) {
  if (err == ENOSPC) {
    return Status::ResourceExhausted(
        "inotify watch limit reached while watching " + what +
        " (fs.inotify.max_user_watches = " +
        ProcValue("/proc/sys/fs/inotify/max_user_watches") +
        "); raise it, e.g. `sysctl fs.inotify.max_user_watches=524288`");
  }
  if (err == EMFILE) {
    return Status::ResourceExhausted(
        "inotify instance limit reached (fs.inotify.max_user_instances = " +
        ProcValue("/proc/sys/fs/inotify/max_user_instances") +
        "); raise it, e.g. `sysctl fs.inotify.max_user_instances=1024`, or "
        "stop other watchers");
  }
  errno = err;
  return storage::ErrnoStatus("inotify on", what);
}

}  // namespace ctxkit::watch
