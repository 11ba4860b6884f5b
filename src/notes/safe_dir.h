// File access confined to one directory tree: every path is split into
// validated components and opened one component at a time with O_NOFOLLOW,
// so neither "..", absolute paths nor symlinks (planted by anyone) can make
// an operation touch a file outside the root.

#ifndef CTXKIT_NOTES_SAFE_DIR_H_
#define CTXKIT_NOTES_SAFE_DIR_H_

#include <sys/stat.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ctxkit/status.h"
#include "os/posix_io.h"

namespace ctxkit::notes {

// "a/b/c.md" -> {"a", "b", "c.md"}. InvalidArgument for an empty path, a
// leading '/', empty, "." or ".." components, hidden names (leading '.'),
// control characters or backslashes.
Result<std::vector<std::string>> SplitRelative(std::string_view rel);

class RootDir {
 public:
  // Creates `path` with parents when missing and pins it (symlinks in the
  // root path itself are resolved once, here).
  static Result<std::unique_ptr<RootDir>> Open(const std::string& path);

  const std::string& path() const { return path_; }
  int fd() const { return fd_.get(); }

  // The directory `dirs` below the root, created when `create`.
  Result<storage::UniqueFd> OpenDir(const std::vector<std::string>& dirs,
                                    bool create) const;

  // A regular file's content. NotFound when absent; InvalidArgument when
  // the path is a symlink or not a regular file; ResourceExhausted above
  // max_bytes.
  Result<std::string> ReadFile(std::string_view rel, uint64_t max_bytes) const;

  // lstat of a path below the root (NotFound when absent).
  Result<struct stat> Lstat(std::string_view rel) const;

  // Writes `data` as a new file in directory `dirs` named
  // "<stem><ext>", or "<stem>-2<ext>", "<stem>-3<ext>"... whichever is free
  // first: the data goes to a hidden temp file, is fsynced, then linked
  // under the final name (link fails instead of replacing, so concurrent
  // writers never collide). Returns the name chosen.
  Result<std::string> CreateNew(const std::vector<std::string>& dirs,
                                std::string_view stem, std::string_view ext,
                                std::string_view data) const;

  // Atomically replaces an existing regular file (temp, fsync, rename,
  // fsync of the directory).
  Status Replace(std::string_view rel, std::string_view data) const;

  // Unlinks a regular file; NotFound when absent.
  Status Remove(std::string_view rel) const;
  // Removes an empty directory; FailedPrecondition when it is not empty.
  Status RemoveDir(std::string_view rel) const;

 private:
  RootDir(std::string path, storage::UniqueFd fd)
      : path_(std::move(path)), fd_(std::move(fd)) {}
  // The directory holding the last component of `parts`.
  Result<storage::UniqueFd> OpenParent(
      const std::vector<std::string>& parts) const;

  std::string path_;
  storage::UniqueFd fd_;
};

}  // namespace ctxkit::notes

#endif  // CTXKIT_NOTES_SAFE_DIR_H_
