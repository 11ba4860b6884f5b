// Reading one watched file: its bytes, hash and store type, or why it is
// not indexed.

#ifndef CTXKIT_WATCH_FILE_SNAPSHOT_H_
#define CTXKIT_WATCH_FILE_SNAPSHOT_H_

#include <cstdint>
#include <string>

#include "ctxkit/ref.h"
#include "ctxkit/status.h"

namespace ctxkit::watch {

// How far into a file the binary check looks (as git and grep do).
inline constexpr size_t kBinaryProbeBytes = 8000;

struct FileSnapshot {
  enum class Outcome : uint8_t {
    kRead = 0,  // content, hash_hex and type are set.
    kGone,      // The path does not exist (or a parent is not a directory).
    kSkipped,   // Exists but is not indexed; skip_reason says why.
  };
  Outcome outcome = Outcome::kGone;
  std::string content;
  std::string hash_hex;  // Lower-case hex SHA-256, as VersionMeta has it.
  ValueType type = ValueType::kText;
  std::string skip_reason;
};

// Reads `path` without following a symlink at its last component (a
// symlink is kSkipped). Skipped: not a regular file, larger than
// `max_bytes`, binary (a NUL in the first kBinaryProbeBytes), unreadable.
// The type is json for a ".json" name whose content parses, text otherwise.
// Errors only for failures that are not about this one file (none today:
// every per-file failure is a skip reason), so callers may treat !ok() as
// fatal.
Result<FileSnapshot> ReadFileSnapshot(const std::string& path,
                                      uint64_t max_bytes);

}  // namespace ctxkit::watch

#endif  // CTXKIT_WATCH_FILE_SNAPSHOT_H_
