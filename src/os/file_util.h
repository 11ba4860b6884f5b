// POSIX file helpers with explicit durability.

#ifndef CTXKIT_OS_FILE_UTIL_H_
#define CTXKIT_OS_FILE_UTIL_H_

#include <sys/stat.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "ctxkit/status.h"

namespace ctxkit::storage {

// mkdir -p with mode 0700 for directories it creates.
Status MakeDirs(const std::string& path);

// fsync of a directory, making renames and creations inside it durable.
Status SyncDir(const std::string& dir);

// Writes `data` to `final_path` atomically: a temp file in `tmp_dir`, fsync
// (when `sync`), rename over final_path, fsync of final_path's directory
// (when `sync`). Readers see the old file or the whole new one, never a
// part. REQUIRES: tmp_dir and final_path are on the same file system.
Status AtomicWriteFile(const std::string& tmp_dir,
                       const std::string& final_path, std::string_view data,
                       bool sync);

// Copies the file `src_fd` from its start to its end into a new temp file
// (TempFileName) in `tmp_dir`, in the kernel (copy_file_range, falling
// back to sendfile, then read and write): the bytes never pass through
// this process's memory. fsyncs the copy when `sync`. Returns its path,
// for CommitTempFile or unlink; nothing is left behind on failure.
Result<std::string> CopyToTempFile(int src_fd, const std::string& tmp_dir,
                                   bool sync);

// Renames temp file `tmp` over `final_path`, then fsyncs final_path's
// directory when `sync` (AtomicWriteFile's last step). On failure `tmp` is
// removed. REQUIRES: both on the same file system.
Status CommitTempFile(const std::string& tmp, const std::string& final_path,
                      bool sync);

// Everything `fd` holds from its current position to its end. A regular
// file is read straight into a string of its size (one allocation, one
// copy); whatever lies beyond (a file that grew, a pipe) is appended as it
// comes. `what` names the source in errors.
Result<std::string> ReadToEnd(int fd, std::string_view what);

// The name of a temp file this process writes before renaming it into
// place: ".tmp-<pid>-<random>" (hidden, so listings skip it; the pid tells
// whether its writer still runs). AtomicWriteFile and the notes' writes
// use it.
std::string TempFileName();

// True for a temp file (TempFileName's form, or an older build's
// "<random>.tmp") whose writer is gone: its pid no longer runs, or it is
// over an hour old (pids are reused; no write takes an hour).
bool IsStaleTempFile(std::string_view name, const struct stat& st);

// Removes the stale temp files directly inside `dir`, as LevelDB clears a
// crashed writer's leftovers on open. Best effort: errors are ignored.
void RemoveStaleTempFiles(const std::string& dir);

// Reads up to `length` bytes at `offset` with pread: fewer at end of file.
Result<std::string> ReadFileRange(const std::string& path, uint64_t offset,
                                  uint64_t length);

bool PathExists(const std::string& path);

// Renames the local file of an earlier build whose state was imported
// into the store's engine to `path`.imported, and fsyncs its directory:
// kept for the record, no longer read.
Status MarkImported(const std::string& path);

// False when this process may not write `path` (permissions, a read-only
// mount); true when it may, or when the question does not apply (it does
// not exist, a parent is not a directory: writing then fails on its own).
bool MayWrite(const std::string& path);

}  // namespace ctxkit::storage

#endif  // CTXKIT_OS_FILE_UTIL_H_
