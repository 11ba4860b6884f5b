#include "storage/spill_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <random>

#include "core/encoding.h"
#include "core/status_macros.h"
#include "os/file_util.h"
#include "os/posix_io.h"

namespace ctxkit::storage {

SpillFile::~SpillFile() {
  if (fd_ >= 0) ::close(fd_);
}

Status SpillFile::Create() {
  if (dir_.empty()) return Status::Internal("spill file has no directory");
  Status s = storage::MakeDirs(dir_);
  if (!s.ok()) return s;
  fd_ = ::open(dir_.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd_ < 0) {
    // File systems without O_TMPFILE: create, then unlink at once.
    std::string path =
        dir_ + "/spill-" + core::ToBase36(std::random_device{}()) + ".tmp";
    fd_ = ::open(path.c_str(), O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600);
    if (fd_ < 0) return storage::ErrnoStatus("create spill file", path);
    ::unlink(path.c_str());
  }
  return Status::Ok();
}

Result<uint64_t> SpillFile::Write(std::string_view data) {
  if (fd_ < 0) CTXKIT_RETURN_IF_ERROR(Create());
  uint64_t offset = end_;
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::pwrite(fd_, data.data() + done, data.size() - done,
                         static_cast<off_t>(offset + done));
    if (n < 0) {
      if (errno == EINTR) continue;
      return storage::ErrnoStatus("write", "spill file");
    }
    done += static_cast<size_t>(n);
  }
  end_ += data.size();
  return offset;
}

Result<std::string> SpillFile::Read(uint64_t offset, uint64_t length) const {
  std::string out(length, '\0');
  size_t got = 0;
  while (got < length) {
    ssize_t n = ::pread(fd_, out.data() + got, length - got,
                        static_cast<off_t>(offset + got));
    if (n < 0) {
      if (errno == EINTR) continue;
      return storage::ErrnoStatus("read", "spill file");
    }
    if (n == 0)
      return Status::Corruption("spill file is shorter than expected");
    got += static_cast<size_t>(n);
  }
  return out;
}

void SpillFile::Free(uint64_t offset, uint64_t length) {
  if (fd_ < 0 || length == 0) return;
  // Best effort: a file system without hole punching keeps the bytes until
  // the process exits, which is still correct.
  ::fallocate(fd_, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
              static_cast<off_t>(offset), static_cast<off_t>(length));
}

}  // namespace ctxkit::storage
