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
#include "core/sha256.h"
#include "core/status_macros.h"
#include "os/file_util.h"
#include "os/posix_io.h"
#include "storage/blob_checksums.h"

namespace ctxkit::storage {
Status BlobFiles::Init() {
  Status s = MakeDirs(root_ + "/tmp");
  if (!s.ok()) return s;
  RemoveStaleTempFiles(root_ + "/tmp");
  return Status::Ok();
}

std::string BlobFiles::PathFor(std::string_view hash) const {
  std::string hex = core::ToHex(hash);
  return root_ + "/" + hex.substr(0, 2) + "/" + hex;
}

Result<bool> BlobFiles::Wanted(std::string_view hash, uint64_t size,
                               std::string* path) {
  *path = PathFor(hash);
  struct stat st;
  // A complete file of the right size is the same content (the name is its
  // hash, and files appear only by atomic rename).
  if (::stat(path->c_str(), &st) == 0 &&
      static_cast<uint64_t>(st.st_size) == size) {
    return false;
  }
  std::string dir = path->substr(0, path->find_last_of('/'));
  if (!PathExists(dir)) {
    CTXKIT_RETURN_IF_ERROR(MakeDirs(dir));
    if (sync_) CTXKIT_RETURN_IF_ERROR(SyncDir(root_));
  }
  return true;
}

Status BlobFiles::Write(std::string_view hash, std::string_view content) {
  std::string path;
  CTXKIT_ASSIGN_OR_RETURN(bool wanted, Wanted(hash, content.size(), &path));
  if (!wanted) return Status::Ok();
  return AtomicWriteFile(root_ + "/tmp", path, content, sync_);
}

Result<std::string> BlobFiles::Stage(int src_fd) {
  return CopyToTempFile(src_fd, root_ + "/tmp", sync_);
}

Status BlobFiles::Adopt(std::string_view hash, uint64_t size,
                        const std::string& staged) {
  std::string path;
  Result<bool> wanted = Wanted(hash, size, &path);
  if (!wanted.ok() || !*wanted) {
    ::unlink(staged.c_str());
    return wanted.status();
  }
  return CommitTempFile(staged, path, sync_);
}

std::string BlobFiles::TrashPathFor(std::string_view hash) const {
  return root_ + "/trash/" + core::ToHex(hash);
}

Result<uint64_t> BlobFiles::SizeOf(std::string_view hash) const {
  const std::string path = PathFor(hash);
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return uint64_t{0};
    return ErrnoStatus("stat", path);
  }
  return static_cast<uint64_t>(st.st_size);
}

Result<uint64_t> BlobFiles::Trash(std::string_view hash) {
  CTXKIT_RETURN_IF_ERROR(MakeDirs(root_ + "/trash"));
  CTXKIT_ASSIGN_OR_RETURN(uint64_t size, SizeOf(hash));
  const std::string path = PathFor(hash);
  if (::rename(path.c_str(), TrashPathFor(hash).c_str()) != 0) {
    if (errno == ENOENT) return uint64_t{0};
    return ErrnoStatus("move to the trash", path);
  }
  return size;
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

Result<bool> BlobFiles::HasAny() const {
  DIR* top = ::opendir(root_.c_str());
  if (top == nullptr) {
    if (errno == ENOENT) return false;
    return ErrnoStatus("opendir", root_);
  }
  bool found = false;
  while (!found) {
    const dirent* shard = ::readdir(top);
    if (shard == nullptr) break;
    const std::string name = shard->d_name;
    if (name.size() != 2 || !core::FromHex(name)) continue;
    DIR* dir = ::opendir((root_ + "/" + name).c_str());
    if (dir == nullptr) continue;
    while (const dirent* entry = ::readdir(dir)) {
      std::optional<std::string> hash = core::FromHex(entry->d_name);
      if (hash && hash->size() == 32) {
        found = true;
        break;
      }
    }
    ::closedir(dir);
  }
  ::closedir(top);
  return found;
}

Result<UniqueFd> BlobFiles::OpenChecked(std::string_view hash, uint64_t size,
                                        bool missing_ok) const {
  const std::string path = PathFor(hash);
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) {
    if (errno != ENOENT) return ErrnoStatus("open", path);
    if (missing_ok) return UniqueFd();
    return BlobCorruption(path, "the file is missing");
  }
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) return ErrnoStatus("stat", path);
  if (static_cast<uint64_t>(st.st_size) != size) {
    return BlobCorruption(path, "it is " + std::to_string(st.st_size) +
                                    " bytes, but holds a " +
                                    std::to_string(size) + "-byte value");
  }
  return fd;
}

