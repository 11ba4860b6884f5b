#include "os/posix_io.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace ctxkit::storage {

UniqueFd& UniqueFd::operator=(UniqueFd&& other) noexcept {
  if (this != &other) reset(other.release());
  return *this;
}

void UniqueFd::reset(int fd) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = fd;
}

StatusCode StatusCodeForErrno(int err) {
  switch (err) {
    case ENOENT:
      return StatusCode::kNotFound;
    case EACCES:
    case EPERM:
      return StatusCode::kPermissionDenied;
    case EEXIST:
      return StatusCode::kAlreadyExists;
    case ENOSPC:
    case EDQUOT:
    case EMFILE:
    case ENFILE:
    case ENOMEM:
      return StatusCode::kResourceExhausted;
    case ENAMETOOLONG:
    case ELOOP:
      return StatusCode::kInvalidArgument;
    default:
      return StatusCode::kIoError;
  }
}

Status ErrnoStatus(int err, std::string_view what, std::string_view path) {
  std::string msg =
      std::string(what) + " " + std::string(path) + ": " + std::strerror(err);
  switch (StatusCodeForErrno(err)) {
    case StatusCode::kNotFound:
      return Status::NotFound(msg);
    case StatusCode::kPermissionDenied:
      return Status::PermissionDenied(msg);
    case StatusCode::kAlreadyExists:
      return Status::AlreadyExists(msg);
    case StatusCode::kResourceExhausted:
      return Status::ResourceExhausted(msg);
    case StatusCode::kInvalidArgument:
      return Status::InvalidArgument(msg);
    default:
      return Status::IoError(msg);
  }
}

Status ErrnoStatus(std::string_view what, std::string_view path) {
  return ErrnoStatus(errno, what, path);
}

Result<FileLock> FileLock::Acquire(const std::string& path, LockMode mode,
                                   LockWait wait) {
  UniqueFd fd(
      ::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!fd.valid()) return ErrnoStatus("cannot open lock file", path);
  return Lock(std::move(fd), path, mode, wait);
}

Result<FileLock> FileLock::Lock(UniqueFd fd, std::string_view path,
                                LockMode mode, LockWait wait) {
  int op = (mode == LockMode::kExclusive ? LOCK_EX : LOCK_SH) |
           (wait == LockWait::kTry ? LOCK_NB : 0);
  while (::flock(fd.get(), op) != 0) {
    if (errno == EINTR) continue;
    if (errno == EWOULDBLOCK) {
      return Status::FailedPrecondition(std::string(path) +
                                        " is locked by another process");
    }
    return ErrnoStatus("cannot lock", path);
  }
  return FileLock(std::move(fd));
}

}  // namespace ctxkit::storage
