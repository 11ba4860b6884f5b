#include "storage/blob_files.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <ctime>
#include <optional>

#include "core/encoding.h"
#include "core/status_macros.h"
#include "storage/file_util.h"
#include "storage/posix_io.h"

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

std::string BlobFiles::TrashPathFor(std::string_view hash) const {
  return root_ + "/trash/" + core::ToHex(hash);
}

Result<uint64_t> BlobFiles::Trash(std::string_view hash) {
  CTXKIT_RETURN_IF_ERROR(MakeDirs(root_ + "/trash"));
  const std::string path = PathFor(hash);
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return uint64_t{0};
    return ErrnoStatus("stat", path);
  }
  if (::rename(path.c_str(), TrashPathFor(hash).c_str()) != 0) {
    return ErrnoStatus("move to the trash", path);
  }
  return static_cast<uint64_t>(st.st_size);
}

Status BlobFiles::Untrash(std::string_view hash) {
  const std::string from = TrashPathFor(hash);
  if (::rename(from.c_str(), PathFor(hash).c_str()) != 0 && errno != ENOENT) {
    return ErrnoStatus("restore from the trash", from);
  }
  return Status::Ok();
}

void BlobFiles::DropTrashed(std::string_view hash) {
  ::unlink(TrashPathFor(hash).c_str());
}

Status BlobFiles::RecoverTrash(
    const std::function<Result<bool>(std::string_view hash)>& referenced) {
  const std::string trash = root_ + "/trash";
  DIR* dir = ::opendir(trash.c_str());
  if (dir == nullptr) {
    if (errno == ENOENT) return Status::Ok();
    return ErrnoStatus("opendir", trash);
  }
  Status status = Status::Ok();
  while (dirent* entry = ::readdir(dir)) {
    const std::string name = entry->d_name;
    std::optional<std::string> hash = core::FromHex(name);
    if (!hash || hash->size() != 32) continue;  // ".", "..", strays.
    Result<bool> used = referenced(*hash);
    if (!used.ok()) {
      status = used.status();
      break;
    }
    if (*used) {
      status = Untrash(*hash);
      if (!status.ok()) break;
    } else {
      DropTrashed(*hash);
    }
  }
  ::closedir(dir);
  return status;
}

Result<std::string> BlobFiles::Read(std::string_view hash, uint64_t offset,
                                    uint64_t length) const {
  return ReadFileRange(PathFor(hash), offset, length);
}

Result<bool> BlobFiles::Scan(
    std::string_view hash, uint64_t size, uint64_t offset, uint64_t length,
    uint64_t window_bytes,
    const std::function<bool(std::string_view)>& sink) const {
  const std::string path = PathFor(hash);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return false;
    return ErrnoStatus("open", path);
  }
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    Status s = ErrnoStatus("stat", path);
    ::close(fd);
    return s;
  }
  if (static_cast<uint64_t>(st.st_size) != size) {
    ::close(fd);
    return false;
  }
  const uint64_t page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  const uint64_t piece_bytes = std::max<uint64_t>(window_bytes, 1);
  // Windows of whole pages, handed out in pieces of at most piece_bytes.
  // They start at 1 MiB (a scan that stops early has mapped little) and
  // double up to 16 MiB (fewer mmap calls on big values).
  constexpr uint64_t kMaxWindow = 16ull << 20;
  window_bytes = std::max<uint64_t>(piece_bytes, 1ull << 20);
  const uint64_t end =
      offset + std::min(length, size > offset ? size - offset : 0);
  Status status = Status::Ok();
  for (uint64_t pos = offset; pos < end;) {
    // mmap offsets must be page-aligned: map from the page holding `pos`.
    const uint64_t map_from = pos - pos % page;
    window_bytes += (page - window_bytes % page) % page;
    const uint64_t map_to = std::min(end, map_from + window_bytes);
    window_bytes =
        std::max(window_bytes, std::min(2 * window_bytes, kMaxWindow));
    const size_t map_len = static_cast<size_t>(map_to - map_from);
    // MAP_POPULATE builds the page table in one call instead of a fault
    // per page; the pages are in the page cache for a warm scan.
    void* addr = ::mmap(nullptr, map_len, PROT_READ, MAP_PRIVATE | MAP_POPULATE,
                        fd, static_cast<off_t>(map_from));
    if (addr == MAP_FAILED) {
      status = ErrnoStatus("mmap", path);
      break;
    }
    const char* base = static_cast<const char*>(addr);
    bool more = true;
    for (; more && pos < map_to;) {
      const uint64_t n = std::min(piece_bytes, map_to - pos);
      more = sink(std::string_view(base + (pos - map_from), n));
      pos += n;
    }
    ::munmap(addr, map_len);
    if (!more) break;
  }
  ::close(fd);
  if (!status.ok()) return status;
  return true;
}

}  // namespace ctxkit::storage
