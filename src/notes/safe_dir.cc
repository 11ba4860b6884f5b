#include "notes/safe_dir.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <string>

#include "core/status_macros.h"
#include "os/file_util.h"

namespace ctxkit::notes {

namespace {

using storage::UniqueFd;

// storage::ErrnoStatus, saying why a symlink or a file in the way of a
// directory makes a path invalid here.
Status Errno(std::string_view what, std::string_view path) {
  int err = errno;
  if (err == ELOOP || err == ENOTDIR) {
    return Status::InvalidArgument(
        storage::ErrnoStatus(err, what, path).message() +
        std::string(" (symlinks are not followed)"));
  }
  return storage::ErrnoStatus(err, what, path);
}

std::string Join(const std::vector<std::string>& parts, size_t n) {
  std::string out;
  for (size_t i = 0; i < n && i < parts.size(); ++i) {
    if (i > 0) out += '/';
    out += parts[i];
  }
  return out;
}

Status WriteAll(int fd, std::string_view data, std::string_view name) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return Errno("write", name);
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
  return Status::Ok();
}

// A hidden temp file in `dir_fd` holding `data`, fsynced.
Result<std::string> WriteTemp(int dir_fd, std::string_view data) {
  std::string tmp = storage::TempFileName();
  UniqueFd fd(::openat(dir_fd, tmp.c_str(),
                       O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                       0644));
  if (fd.get() < 0) return Errno("create", tmp);
  Status s = WriteAll(fd.get(), data, tmp);
  if (s.ok() && ::fsync(fd.get()) != 0) s = Errno("fsync", tmp);
  if (!s.ok()) {
    ::unlinkat(dir_fd, tmp.c_str(), 0);
    return s;
  }
  return tmp;
}

}  // namespace

Result<std::vector<std::string>> SplitRelative(std::string_view rel) {
  if (rel.empty()) return Status::InvalidArgument("empty path");
  if (rel.front() == '/') {
    return Status::InvalidArgument("path '" + std::string(rel) +
                                   "' must be relative to the notes root");
  }
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= rel.size()) {
    size_t end = rel.find('/', start);
    if (end == std::string_view::npos) end = rel.size();
    std::string_view part = rel.substr(start, end - start);
    if (part.empty() || part == "." || part == ".." || part.front() == '.') {
      return Status::InvalidArgument(
          "path '" + std::string(rel) +
          "' may not contain empty, '.', '..' or hidden components");
    }
    if (part.size() > NAME_MAX) {
      return Status::InvalidArgument("path component too long");
    }
    for (unsigned char c : part) {
      if (c < 0x20 || c == 0x7f || c == '\\') {
        return Status::InvalidArgument(
            "path may not contain control characters or backslashes");
      }
    }
    parts.emplace_back(part);
    start = end + 1;
  }
  if (parts.size() > 8) return Status::InvalidArgument("path too deep");
  return parts;
}

