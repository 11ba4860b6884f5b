// Content-addressed blob files: large contents live at
// <home>/blobs/<hh>/<sha256 hex>, written atomically, never modified.

#ifndef CTXKIT_STORAGE_BLOB_FILES_H_
#define CTXKIT_STORAGE_BLOB_FILES_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "ctxkit/status.h"

namespace ctxkit::storage {

class BlobFiles {
 public:
  // `root` is <home>/blobs. `sync`: fsync files and directories.
  BlobFiles(std::string root, bool sync)
      : root_(std::move(root)), sync_(sync) {}

  // Creates the directories and clears temp files left by crashed writers.
  Status Init();

  // Writes the blob for `hash` (32 raw bytes) unless it is already there.
  Status Write(std::string_view hash, std::string_view content);

  Result<std::string> Read(std::string_view hash, uint64_t offset,
                           uint64_t length) const;

  std::string PathFor(std::string_view hash) const;

 private:
  std::string root_;
  bool sync_;
};

}  // namespace ctxkit::storage

#endif  // CTXKIT_STORAGE_BLOB_FILES_H_
