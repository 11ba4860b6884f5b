// Small value types shared by every layer, from the storage engine up:
// how hard a write is pushed to disk, and what state a version is in.
// They live here rather than in store.h so that the engine (storage/) and
// the core library never depend on the Store API built on top of them.
//
// Thread safety: plain enums and pure functions.

#ifndef CTXKIT_TYPES_H_
#define CTXKIT_TYPES_H_

#include <cstdint>
#include <string_view>

#include "ctxkit/status.h"

namespace ctxkit {

// How hard a durable write is pushed to the disk before Set returns.
enum class Durability : uint8_t {
  // fsync on every commit: acknowledged writes survive process crash and
  // power loss. The default.
  kFull = 0,
  // Survives a crash of the process (kill -9), not necessarily power loss.
  kProcess,
};

// "full" or "process" (what the faces accept for Options::durability);
// InvalidArgument naming both for anything else.
Result<Durability> ParseDurability(std::string_view name);

// The state of one version of an object. Stored as its number (append new
// states; never renumber).
enum class VersionState : uint8_t {
  kPresent = 0,
  kDeleted,  // A tombstone written by Remove.
  kMissing,  // The source is gone (used by file watchers).
};

// "present", "deleted" or "missing"; "unknown" for any other number.
std::string_view VersionStateName(VersionState state);

}  // namespace ctxkit

#endif  // CTXKIT_TYPES_H_