namespace {

// `offset` rounded up to a whole checksum chunk.
uint64_t RoundUpToChunk(uint64_t offset) {
  return offset +
         (kBlobChunkBytes - offset % kBlobChunkBytes) % kBlobChunkBytes;
}

// Reads exactly [offset, offset + length) of `fd` into `out[0, length)`.
Status PreadInto(int fd, uint64_t offset, uint64_t length, char* out,
                 const std::string& path) {
  size_t got = 0;
  while (got < length) {
    ssize_t n =
        ::pread(fd, out + got, length - got, static_cast<off_t>(offset + got));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ErrnoStatus("read", path);
    if (n == 0) return BlobCorruption(path, "it ended early while read");
    got += static_cast<size_t>(n);
  }
  return Status::Ok();
}

Result<std::string> PreadExactly(int fd, uint64_t offset, uint64_t length,
                                 const std::string& path) {
  std::string out(length, '\0');
  CTXKIT_RETURN_IF_ERROR(PreadInto(fd, offset, length, out.data(), path));
  return out;
}

// Chunks read to be checked, for a range smaller than they are: kept per
// thread, so a small read neither zero-fills nor allocates them again.
constexpr uint64_t kScratchMaxBytes = 1ull << 20;

Result<std::string> ReadCheckedRange(int fd, std::string_view sums,
                                     uint64_t from, uint64_t to,
                                     uint64_t offset, uint64_t length,
                                     const std::string& path) {
  const uint64_t n = to - from;
  if (n > kScratchMaxBytes || (from == offset && n == length)) {
    // Large or whole: read into the string returned.
    CTXKIT_ASSIGN_OR_RETURN(std::string chunks,
                            PreadExactly(fd, from, n, path));
    CTXKIT_RETURN_IF_ERROR(
        VerifyBlobChunks(sums, from / kBlobChunkBytes, chunks, path));
    if (from == offset && n == length) return chunks;
    return chunks.substr(offset - from, length);
  }
  thread_local std::string scratch;
  if (scratch.size() < n) scratch.resize(n);
  CTXKIT_RETURN_IF_ERROR(PreadInto(fd, from, n, scratch.data(), path));
  const std::string_view chunks(scratch.data(), n);
  CTXKIT_RETURN_IF_ERROR(
      VerifyBlobChunks(sums, from / kBlobChunkBytes, chunks, path));
  return std::string(chunks.substr(offset - from, length));
}

// Hands [*pos, stop) of `window` (the blob's bytes from `from`) to the
// sink in pieces of at most piece_bytes, checking the chunks under each
// piece just before it goes, while they are in cache for the sink.
// Returns whether the sink wants more; *pos is where the hand-over ended.
Result<bool> HandOver(std::string_view window, uint64_t from, uint64_t stop,
                      uint64_t piece_bytes, std::string_view sums,
                      const std::string& path, core::Sha256Hasher* whole,
                      const std::function<bool(std::string_view)>& sink,
                      uint64_t* pos) {
  uint64_t checked_to = from;  // [from, checked_to) are checked.
  while (*pos < stop) {
    const uint64_t n = std::min(piece_bytes, stop - *pos);
    if (!sums.empty() && checked_to < *pos + n) {
      const uint64_t to =
          std::min(from + window.size(), RoundUpToChunk(*pos + n));
      CTXKIT_RETURN_IF_ERROR(VerifyBlobChunks(
          sums, checked_to / kBlobChunkBytes,
          window.substr(checked_to - from, to - checked_to), path));
      checked_to = to;
    }
    const std::string_view piece = window.substr(*pos - from, n);
    if (whole != nullptr) whole->Update(piece);
    *pos += n;
    if (!sink(piece)) return false;
  }
  return true;
}

}  // namespace

Result<std::string> BlobFiles::Read(std::string_view hash, uint64_t size,
                                    std::string_view sums, uint64_t offset,
                                    uint64_t length) const {
  CTXKIT_ASSIGN_OR_RETURN(UniqueFd fd, OpenChecked(hash, size, false));
  return ReadOpen(fd.get(), PathFor(hash), hash, size, sums, offset, length);
}

