// Paths of watched files and the store keys that name them.

#ifndef CTXKIT_WATCH_WATCH_PATHS_H_
#define CTXKIT_WATCH_WATCH_PATHS_H_

#include <string>
#include <string_view>

#include "ctxkit/status.h"

namespace ctxkit::watch {

// The key prefix of every watched file's object.
inline constexpr std::string_view kFileKeyPrefix = "file:";

// realpath(3): absolute, no "." or "..", symlinks resolved. NotFound when
// the path (or a parent) does not exist, InvalidArgument for an empty path,
// IoError otherwise.
Result<std::string> Canonicalize(std::string_view path);

// An absolute form without touching the file system: relative paths are
// joined to the working directory, "." and ".." folded, repeated and
// trailing slashes dropped. For paths that may no longer exist.
std::string LexicalAbsolute(std::string_view path);

// "file:" + path.
std::string FileKey(std::string_view path);

// The path a file key names; empty when `key` is not a file key.
std::string_view PathOfKey(std::string_view key);

// OK when FileKey(path) is a valid store key (at most 256 bytes, UTF-8, no
// control characters); otherwise InvalidArgument saying why.
Status CheckKeyable(std::string_view path);

// True when `path` is `root` or lies inside it (component-wise).
bool IsWithin(std::string_view path, std::string_view root);

// The directory part of an absolute path ("/a/b" -> "/a", "/a" -> "/").
std::string ParentOf(std::string_view path);

// `dir` + "/" + name, without doubling the slash of "/".
std::string JoinPath(std::string_view dir, std::string_view name);

}  // namespace ctxkit::watch

#endif  // CTXKIT_WATCH_WATCH_PATHS_H_
