#include "storage/checkpointer.h"

#include <sqlite3.h>

#include <chrono>
#include <utility>

#include "core/status_macros.h"

namespace ctxkit::storage {

Checkpointer::Checkpointer(SqliteDb* db, const CheckpointerOptions& options)
    : db_(db), options_(options), next_wake_pages_(options.wake_pages) {}

Result<std::unique_ptr<Checkpointer>> Checkpointer::Start(
    SqliteDb* db, const CheckpointerOptions& options) {
  if (options.wake_pages < 1 || options.inline_pages < options.wake_pages) {
    return Status::InvalidArgument(
        "checkpointer: need 1 <= wake_pages <= inline_pages");
  }
  std::unique_ptr<Checkpointer> c(new Checkpointer(db, options));
  // Replaces SQLite's own autocheckpoint (it is a WAL hook too).
  sqlite3_wal_hook(db->raw(), &Checkpointer::OnCommit, c.get());
  return c;
}

Checkpointer::~Checkpointer() {
  sqlite3_wal_hook(db_->raw(), nullptr, nullptr);
  std::thread thread;
  {
    core::MutexLock lock(&mu_);
    stopping_ = true;
    thread = std::move(thread_);
  }
  wake_.Signal();
  if (thread.joinable()) thread.join();
}

bool Checkpointer::thread_started() const {
  core::MutexLock lock(&mu_);
  return thread_.joinable();
}

void Checkpointer::Wake() {
  {
    core::MutexLock lock(&mu_);
    if (stopping_) return;
    wanted_ = true;
    if (!thread_.joinable()) thread_ = std::thread([this] { Run(); });
  }
  wake_.Signal();
}

// Called by SQLite in the committing thread, after the commit, with the
// number of pages now in the WAL.
int Checkpointer::OnCommit(void* self, sqlite3* db, const char* name,
                           int pages) {
  auto* c = static_cast<Checkpointer*>(self);
  const int wake = c->options_.wake_pages;
  int next = c->next_wake_pages_.load(std::memory_order_relaxed);
  if (pages < next - wake) {
    // The WAL started over since the last wake-up: what the thread left
    // is gone with it.
    next = wake;
    c->tail_left_.store(false, std::memory_order_relaxed);
  }
  bool checkpoint_here = pages >= c->options_.inline_pages;
  if (!checkpoint_here && pages >= next) {
    // Grown by another `wake_pages` without starting over although the
    // thread ran: writers never paused. This writer copies the little
    // the thread left, and its next commit starts the WAL over.
    checkpoint_here =
        next > wake && c->tail_left_.exchange(false, std::memory_order_acq_rel);
    if (!checkpoint_here) c->Wake();
    next = pages + wake;
  }
  if (checkpoint_here) {
    // Errors are not the commit's: it has happened. The next commit (or
    // the thread) tries again.
    sqlite3_wal_checkpoint_v2(db, name, SQLITE_CHECKPOINT_PASSIVE, nullptr,
                              nullptr);
    ++c->inline_;
    if (pages >= c->options_.inline_pages) next = wake;
  }
  c->next_wake_pages_.store(next, std::memory_order_relaxed);
  return SQLITE_OK;
}

void Checkpointer::Run() {
  std::unique_ptr<SqliteDb> own;
  // After a run the thread waits `linger_ms` for another wake-up, then
  // makes one more pass: it copies what writers committed after the run
  // (no wake-up comes for that until the WAL grows by another `wake_pages`)
  // so that after a pause the next writer starts the WAL over. A pass with
  // nothing to copy writes and syncs nothing.
  bool linger = false;
  while (true) {
    {
      core::MutexLock lock(&mu_);
      const auto deadline = std::chrono::steady_clock::now() +
                            std::chrono::milliseconds(options_.linger_ms);
      while (!wanted_ && !stopping_) {
        if (!linger) {
          wake_.Wait(&mu_);
        } else if (!wake_.WaitUntil(&mu_, deadline)) {
          break;
        }
      }
      if (stopping_) return;
      linger = wanted_;
      wanted_ = false;
    }
    if (own == nullptr) {
      Result<std::unique_ptr<SqliteDb>> opened =
          SqliteDb::Open(options_.path, options_.busy_timeout_ms);
      // A connection learns the database is in WAL mode from its first
      // read; until then a checkpoint does nothing.
      if (!opened.ok() || !(*opened)->Exec("PRAGMA schema_version").ok()) {
        continue;  // The next wake tries again.
      }
      own = std::move(*opened);
    }
    CheckpointWal(own.get());
  }
}

// Writers restart the WAL from its start only once every frame in it has
// been copied back, and a writer that began before the last frame was
// copied does not: with writers committing back to back, no writer ever
// begins at such a moment, however fast the thread copies. So the thread
// copies what it can (again while a pass leaves a tail, at most a few
// passes) and leaves the frames committed since to the next committing
// writer (OnCommit), whose own next commit then starts the WAL over.
void Checkpointer::CheckpointWal(SqliteDb* own) {
  for (int pass = 0; pass < 4; ++pass) {
    int log = 0;
    int copied = 0;
    if (sqlite3_wal_checkpoint_v2(own->raw(), nullptr,
                                  SQLITE_CHECKPOINT_PASSIVE, &log,
                                  &copied) != SQLITE_OK) {
      return;
    }
    ++background_;
    if (copied >= log) break;
    core::MutexLock lock(&mu_);
    if (stopping_) return;
  }
  tail_left_.store(true, std::memory_order_release);
}

}  // namespace ctxkit::storage
