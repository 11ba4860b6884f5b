// Content-addressed blob files: large contents live at
// <home>/blobs/<hh>/<sha256 hex>, written atomically, never modified.

#ifndef CTXKIT_STORAGE_BLOB_FILES_H_
#define CTXKIT_STORAGE_BLOB_FILES_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "ctxkit/status.h"
#include "os/posix_io.h"

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

  // Copies the regular file `src_fd` (from its start to its end) into a
  // staged file under <root>/tmp, in the kernel, synced when sync: for
  // Adopt once the caller knows its content's hash. Returns its path. A
  // crash leaves a temp file Init clears.
  Result<std::string> Stage(int src_fd);
  // Makes `staged`, a file from Stage holding the `size` bytes whose
  // SHA-256 is `hash`, the blob for `hash` by rename, or removes it when
  // that blob is there already. `staged` is gone when this returns.
  Status Adopt(std::string_view hash, uint64_t size, const std::string& staged);

  // Reads [offset, offset + length) (clamped to the content) of the blob
  // for `hash`, whose content is `size` bytes, and checks what it read:
  // the file's size always; with `sums` (BlobChecksums of the content),
  // every chunk the range touches; without, the SHA-256 when the whole
  // content is read. Corruption when the file is missing or a check fails.
  Result<std::string> Read(std::string_view hash, uint64_t size,
                           std::string_view sums, uint64_t offset,
                           uint64_t length) const;
  // As Read, but nullopt when no blob file exists for `hash` (the content
  // is stored elsewhere, e.g. inline), as Scan.
  Result<std::optional<std::string>> ReadIfStored(std::string_view hash,
                                                  uint64_t size,
                                                  std::string_view sums,
                                                  uint64_t offset,
                                                  uint64_t length) const;

  // Garbage collection moves a blob no version references any longer to
  // <root>/trash/ inside its database transaction, and deletes it only once
  // the transaction has committed, so a crash never leaves a version whose
  // blob is gone. Trash returns the file's size (0 when it was absent).
  Result<uint64_t> Trash(std::string_view hash);
  // The size of the blob file for `hash` (0 when it is absent), as Trash
  // would return it.
  Result<uint64_t> SizeOf(std::string_view hash) const;
  // Moves a trashed blob back (the transaction failed).
  Status Untrash(std::string_view hash);
  // Deletes a trashed blob (the transaction committed).
  void DropTrashed(std::string_view hash);
  // After a crash: moves back every trashed blob `referenced` says is still
  // referenced, and deletes the others.
  Status RecoverTrash(
      const std::function<Result<bool>(std::string_view hash)>& referenced);

  // True when at least one blob file is stored (temp and trashed files do
  // not count).
  Result<bool> HasAny() const;

  std::string PathFor(std::string_view hash) const;
  std::string TrashPathFor(std::string_view hash) const;

  // For scans: maps [offset, offset + length) of the blob for `hash`
  // read-only, one window at a time (1 MiB doubling to 16 MiB, or
  // window_bytes when larger; each unmapped before the next, so resident
  // memory stays bounded), and calls
  // `sink` with the bytes in order, in pieces of at most `window_bytes`;
  // they are valid only during the call. Nothing is copied. A sink returning
  // false stops the scan. Returns false, before any sink call, when no blob
  // file exists for `hash` (the content is stored elsewhere, e.g. inline).
  // Checks as Read does, the chunks under each piece just before the
  // piece reaches the sink (a damaged chunk is reported before any of its
  // bytes are handed out); an unchecksummed blob scanned whole is hashed on
  // the way and reported at the end. Blob files are immutable (written by
  // atomic rename, never truncated), which is what makes mapping them safe.
  Result<bool> Scan(std::string_view hash, uint64_t size, std::string_view sums,
                    uint64_t offset, uint64_t length, uint64_t window_bytes,
                    const std::function<bool(std::string_view)>& sink) const;

 private:
  // Sets `*path` to the blob file for `hash` and returns whether it still
  // has to be written (no complete file of `size` bytes is there), making
  // its directory if needed.
  Result<bool> Wanted(std::string_view hash, uint64_t size, std::string* path);

  // Opens the blob for reading and checks its size. `missing_ok`: a
  // missing file gives an invalid fd rather than Corruption.
  Result<UniqueFd> OpenChecked(std::string_view hash, uint64_t size,
                               bool missing_ok) const;
  // Read's checked range of the open blob `fd`.
  Result<std::string> ReadOpen(int fd, const std::string& path,
                               std::string_view hash, uint64_t size,
                               std::string_view sums, uint64_t offset,
                               uint64_t length) const;

  std::string root_;
  bool sync_;
};

}  // namespace ctxkit::storage

#endif  // CTXKIT_STORAGE_BLOB_FILES_H_
