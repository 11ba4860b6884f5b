#include "cli/io.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

namespace ctxkit::cli {

namespace {

Result<std::string> ReadAll(std::FILE* f, const std::string& what) {
  std::string out;
  char buf[1 << 16];
  while (true) {
    size_t n = std::fread(buf, 1, sizeof(buf), f);
    out.append(buf, n);
    if (n < sizeof(buf)) {
      if (std::ferror(f)) {
        return Status::IoError("cannot read " + what + ": " +
                               std::strerror(errno));
      }
      break;
    }
  }
  return out;
}

}  // namespace

Result<std::string> ReadStdin() {
  // glibc streams are binary already; no mode switch is needed on POSIX.
  return ReadAll(stdin, "stdin");
}

Result<std::string> ReadFile(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    int err = errno;
    std::string msg = "cannot open " + path + ": " + std::strerror(err);
    if (err == ENOENT) return Status::NotFound(msg);
    if (err == EACCES) return Status::PermissionDenied(msg);
    return Status::IoError(msg);
  }
  Result<std::string> data = ReadAll(f, path);
  std::fclose(f);
  return data;
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
