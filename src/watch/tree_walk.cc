#include "watch/tree_walk.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <memory>
#include <vector>

#include "core/status_macros.h"
#include "watch/watch_paths.h"

namespace ctxkit::watch {

namespace {

// d_type when the file system provides it, else lstat (never stat: a
// symlink must be seen as a symlink).
unsigned char TypeOf(const std::string& path, const dirent* entry) {
  if (entry->d_type != DT_UNKNOWN) return entry->d_type;
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return DT_UNKNOWN;
  if (S_ISDIR(st.st_mode)) return DT_DIR;
  if (S_ISREG(st.st_mode)) return DT_REG;
  if (S_ISLNK(st.st_mode)) return DT_LNK;
  return DT_FIFO;  // Any other special file.
}

}  // namespace

Status WalkTree(const std::string& root, const TreeVisitor& visitor) {
  std::vector<std::string> stack = {root};
  while (!stack.empty()) {
    std::string dir = std::move(stack.back());
    stack.pop_back();
    // O_NOFOLLOW: a directory swapped for a symlink since its type was read
    // must not lead the walk out of the tree.
    int fd =
        ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    std::unique_ptr<DIR, int (*)(DIR*)> d(fd < 0 ? nullptr : ::fdopendir(fd),
                                          &::closedir);
    if (d == nullptr) {
      int err = errno;
      if (fd >= 0) ::close(fd);
      if (err != ENOENT && err != ENOTDIR && visitor.on_skip) {
        visitor.on_skip(
            dir, std::string("cannot list directory: ") + ::strerror(err));
      }
      continue;
    }
    if (visitor.on_dir) CTXKIT_RETURN_IF_ERROR(visitor.on_dir(dir));
    std::vector<std::string> subdirs;
    for (;;) {
      errno = 0;
      dirent* entry = ::readdir(d.get());
      if (entry == nullptr) break;
      std::string_view name(entry->d_name);
      if (name == "." || name == "..") continue;
      std::string path = JoinPath(dir, name);
      switch (TypeOf(path, entry)) {
        case DT_DIR:
          subdirs.push_back(std::move(path));
          break;
        case DT_REG:
          if (visitor.on_file) CTXKIT_RETURN_IF_ERROR(visitor.on_file(path));
          break;
        case DT_UNKNOWN:  // Vanished between readdir and lstat.
          break;
        case DT_LNK:
          if (visitor.on_skip) {
            visitor.on_skip(path, "symbolic link (not followed)");
          }
          break;
        default:
          if (visitor.on_skip) visitor.on_skip(path, "not a regular file");
          break;
      }
    }
    // Reverse, so that the stack pops them in readdir order.
    stack.insert(stack.end(), subdirs.rbegin(), subdirs.rend());
  }
  return Status::Ok();
}

}  // namespace ctxkit::watch
