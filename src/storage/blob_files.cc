#include "storage/blob_files.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ctime>

#include "core/encoding.h"
#include "storage/file_util.h"

namespace ctxkit::storage {
namespace {
// Temp files older than this belong to a writer that died; younger ones may
// belong to a live writer in another process.
constexpr time_t kStaleTempSeconds = 3600;
}  // namespace

Status BlobFiles::Init() {
  Status s = MakeDirs(root_ + "/tmp");
  if (!s.ok()) return s;
  DIR* dir = ::opendir((root_ + "/tmp").c_str());
  if (dir == nullptr) return ErrnoStatus("opendir", root_ + "/tmp");
  time_t now = ::time(nullptr);
  while (dirent* entry = ::readdir(dir)) {
    std::string name = entry->d_name;
    if (name == "." || name == "..") continue;
    std::string path = root_ + "/tmp/" + name;
    struct stat st;
    if (::stat(path.c_str(), &st) == 0 &&
        now - st.st_mtime > kStaleTempSeconds) {
      ::unlink(path.c_str());
    }
  }
  ::closedir(dir);
  return Status::Ok();
}

std::string BlobFiles::PathFor(std::string_view hash) const {
  std::string hex = core::ToHex(hash);
  return root_ + "/" + hex.substr(0, 2) + "/" + hex;
}

Status BlobFiles::Write(std::string_view hash, std::string_view content) {
  std::string path = PathFor(hash);
  struct stat st;
  // A complete file of the right size is the same content (the name is its
  // hash, and files appear only by atomic rename).
  if (::stat(path.c_str(), &st) == 0 &&
      static_cast<uint64_t>(st.st_size) == content.size()) {
    return Status::Ok();
  }
  std::string dir = path.substr(0, path.find_last_of('/'));
  if (!PathExists(dir)) {
    Status s = MakeDirs(dir);
    if (!s.ok()) return s;
    if (sync_) {
      s = SyncDir(root_);
      if (!s.ok()) return s;
    }
  }
  return AtomicWriteFile(root_ + "/tmp", path, content, sync_);
}

Result<std::string> BlobFiles::Read(std::string_view hash, uint64_t offset,
                                    uint64_t length) const {
  return ReadFileRange(PathFor(hash), offset, length);
}

}  // namespace ctxkit::storage
