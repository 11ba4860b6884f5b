#include "os/file_util.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdint>
#include <ctime>
#include <functional>
#include <optional>
#include <random>

#include "core/encoding.h"
#include "core/status_macros.h"
#include "os/fault_injection.h"
#include "os/posix_io.h"

namespace ctxkit::storage {
namespace {

std::string DirName(const std::string& path) {
  auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

// An injected I/O error (fault_injection.h) as the call would report it.
Status InjectedError(std::string_view what, const std::string& path) {
  return ErrnoStatus(EIO, what, path);
}

Status WriteAll(int fd, std::string_view data, const std::string& path) {
  bool half = false;
  if (fault::ShouldFail(fault::Op::kWrite, &half)) {
    if (half) data = data.substr(0, data.size() / 2);
    while (!data.empty()) {
      const ssize_t n = ::write(fd, data.data(), data.size());
      if (n <= 0) break;
      data.remove_prefix(static_cast<size_t>(n));
    }
    return InjectedError("write", path);
  }
  const char* p = data.data();
  size_t left = data.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus("write", path);
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  return Status::Ok();
}

std::string RandomSuffix() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  return core::ToBase36(rng());
}

}  // namespace

std::string TempFileName() {
  return ".tmp-" + std::to_string(::getpid()) + "-" + RandomSuffix();
}

bool IsStaleTempFile(std::string_view name, const struct stat& st) {
  constexpr time_t kStaleSeconds = 3600;
  constexpr std::string_view kPrefix = ".tmp-";
  const bool ours = name.starts_with(kPrefix);
  if (!ours && !name.ends_with(".tmp")) return false;
  if (!S_ISREG(st.st_mode)) return false;
  if (::time(nullptr) - st.st_mtime > kStaleSeconds) return true;
  if (!ours) return false;
  // ".tmp-<pid>-...": stale as soon as that process is gone.
  std::string_view rest = name.substr(kPrefix.size());
  rest = rest.substr(0, rest.find('-'));
  std::optional<uint64_t> pid = core::ParseCanonicalDecimal(rest);
  if (!pid || *pid == 0 || *pid > static_cast<uint64_t>(INT32_MAX)) {
    return false;
  }
  return ::kill(static_cast<pid_t>(*pid), 0) != 0 && errno == ESRCH;
}

void RemoveStaleTempFiles(const std::string& dir) {
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return;
  while (const dirent* e = ::readdir(d)) {
    struct stat st;
    if (::fstatat(::dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
        IsStaleTempFile(e->d_name, st)) {
      ::unlinkat(::dirfd(d), e->d_name, 0);
    }
  }
  ::closedir(d);
}

bool MayWrite(const std::string& path) {
  if (::access(path.c_str(), W_OK) == 0) return true;
  return errno != EACCES && errno != EPERM && errno != EROFS;
}

Status MarkImported(const std::string& path) {
  const std::string done = path + ".imported";
  if (::rename(path.c_str(), done.c_str()) != 0) {
    // Another process imported and renamed it first.
    if (errno == ENOENT && PathExists(done)) return Status::Ok();
    return ErrnoStatus("rename", path);
  }
  const size_t slash = path.rfind('/');
  return SyncDir(slash == std::string::npos || slash == 0
                     ? std::string(slash == 0 ? "/" : ".")
                     : path.substr(0, slash));
}

bool PathExists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

Status MakeDirs(const std::string& path) {
  if (path.empty()) return Status::InvalidArgument("empty directory path");
  struct stat st;
  // Usually there already: one stat, not a mkdir per component.
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    return Status::Ok();
  }
  std::string partial;
  size_t pos = 0;
  while (pos != std::string::npos) {
    pos = path.find('/', pos + 1);
    partial = path.substr(0, pos);
    if (partial.empty()) continue;
    if (::mkdir(partial.c_str(), 0700) != 0 && errno != EEXIST) {
      return ErrnoStatus("mkdir", partial);
    }
  }
  if (::stat(path.c_str(), &st) != 0) return ErrnoStatus("stat", path);
  if (!S_ISDIR(st.st_mode)) {
    return Status::IoError(path + " exists and is not a directory");
  }
  return Status::Ok();
}

Status SyncDir(const std::string& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus("open", dir);
  bool half = false;
  if (fault::ShouldFail(fault::Op::kSync, &half)) {
    ::close(fd);
    return InjectedError("fsync", dir);
  }
  int rc = ::fsync(fd);
  ::close(fd);
  if (rc != 0) return ErrnoStatus("fsync", dir);
  return Status::Ok();
}

namespace {

// Closes `fd`, syncing it first when `sync`; `s` is the write's outcome so
// far (nothing more is done after a failure).
Status SyncAndClose(int fd, const std::string& path, bool sync, Status s) {
  bool half = false;
  if (s.ok() && sync && fault::ShouldFail(fault::Op::kSync, &half)) {
    s = InjectedError("fsync", path);
  }
  if (s.ok() && sync && ::fsync(fd) != 0) s = ErrnoStatus("fsync", path);
  if (::close(fd) != 0 && s.ok()) s = ErrnoStatus("close", path);
  return s;
}

// Copies `src` from offset 0 to its end to `dst` in the kernel:
// copy_file_range, else sendfile (another file system, an older kernel),
// else read and write.
Status CopyFileContents(int src, int dst, const std::string& dst_path) {
  bool half = false;
  if (fault::ShouldFail(fault::Op::kWrite, &half)) {
    return InjectedError("write", dst_path);
  }
  enum class Way { kCopyFileRange, kSendfile, kReadWrite };
  Way way = Way::kCopyFileRange;
  off_t in = 0;  // Explicit: from the start, whatever src's position.
  // Some file systems end a kernel copy early with 0: only read() is
  // trusted to say the file ended before the size it had.
  struct stat st;
  const off_t size = ::fstat(src, &st) == 0 ? st.st_size : 0;
  constexpr size_t kStep = size_t{1} << 30;
  char buf[1 << 16];
  while (true) {
    ssize_t n = -1;
    switch (way) {
      case Way::kCopyFileRange:
        n = ::copy_file_range(src, &in, dst, nullptr, kStep, 0);
        break;
      case Way::kSendfile:
        n = ::sendfile(dst, src, &in, kStep);
        break;
      case Way::kReadWrite:
        n = ::pread(src, buf, sizeof(buf), in);
        if (n > 0) {
          CTXKIT_RETURN_IF_ERROR(WriteAll(
              dst, std::string_view(buf, static_cast<size_t>(n)), dst_path));
          in += n;
        }
        break;
    }
    if (n == 0 && way != Way::kReadWrite && in < size) {
      way = Way::kReadWrite;
      continue;
    }
    if (n == 0) return Status::Ok();
    if (n > 0) continue;
    if (errno == EINTR) continue;
    const bool unsupported = errno == EXDEV || errno == ENOSYS ||
                             errno == EINVAL || errno == EOPNOTSUPP;
    if (unsupported && way != Way::kReadWrite) {
      way = way == Way::kCopyFileRange ? Way::kSendfile : Way::kReadWrite;
      continue;
    }
    return ErrnoStatus("copy into", dst_path);
  }
}

}  // namespace

Status CommitTempFile(const std::string& tmp, const std::string& final_path,
                      bool sync) {
  bool half = false;
  Status s = Status::Ok();
  if (fault::ShouldFail(fault::Op::kRename, &half)) {
    s = InjectedError("rename to " + final_path, tmp);
  }
  if (s.ok() && ::rename(tmp.c_str(), final_path.c_str()) != 0) {
    s = ErrnoStatus("rename to " + final_path, tmp);
  }
  if (!s.ok()) {
    ::unlink(tmp.c_str());
    return s;
  }
  return sync ? SyncDir(DirName(final_path)) : Status::Ok();
}

namespace {

// A new temp file in `tmp_dir` that `fill` writes, synced when `sync`.
// Returns its path; nothing is left behind on failure.
Result<std::string> WriteTempFile(
    const std::string& tmp_dir, bool sync,
    const std::function<Status(int fd, const std::string& path)>& fill) {
  std::string tmp = tmp_dir + "/" + TempFileName();
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return ErrnoStatus("create", tmp);
  Status s = SyncAndClose(fd, tmp, sync, fill(fd, tmp));
  if (!s.ok()) {
    ::unlink(tmp.c_str());
    return s;
  }
  return tmp;
}

}  // namespace

Status AtomicWriteFile(const std::string& tmp_dir,
                       const std::string& final_path, std::string_view data,
                       bool sync) {
  CTXKIT_ASSIGN_OR_RETURN(
      std::string tmp,
      WriteTempFile(tmp_dir, sync, [data](int fd, const std::string& path) {
        return WriteAll(fd, data, path);
      }));
  return CommitTempFile(tmp, final_path, sync);
}

Result<std::string> CopyToTempFile(int src_fd, const std::string& tmp_dir,
                                   bool sync) {
  return WriteTempFile(tmp_dir, sync,
                       [src_fd](int fd, const std::string& path) {
                         return CopyFileContents(src_fd, fd, path);
                       });
}

Result<std::string> ReadToEnd(int fd, std::string_view what) {
  std::string out;
  struct stat st;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    const off_t at = ::lseek(fd, 0, SEEK_CUR);  // It may be part read.
    if (at >= 0 && st.st_size > at) {
      out.resize(static_cast<size_t>(st.st_size - at));
    }
  }
  size_t got = 0;
  char probe[1 << 16];
  while (true) {
    // Into the string while it has room; else into `probe` first, so
    // that reaching the end never grows the string.
    const bool room = got < out.size();
    char* into = room ? out.data() + got : probe;
    const ssize_t n = ::read(fd, into, room ? out.size() - got : sizeof(probe));
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus("cannot read", what);
    }
    if (n == 0) break;
    if (!room) {
      out.resize(got);
      out.append(probe, static_cast<size_t>(n));
    }
    got += static_cast<size_t>(n);
  }
  out.resize(got);
  return out;
}

Result<std::string> ReadFileRange(const std::string& path, uint64_t offset,
                                  uint64_t length) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) {
      return Status::Corruption("content file missing: " + path);
    }
    return ErrnoStatus("open", path);
  }
  std::string out;
  out.resize(length);
  size_t got = 0;
  while (got < length) {
    ssize_t n = ::pread(fd, out.data() + got, length - got,
                        static_cast<off_t>(offset + got));
    if (n < 0) {
      if (errno == EINTR) continue;
      Status s = ErrnoStatus("read", path);
      ::close(fd);
      return s;
    }
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  ::close(fd);
  out.resize(got);
  return out;
}

}  // namespace ctxkit::storage
