#include "storage/change_sequence.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "os/posix_io.h"

namespace ctxkit::storage {
namespace {
constexpr size_t kFileSize = 4096;

void StoreMax(std::atomic<uint64_t>& target, uint64_t value) {
  uint64_t seen = target.load(std::memory_order_acquire);
  while (seen < value && !target.compare_exchange_weak(
                             seen, value, std::memory_order_acq_rel)) {
  }
}
}  // namespace

ChangeSequence::~ChangeSequence() {
  if (shared_ != nullptr) ::munmap(shared_, kFileSize);
}

Status ChangeSequence::Open(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return ErrnoStatus("open", path);
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    Status s = ErrnoStatus("stat", path);
    ::close(fd);
    return s;
  }
  // Extending never truncates: concurrent openers agree on the size, and
  // the new bytes read as zero (both counters start equal).
  if (static_cast<size_t>(st.st_size) < kFileSize &&
      ::ftruncate(fd, kFileSize) != 0) {
    Status s = ErrnoStatus("resize", path);
    ::close(fd);
    return s;
  }
  void* mem =
      ::mmap(nullptr, kFileSize, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  ::close(fd);
  if (mem == MAP_FAILED) return ErrnoStatus("mmap", path);
  shared_ = static_cast<Shared*>(mem);
  return Status::Ok();
}

Status ChangeSequence::OpenReadOnly(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return Status::Ok();
    return ErrnoStatus("open", path);
  }
  struct stat st;
  void* mem = MAP_FAILED;
  if (::fstat(fd, &st) == 0 && static_cast<size_t>(st.st_size) >= kFileSize) {
    mem = ::mmap(nullptr, kFileSize, PROT_READ, MAP_SHARED, fd, 0);
  }
  ::close(fd);
  if (mem != MAP_FAILED) shared_ = static_cast<Shared*>(mem);
  return Status::Ok();
}

std::optional<uint64_t> ChangeSequence::Stable() const {
  if (shared_ == nullptr) return std::nullopt;
  uint64_t ended = shared_->ended.load(std::memory_order_acquire);
  uint64_t begun = shared_->begun.load(std::memory_order_acquire);
  if (begun != ended) return std::nullopt;
  return begun;
}

uint64_t ChangeSequence::BeginCommit() {
  StoreMax(shared_->ended, shared_->begun.load(std::memory_order_acquire));
  return shared_->begun.fetch_add(1, std::memory_order_acq_rel) + 1;
}

void ChangeSequence::EndCommit(uint64_t begun) {
  StoreMax(shared_->ended, begun);
}

}  // namespace ctxkit::storage
