// The one home for POSIX I/O plumbing every layer shares: an owned file
// descriptor, flock(2) locks, and errno -> Status mapping.

#ifndef CTXKIT_OS_POSIX_IO_H_
#define CTXKIT_OS_POSIX_IO_H_

#include <string>
#include <string_view>

#include "ctxkit/status.h"

namespace ctxkit::storage {

// An owned file descriptor, closed on destruction. Move-only.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  ~UniqueFd() { reset(); }
  UniqueFd(UniqueFd&& other) noexcept : fd_(other.release()) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept;
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  // Gives up ownership without closing.
  int release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }
  // Closes the current descriptor (if any) and owns `fd`.
  void reset(int fd = -1);

 private:
  int fd_ = -1;
};

// The StatusCode an errno value maps to:
//   ENOENT                                 -> kNotFound
//   EACCES, EPERM                          -> kPermissionDenied
//   EEXIST                                 -> kAlreadyExists
//   ENOSPC, EDQUOT, EMFILE, ENFILE, ENOMEM -> kResourceExhausted
//   ENAMETOOLONG, ELOOP                    -> kInvalidArgument
//   anything else                          -> kIoError
StatusCode StatusCodeForErrno(int err);

// "<what> <path>: <strerror(err)>" with the code StatusCodeForErrno(err).
Status ErrnoStatus(int err, std::string_view what, std::string_view path);

// The same for the current errno.
Status ErrnoStatus(std::string_view what, std::string_view path);

enum class LockMode { kShared, kExclusive };
enum class LockWait { kBlock, kTry };

// An flock(2) on a lock file, released on destruction (or when the process
// dies, so a crashed holder never blocks the next one). Locks are per open
// file description: two FileLocks on one path contend even in one process.
class FileLock {
 public:
  // Opens `path` (created 0600 when missing; a symlink is refused) and
  // locks it. kBlock waits for the lock; kTry fails at once with
  // FailedPrecondition while another holder has a conflicting lock.
  static Result<FileLock> Acquire(const std::string& path, LockMode mode,
                                  LockWait wait);

  // Locks an already open descriptor (e.g. a log opened for append) and
  // takes ownership of it; `path` names it in errors.
  static Result<FileLock> Lock(UniqueFd fd, std::string_view path,
                               LockMode mode, LockWait wait);

  FileLock(FileLock&&) = default;
  FileLock& operator=(FileLock&&) = default;

  int fd() const { return fd_.get(); }

 private:
  explicit FileLock(UniqueFd fd) : fd_(std::move(fd)) {}
  UniqueFd fd_;
};

}  // namespace ctxkit::storage

#endif  // CTXKIT_OS_POSIX_IO_H_
