// The private spill area for session-only values: one unlinked file per
// Store instance. Because the file has no name, the kernel reclaims it when
// the process exits however it exits (kill -9 included), so spilled values
// can never be seen after a restart. Freed ranges are punched out so the
// disk space returns at once.

#ifndef CTXKIT_STORAGE_SPILL_FILE_H_
#define CTXKIT_STORAGE_SPILL_FILE_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "ctxkit/status.h"

namespace ctxkit::storage {

class SpillFile {
 public:
  SpillFile() = default;
  ~SpillFile();
  SpillFile(const SpillFile&) = delete;
  SpillFile& operator=(const SpillFile&) = delete;

  // Names the directory the unlinked file is created in (made when
  // missing) by the first Write: a process that spills nothing creates no
  // file.
  void Open(const std::string& dir) { dir_ = dir; }

  // Appends `data`; returns its offset.
  Result<uint64_t> Write(std::string_view data);
  Result<std::string> Read(uint64_t offset, uint64_t length) const;
  // Releases the disk space of a range written earlier.
  void Free(uint64_t offset, uint64_t length);

 private:
  Status Create();

  std::string dir_;
  int fd_ = -1;
  uint64_t end_ = 0;
};

}  // namespace ctxkit::storage

#endif  // CTXKIT_STORAGE_SPILL_FILE_H_
