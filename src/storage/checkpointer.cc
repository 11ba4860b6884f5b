#include "storage/checkpointer.h"

#include <sqlite3.h>

#include <utility>

#include "core/status_macros.h"

namespace ctxkit::storage {

Checkpointer::Checkpointer(SqliteDb* db, const CheckpointerOptions& options)
    : db_(db), options_(options) {}

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
  if (pages >= c->options_.inline_pages) {
    // Errors are not the commit's: it has happened. The next commit (or
    // the thread) tries again.
    sqlite3_wal_checkpoint_v2(db, name, SQLITE_CHECKPOINT_PASSIVE, nullptr,
                              nullptr);
    ++c->inline_;
  } else if (pages >= c->options_.wake_pages) {
    c->Wake();
  }
  return SQLITE_OK;
}

void Checkpointer::Run() {
  std::unique_ptr<SqliteDb> own;
  while (true) {
    {
      core::MutexLock lock(&mu_);
      while (!wanted_ && !stopping_) wake_.Wait(&mu_);
      if (stopping_) return;
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
// been copied back; commits made while a checkpoint runs leave a tail.
// So the thread goes again while a tail is left (each pass copies only what
// was committed during the last one) and stops once it caught up, or
// after a bounded number of passes when writers never pause.
void Checkpointer::CheckpointWal(SqliteDb* own) {
  for (int pass = 0; pass < 8; ++pass) {
    int log = 0;
    int copied = 0;
    if (sqlite3_wal_checkpoint_v2(own->raw(), nullptr,
                                  SQLITE_CHECKPOINT_PASSIVE, &log,
                                  &copied) != SQLITE_OK) {
      return;
    }
    ++background_;
    if (copied >= log) return;
    core::MutexLock lock(&mu_);
    if (stopping_) return;
  }
}

}  // namespace ctxkit::storage
