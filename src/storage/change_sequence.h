// A cross-process change sequence: two 64-bit counters in a small shared
// memory-mapped file (<home>/ctxkit.seq) that every committing writer bumps,
// so any process can tell in a few nanoseconds whether its caches of
// database records may be stale, without opening a read transaction
// (SQLite's PRAGMA data_version costs microseconds).
//
// Protocol (all writers hold SQLite's write lock around BeginCommit):
//   BeginCommit:  ended = max(ended, begun)   -- repair a writer that died
//                 begun += 1                     between commit and EndCommit
//   COMMIT
//   EndCommit:    ended = max(ended, value from BeginCommit)
// Readers trust their caches only while begun == ended == the value they saw
// when the caches were last validated. A writer killed between COMMIT and
// EndCommit leaves begun > ended: readers bypass their caches (slower, still
// correct) until the next writer repairs the counters.
//
// Thread-safe.

#ifndef CTXKIT_STORAGE_CHANGE_SEQUENCE_H_
#define CTXKIT_STORAGE_CHANGE_SEQUENCE_H_

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>

#include "ctxkit/status.h"

namespace ctxkit::storage {

class ChangeSequence {
 public:
  ChangeSequence() = default;
  ~ChangeSequence();
  ChangeSequence(const ChangeSequence&) = delete;
  ChangeSequence& operator=(const ChangeSequence&) = delete;

  // Creates the file when missing.
  Status Open(const std::string& path);
  // Maps an existing file for reading, for a read-only store. When the file
  // is missing (or short) Stable() is always nullopt: caches are bypassed.
  Status OpenReadOnly(const std::string& path);

  // The stable sequence value, or nullopt while a commit is in flight (or a
  // writer died mid-commit).
  std::optional<uint64_t> Stable() const;

  // Returns the new `begun` value. REQUIRES: the database write lock, and
  // a sequence opened with Open.
  uint64_t BeginCommit();
  void EndCommit(uint64_t begun);

 private:
  struct Shared {
    std::atomic<uint64_t> begun;
    std::atomic<uint64_t> ended;
  };
  static_assert(std::atomic<uint64_t>::is_always_lock_free,
                "cross-process counters need lock-free atomics");

  Shared* shared_ = nullptr;
};

}  // namespace ctxkit::storage

#endif  // CTXKIT_STORAGE_CHANGE_SEQUENCE_H_
