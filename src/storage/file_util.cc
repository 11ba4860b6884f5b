#include "storage/file_util.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdint>
#include <ctime>
#include <optional>
#include <random>

#include "core/encoding.h"
#include "storage/fault_injection.h"
#include "storage/posix_io.h"

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

bool PathExists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

Status MakeDirs(const std::string& path) {
  if (path.empty()) return Status::InvalidArgument("empty directory path");
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
  struct stat st;
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

Status AtomicWriteFile(const std::string& tmp_dir,
                       const std::string& final_path, std::string_view data,
                       bool sync) {
  std::string tmp = tmp_dir + "/" + TempFileName();
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return ErrnoStatus("create", tmp);
  Status s = WriteAll(fd, data, tmp);
  bool half = false;
  if (s.ok() && sync && fault::ShouldFail(fault::Op::kSync, &half)) {
    s = InjectedError("fsync", tmp);
  }
  if (s.ok() && sync && ::fsync(fd) != 0) s = ErrnoStatus("fsync", tmp);
  if (::close(fd) != 0 && s.ok()) s = ErrnoStatus("close", tmp);
  if (s.ok() && fault::ShouldFail(fault::Op::kRename, &half)) {
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
