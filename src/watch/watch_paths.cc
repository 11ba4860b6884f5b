#include "watch/watch_paths.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <memory>
#include <vector>

#include "ctxkit/ref.h"

namespace ctxkit::watch {

Result<std::string> Canonicalize(std::string_view path) {
  if (path.empty()) return Status::InvalidArgument("empty path");
  std::string p(path);
  if (p.find('\0') != std::string::npos) {
    return Status::InvalidArgument("path contains a NUL byte");
  }
  // realpath with a null buffer allocates exactly what the result needs.
  std::unique_ptr<char, decltype(&::free)> resolved(
      ::realpath(p.c_str(), nullptr), &::free);
  if (resolved == nullptr) {
    int err = errno;
    std::string why = std::string(path) + ": " + ::strerror(err);
    if (err == ENOENT || err == ENOTDIR) return Status::NotFound(why);
    if (err == ENAMETOOLONG || err == ELOOP) {
      return Status::InvalidArgument(why);
    }
    return Status::IoError("cannot resolve " + why);
  }
  return std::string(resolved.get());
}

std::string LexicalAbsolute(std::string_view path) {
  std::string joined;
  if (!path.starts_with('/')) {
    char buf[PATH_MAX];
    if (::getcwd(buf, sizeof buf) != nullptr) joined = buf;
    joined += '/';
  }
  joined += path;
  std::vector<std::string_view> parts;
  std::string_view rest(joined);
  while (!rest.empty()) {
    size_t slash = rest.find('/');
    std::string_view part = rest.substr(0, slash);
    rest = slash == std::string_view::npos ? "" : rest.substr(slash + 1);
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      if (!parts.empty()) parts.pop_back();
      continue;
    }
    parts.push_back(part);
  }
  std::string out;
  for (std::string_view part : parts) {
    out += '/';
    out += part;
  }
  return out.empty() ? "/" : out;
}

std::string FileKey(std::string_view path) {
  std::string key(kFileKeyPrefix);
  key += path;
  return key;
}

std::string_view PathOfKey(std::string_view key) {
  if (!key.starts_with(kFileKeyPrefix)) return {};
  return key.substr(kFileKeyPrefix.size());
}

Status CheckKeyable(std::string_view path) {
  Status s = ValidateKey(FileKey(path));
  if (s.ok()) return s;
  return Status::InvalidArgument("cannot name " + std::string(path) +
                                 " as a store key: " + s.message());
}

bool IsWithin(std::string_view path, std::string_view root) {
  if (!path.starts_with(root)) return false;
  if (path.size() == root.size()) return true;
  return root == "/" || path[root.size()] == '/';
}

std::string ParentOf(std::string_view path) {
  size_t slash = path.rfind('/');
  if (slash == std::string_view::npos || slash == 0) return "/";
  return std::string(path.substr(0, slash));
}

std::string JoinPath(std::string_view dir, std::string_view name) {
  std::string out(dir);
  if (out.empty() || out.back() != '/') out += '/';
  out += name;
  return out;
}

}  // namespace ctxkit::watch
