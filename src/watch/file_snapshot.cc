#include "watch/file_snapshot.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include "core/encoding.h"
#include "core/sha256.h"
#include "text/json_parse.h"

namespace ctxkit::watch {

namespace {

FileSnapshot Skip(std::string reason) {
  FileSnapshot s;
  s.outcome = FileSnapshot::Outcome::kSkipped;
  s.skip_reason = std::move(reason);
  return s;
}

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

}  // namespace

Result<FileSnapshot> ReadFileSnapshot(const std::string& path,
                                      uint64_t max_bytes) {
  // O_NONBLOCK: opening a FIFO must not hang the watcher; it is rejected
  // by the fstat check below before any read.
  Fd fd(::open(path.c_str(),
               O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
  if (fd.get() < 0) {
    int err = errno;
    if (err == ENOENT || err == ENOTDIR) return FileSnapshot{};
    if (err == ELOOP) return Skip("symbolic link (not followed)");
    return Skip(std::string("cannot open: ") + ::strerror(err));
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) {
    return Skip(std::string("cannot stat: ") + ::strerror(errno));
  }
  if (!S_ISREG(st.st_mode)) {
    return Skip(S_ISDIR(st.st_mode) ? "directory" : "not a regular file");
  }
  if (static_cast<uint64_t>(st.st_size) > max_bytes) {
    return Skip("larger than " + std::to_string(max_bytes) + " bytes");
  }
  FileSnapshot snap;
  snap.outcome = FileSnapshot::Outcome::kRead;
  // The file may grow while it is read; reading stops at max_bytes + 1 so a
  // file that grew past the limit is still skipped, never truncated.
  snap.content.resize(static_cast<size_t>(st.st_size));
  size_t used = 0;
  for (;;) {
    if (used == snap.content.size()) {
      if (used > max_bytes) break;
      snap.content.resize(std::min<uint64_t>(
          max_bytes + 1, std::max<uint64_t>(used * 2, used + 4096)));
    }
    ssize_t n = ::read(fd.get(), snap.content.data() + used,
                       snap.content.size() - used);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Skip(std::string("cannot read: ") + ::strerror(errno));
    }
    if (n == 0) break;
    used += static_cast<size_t>(n);
  }
  snap.content.resize(used);
  if (used > max_bytes) {
    return Skip("larger than " + std::to_string(max_bytes) + " bytes");
  }
  std::string_view probe(snap.content.data(),
                         std::min(used, kBinaryProbeBytes));
  if (probe.find('\0') != std::string_view::npos) return Skip("binary");
  snap.hash_hex = core::ToHex(core::Sha256(snap.content));
  if (path.ends_with(".json") &&
      ctxkit::text::CheckJson(snap.content, path).ok()) {
    snap.type = ValueType::kJson;
  }
  return snap;
}

}  // namespace ctxkit::watch
