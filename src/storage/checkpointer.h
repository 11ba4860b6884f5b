// Keeps WAL checkpoints out of writers' commits.
//
// By default SQLite checkpoints inside the commit that takes the WAL past
// 1,000 pages: that one caller's write pays for copying every page back to
// the database file (and, durably, an fsync of it), which sets the p99 of
// durable writes. A Checkpointer turns the connection's autocheckpoint off
// and installs a WAL hook that, once the WAL holds `wake_pages`, wakes a
// background thread, started by that first wake-up (a process that only
// reads, such as one `ctxkit get`, never starts it), and again each time the
// WAL grew by another `wake_pages` (not on every commit past the bound: a
// writer that never pauses would otherwise have the thread checkpoint, and
// sync the database file, once per commit). The thread runs PASSIVE
// checkpoints on a connection of its own (opened on first use), which never
// wait for readers or writers, again while writers left a tail, and once
// more `linger_ms` after a run, for what was committed since. A WAL only
// starts over from its beginning when a writer begins while every frame is
// copied back, which writers that never pause never do; so when the WAL
// grew by another `wake_pages` after the thread's run without starting
// over, the committing writer copies the few frames the thread left
// itself, PASSIVE, and its next commit starts the WAL over. Should the WAL
// still reach `inline_pages` (the thread cannot keep up, or readers pin
// old frames), the committing writer
// checkpoints it whole, PASSIVE, as SQLite would have, so the WAL stays
// bounded.
//
// A process that ends before its thread ran loses nothing: the last
// connection to close checkpoints (SQLite), and the next writer's hook
// sees the WAL's size.
//
// Thread-safe. The Checkpointer must be destroyed before the connection it
// watches is closed. As with any SQLite connection, a forked child must not
// use or destroy it (ctxkit starts processes with posix_spawn).

#ifndef CTXKIT_STORAGE_CHECKPOINTER_H_
#define CTXKIT_STORAGE_CHECKPOINTER_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>

#include "core/mutex.h"
#include "core/thread_annotations.h"
#include "ctxkit/status.h"
#include "os/sqlite_db.h"

namespace ctxkit::storage {

struct CheckpointerOptions {
  std::string path;  // The database file, for the thread's connection.
  int busy_timeout_ms = 30000;
  int wake_pages = 1000;     // SQLite's default autocheckpoint threshold.
  int inline_pages = 16000;  // About 64 MiB of 4 KiB pages.
  // How long the thread waits after a run before a last pass for what was
  // committed since (see Run).
  int linger_ms = 50;
};

class Checkpointer {
 public:
  // Takes over checkpoints of `db` (a writable WAL connection that must
  // outlive the Checkpointer).
  static Result<std::unique_ptr<Checkpointer>> Start(
      SqliteDb* db, const CheckpointerOptions& options);
  // Removes the hook, then stops the thread if it started (after the
  // checkpoint it may be running).
  ~Checkpointer();
  Checkpointer(const Checkpointer&) = delete;
  Checkpointer& operator=(const Checkpointer&) = delete;

  // Checkpoints run so far by the thread, and by committing writers (of a
  // WAL past `inline_pages`, or of the tail the thread left).
  uint64_t background_checkpoints() const { return background_.load(); }
  uint64_t inline_checkpoints() const { return inline_.load(); }
  // Whether the thread has been started (by the first wake-up).
  bool thread_started() const EXCLUDES(mu_);

 private:
  Checkpointer(SqliteDb* db, const CheckpointerOptions& options);
  static int OnCommit(void* self, sqlite3* db, const char* name, int pages);
  // Asks the thread for a checkpoint, starting it the first time.
  void Wake() EXCLUDES(mu_);
  void Run();
  void CheckpointWal(SqliteDb* own);

  SqliteDb* const db_;
  const CheckpointerOptions options_;
  std::atomic<uint64_t> background_{0};
  std::atomic<uint64_t> inline_{0};
  // The WAL size (pages) at which the next commit wakes the thread. Only
  // committing writers touch it, one at a time (SQLite's write lock).
  std::atomic<int> next_wake_pages_;
  // Set by the thread when a run ended: frames committed since are left
  // to a writer should the WAL grow on without starting over.
  std::atomic<bool> tail_left_{false};
  mutable core::Mutex mu_;
  core::CondVar wake_;
  bool wanted_ GUARDED_BY(mu_) = false;
  bool stopping_ GUARDED_BY(mu_) = false;
  std::thread thread_ GUARDED_BY(mu_);
};

}  // namespace ctxkit::storage

#endif  // CTXKIT_STORAGE_CHECKPOINTER_H_