Result<std::optional<std::string>> BlobFiles::ReadIfStored(
    std::string_view hash, uint64_t size, std::string_view sums,
    uint64_t offset, uint64_t length) const {
  CTXKIT_ASSIGN_OR_RETURN(UniqueFd fd, OpenChecked(hash, size, true));
  if (!fd.valid()) return std::optional<std::string>();
  CTXKIT_ASSIGN_OR_RETURN(
      std::string bytes,
      ReadOpen(fd.get(), PathFor(hash), hash, size, sums, offset, length));
  return std::optional<std::string>(std::move(bytes));
}

Result<std::string> BlobFiles::ReadOpen(int fd, const std::string& path,
                                        std::string_view hash, uint64_t size,
                                        std::string_view sums, uint64_t offset,
                                        uint64_t length) const {
  offset = std::min(offset, size);
  length = std::min(length, size - offset);
  if (length == 0) return std::string();
  if (!sums.empty()) {
    // Whole chunks around the range, each checked, then the range.
    const uint64_t from = offset - offset % kBlobChunkBytes;
    const uint64_t end = offset + length;
    const uint64_t to = std::min(size, RoundUpToChunk(end));
    return ReadCheckedRange(fd, sums, from, to, offset, length, path);
  }
  CTXKIT_ASSIGN_OR_RETURN(std::string data,
                          PreadExactly(fd, offset, length, path));
  if (offset == 0 && length == size && core::Sha256(data) != hash) {
    return BlobCorruption(path, "its content does not match its SHA-256 name");
  }
  return data;
}

Result<bool> BlobFiles::Scan(
    std::string_view hash, uint64_t size, std::string_view sums,
    uint64_t offset, uint64_t length, uint64_t window_bytes,
    const std::function<bool(std::string_view)>& sink) const {
  const std::string path = PathFor(hash);
  CTXKIT_ASSIGN_OR_RETURN(UniqueFd fd, OpenChecked(hash, size, true));
  if (!fd.valid()) return false;
  const uint64_t piece_bytes = std::max<uint64_t>(window_bytes, 1);
  // Windows of whole checksum chunks (which are whole pages), handed out in
  // pieces of at most piece_bytes. They start at 1 MiB (a scan that stops
  // early has mapped little) and double up to 16 MiB (fewer mmap calls on
  // big values).
  constexpr uint64_t kMaxWindow = 16ull << 20;
  static_assert(kMaxWindow % kBlobChunkBytes == 0);
  window_bytes = std::max<uint64_t>(piece_bytes, 1ull << 20);
  const uint64_t end =
      offset + std::min(length, size > offset ? size - offset : 0);
  // An unchecksummed blob read whole is checked against its name at the end.
  std::optional<core::Sha256Hasher> whole;
  if (sums.empty() && offset == 0 && end == size) whole.emplace();
  for (uint64_t pos = offset; pos < end;) {
    const uint64_t map_from = pos - pos % kBlobChunkBytes;
    window_bytes = RoundUpToChunk(window_bytes);
    // Only whole chunks can be checked: round the window's end up to one.
    const uint64_t want_to = std::min(end, map_from + window_bytes);
    const uint64_t map_to = std::min(size, RoundUpToChunk(want_to));
    window_bytes =
        std::max(window_bytes, std::min(2 * window_bytes, kMaxWindow));
    const size_t map_len = static_cast<size_t>(map_to - map_from);
    // MAP_POPULATE builds the page table in one call instead of a fault
    // per page; the pages are in the page cache for a warm scan.
    void* addr = ::mmap(nullptr, map_len, PROT_READ, MAP_PRIVATE | MAP_POPULATE,
                        fd.get(), static_cast<off_t>(map_from));
    if (addr == MAP_FAILED) return ErrnoStatus("mmap", path);
    const std::string_view window(static_cast<const char*>(addr), map_len);
    Result<bool> more =
        HandOver(window, map_from, std::min(end, map_to), piece_bytes, sums,
                 path, whole ? &*whole : nullptr, sink, &pos);
    ::munmap(addr, map_len);
    if (!more.ok()) return more.status();
    if (!*more) return true;
  }
  if (whole && whole->Finish() != hash) {
    return BlobCorruption(path, "its content does not match its SHA-256 name");
  }
  return true;
}

}  // namespace ctxkit::storage