Result<std::unique_ptr<RootDir>> RootDir::Open(const std::string& path) {
  if (path.empty()) return Status::InvalidArgument("empty notes root");
  CTXKIT_RETURN_IF_ERROR(storage::MakeDirs(path));
  char resolved[PATH_MAX];
  if (::realpath(path.c_str(), resolved) == nullptr) {
    return Errno("resolve", path);
  }
  UniqueFd fd(::open(resolved, O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd.get() < 0) return Errno("open", resolved);
  return std::unique_ptr<RootDir>(new RootDir(resolved, std::move(fd)));
}

Result<UniqueFd> RootDir::OpenDir(const std::vector<std::string>& dirs,
                                  bool create) const {
  // A fresh open file description, not dup(): a directory stream shares
  // its position with every dup, so a second listing would start at the
  // end and see nothing.
  UniqueFd cur(::openat(fd_.get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (cur.get() < 0) return Errno("open", path_);
  for (size_t i = 0; i < dirs.size(); ++i) {
    const char* name = dirs[i].c_str();
    int fd = ::openat(cur.get(), name,
                      O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT && create) {
      if (::mkdirat(cur.get(), name, 0755) != 0 && errno != EEXIST) {
        return Errno("mkdir", Join(dirs, i + 1));
      }
      fd = ::openat(cur.get(), name,
                    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    }
    if (fd < 0) return Errno("open directory", Join(dirs, i + 1));
    cur = UniqueFd(fd);
  }
  return cur;
}

Result<UniqueFd> RootDir::OpenParent(
    const std::vector<std::string>& parts) const {
  std::vector<std::string> dirs(parts.begin(), parts.end() - 1);
  return OpenDir(dirs, false);
}

Result<std::string> RootDir::ReadFile(std::string_view rel,
                                      uint64_t max_bytes) const {
  CTXKIT_ASSIGN_OR_RETURN(std::vector<std::string> parts, SplitRelative(rel));
  CTXKIT_ASSIGN_OR_RETURN(UniqueFd dir, OpenParent(parts));
  // O_NONBLOCK: a FIFO planted under a note's name must not hang us.
  UniqueFd fd(::openat(dir.get(), parts.back().c_str(),
                       O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (fd.get() < 0) return Errno("open", rel);
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) return Errno("stat", rel);
  if (!S_ISREG(st.st_mode)) {
    return Status::InvalidArgument(std::string(rel) + " is not a regular file");
  }
  if (static_cast<uint64_t>(st.st_size) > max_bytes) {
    return Status::ResourceExhausted(std::string(rel) + " is larger than " +
                                     std::to_string(max_bytes) + " bytes");
  }
  std::string out;
  out.resize(static_cast<size_t>(st.st_size));
  size_t got = 0;
  while (got < out.size()) {
    ssize_t n = ::read(fd.get(), out.data() + got, out.size() - got);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Errno("read", rel);
    }
    if (n == 0) break;  // Truncated meanwhile: what is there is the file.
    got += static_cast<size_t>(n);
  }
  out.resize(got);
  return out;
}

Result<struct stat> RootDir::Lstat(std::string_view rel) const {
  CTXKIT_ASSIGN_OR_RETURN(std::vector<std::string> parts, SplitRelative(rel));
  CTXKIT_ASSIGN_OR_RETURN(UniqueFd dir, OpenParent(parts));
  struct stat st;
  if (::fstatat(dir.get(), parts.back().c_str(), &st, AT_SYMLINK_NOFOLLOW) !=
      0) {
    return Errno("stat", rel);
  }
  return st;
}

Result<std::string> RootDir::CreateNew(const std::vector<std::string>& dirs,
                                       std::string_view stem,
                                       std::string_view ext,
                                       std::string_view data) const {
  CTXKIT_ASSIGN_OR_RETURN(UniqueFd dir, OpenDir(dirs, true));
  CTXKIT_ASSIGN_OR_RETURN(std::string tmp, WriteTemp(dir.get(), data));
  std::string chosen;
  for (int n = 1; n <= 10000; ++n) {
    std::string name = std::string(stem) +
                       (n == 1 ? "" : "-" + std::to_string(n)) +
                       std::string(ext);
    if (::linkat(dir.get(), tmp.c_str(), dir.get(), name.c_str(), 0) == 0) {
      chosen = name;
      break;
    }
    if (errno != EEXIST) {
      Status s = Errno("link", name);
      ::unlinkat(dir.get(), tmp.c_str(), 0);
      return s;
    }
  }
  ::unlinkat(dir.get(), tmp.c_str(), 0);
  if (chosen.empty()) {
    return Status::ResourceExhausted("no free name for " + std::string(stem));
  }
  if (::fsync(dir.get()) != 0) return Errno("fsync", Join(dirs, dirs.size()));
  return chosen;
}

Status RootDir::Replace(std::string_view rel, std::string_view data) const {
  CTXKIT_ASSIGN_OR_RETURN(std::vector<std::string> parts, SplitRelative(rel));
  CTXKIT_ASSIGN_OR_RETURN(UniqueFd dir, OpenParent(parts));
  struct stat st;
  if (::fstatat(dir.get(), parts.back().c_str(), &st, AT_SYMLINK_NOFOLLOW) !=
      0) {
    return Errno("stat", rel);
  }
  if (!S_ISREG(st.st_mode)) {
    return Status::InvalidArgument(std::string(rel) + " is not a regular file");
  }
  CTXKIT_ASSIGN_OR_RETURN(std::string tmp, WriteTemp(dir.get(), data));
  // Keep the note's permissions (another program may have chosen them).
  ::fchmodat(dir.get(), tmp.c_str(), st.st_mode & 07777, 0);
  if (::renameat(dir.get(), tmp.c_str(), dir.get(), parts.back().c_str()) !=
      0) {
    Status s = Errno("rename", rel);
    ::unlinkat(dir.get(), tmp.c_str(), 0);
    return s;
  }
  if (::fsync(dir.get()) != 0) return Errno("fsync directory of", rel);
  return Status::Ok();
}

Status RootDir::Remove(std::string_view rel) const {
  CTXKIT_ASSIGN_OR_RETURN(std::vector<std::string> parts, SplitRelative(rel));
  CTXKIT_ASSIGN_OR_RETURN(UniqueFd dir, OpenParent(parts));
  if (::unlinkat(dir.get(), parts.back().c_str(), 0) != 0) {
    return Errno("remove", rel);
  }
  return Status::Ok();
}

Status RootDir::RemoveDir(std::string_view rel) const {
  CTXKIT_ASSIGN_OR_RETURN(std::vector<std::string> parts, SplitRelative(rel));
  CTXKIT_ASSIGN_OR_RETURN(UniqueFd dir, OpenParent(parts));
  if (::unlinkat(dir.get(), parts.back().c_str(), AT_REMOVEDIR) != 0) {
    if (errno == ENOTEMPTY || errno == EEXIST) {
      return Status::FailedPrecondition(std::string(rel) + " is not empty");
    }
    return Errno("remove directory", rel);
  }
  return Status::Ok();
}

}  // namespace ctxkit::notes
