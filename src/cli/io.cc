#include "cli/io.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "core/status_macros.h"
#include "os/file_util.h"

namespace ctxkit::cli {

Result<std::string> ReadStdin() {
  // Nothing reads stdin through stdio before this, so its buffer is empty.
  return storage::ReadToEnd(STDIN_FILENO, "stdin");
}

Result<storage::UniqueFd> OpenFile(const std::string& path) {
  storage::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) {
    int err = errno;
    std::string msg = "cannot open " + path + ": " + std::strerror(err);
    if (err == ENOENT) return Status::NotFound(msg);
    if (err == EACCES) return Status::PermissionDenied(msg);
    return Status::IoError(msg);
  }
  return fd;
}

Result<std::string> ReadFile(const std::string& path) {
  CTXKIT_ASSIGN_OR_RETURN(storage::UniqueFd fd, OpenFile(path));
  return storage::ReadToEnd(fd.get(), path);
}

Status WriteStdout(std::string_view bytes) {
  if (!bytes.empty() &&
      std::fwrite(bytes.data(), 1, bytes.size(), stdout) != bytes.size()) {
    return Status::IoError(std::string("cannot write to stdout: ") +
                           std::strerror(errno));
  }
  return Status::Ok();
}

Result<std::string> ReadValue(bool has_arg, const std::string& arg,
                              const std::string& file) {
  if (!file.empty()) return ReadFile(file);
  if (has_arg && arg != "-") return arg;
  return ReadStdin();
}

}  // namespace ctxkit::cli
