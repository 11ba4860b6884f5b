#include "os/sqlite_db.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <random>
#include <thread>

#include "os/fault_injection.h"
#include "os/read_only_error.h"

namespace ctxkit::storage {

namespace {
// The Status class of SQLite result code `rc`.
Status StatusFromSqlite(int rc, std::string msg) {
  switch (rc) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return Status::Unavailable(msg + " (store busy)");
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
      return Status::Corruption(msg);
    case SQLITE_CONSTRAINT:
      return Status::AlreadyExists(msg);
    case SQLITE_READONLY:
      return Status::PermissionDenied(msg);
    default:
      return Status::IoError(msg);
  }
}

// `path` with the characters a URI gives meaning to percent-encoded.
std::string UriPath(std::string_view path) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (char c : path) {
    if (c == '%' || c == '?' || c == '#') {
      out += '%';
      out += kHex[static_cast<unsigned char>(c) >> 4];
      out += kHex[static_cast<unsigned char>(c) & 0xf];
    } else {
      out += c;
    }
  }
  return out;
}

bool NonEmptyFile(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && st.st_size > 0;
}

}  // namespace

Query& Query::Bind(int index, int64_t value) {
  int rc = sqlite3_bind_int64(stmt_, index, value);
  if (bind_rc_ == SQLITE_OK) bind_rc_ = rc;
  return *this;
}

Query& Query::BindText(int index, std::string_view value) {
  int rc = sqlite3_bind_text64(stmt_, index, value.data(), value.size(),
                               SQLITE_STATIC, SQLITE_UTF8);
  if (bind_rc_ == SQLITE_OK) bind_rc_ = rc;
  return *this;
}

Query& Query::BindBlob(int index, std::string_view value) {
  // A zero-length blob must still be a blob, not NULL: give SQLite a valid
  // pointer.
  static const char kEmpty = 0;
  int rc =
      sqlite3_bind_blob64(stmt_, index, value.empty() ? &kEmpty : value.data(),
                          value.size(), SQLITE_STATIC);
  if (bind_rc_ == SQLITE_OK) bind_rc_ = rc;
  return *this;
}

Query& Query::BindNull(int index) {
  int rc = sqlite3_bind_null(stmt_, index);
  if (bind_rc_ == SQLITE_OK) bind_rc_ = rc;
  return *this;
}

Result<bool> Query::Step() {
  if (bind_rc_ != SQLITE_OK) {
    return Status::Internal(std::string("sqlite bind: ") +
                            sqlite3_errstr(bind_rc_));
  }
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return StatusFromSqlite(rc, std::string("sqlite: ") + sqlite3_errmsg(db_));
}

Status Query::Run() {
  while (true) {
    Result<bool> row = Step();
    if (!row.ok()) return row.status();
    if (!*row) return Status::Ok();
  }
}

std::string Query::Text(int col) const {
  const auto* p = sqlite3_column_text(stmt_, col);
  int n = sqlite3_column_bytes(stmt_, col);
  return p ? std::string(reinterpret_cast<const char*>(p), n) : std::string();
}

std::string Query::Blob(int col) const {
  const void* p = sqlite3_column_blob(stmt_, col);
  int n = sqlite3_column_bytes(stmt_, col);
  return p ? std::string(static_cast<const char*>(p), n) : std::string();
}

Result<std::unique_ptr<SqliteDb>> SqliteDb::Open(const std::string& path,
                                                 int busy_timeout_ms,
                                                 Mode mode) {
  const bool read_only = mode == Mode::kReadOnly;
  // SQLite creates the database (and later its -wal and -shm files, which
  // copy the database's permissions) with the umask's mode; a store holds
  // an agent's private context, so create it owner-only first. An
  // in-memory database (":memory:", used for scratch FTS tables) has no
  // file, and must not leave one named ":memory:" in the working directory.
  //
  // Only a file that is not there is created (O_EXCL): closing any
  // descriptor of a database file drops every POSIX lock this process holds
  // on it, so opening and closing an existing one while another connection
  // of this process has it open (the checkpointer's) would drop that
  // connection's shared lock. Another process could then take the
  // exclusive lock, believe itself the last connection, checkpoint and
  // delete the WAL, and this process's next commits would go to the
  // deleted file.
  if (path != ":memory:" && !read_only) {
    int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd >= 0) {
      ::close(fd);
    } else if (errno != EEXIST) {
      return Status::IoError("create database " + path + ": " +
                             std::strerror(errno));
    }
  }
  int flags = SQLITE_OPEN_NOMUTEX;
  std::string name = path;
  bool immutable = false;
  if (!read_only) {
    flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  } else {
    flags |= SQLITE_OPEN_READONLY | SQLITE_OPEN_URI;
    // SQLite reads a WAL database only through its -shm index, which it
    // must create when missing: impossible in a directory this process
    // may not write. With no -wal file no writer has the database open
    // and everything is in the main file, which is then read as immutable
    // (no locks, no -shm). Owners reopen when a writer shows up
    // (ChangeSequence), so they never read under a live writer this way.
    name = "file:" + UriPath(path);
    immutable = !NonEmptyFile(path + "-wal");
    if (immutable) name += "?immutable=1";
  }
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(
      name.c_str(), &db, flags,
      fault::SqliteVfsName());  // nullptr (the default VFS) but in tests.
  if (rc != SQLITE_OK) {
    std::string msg = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close(db);
    return Status::IoError("open database " + path + ": " + msg);
  }
  sqlite3_extended_result_codes(db, 0);
  sqlite3_busy_timeout(db, busy_timeout_ms);
  return std::unique_ptr<SqliteDb>(
      new SqliteDb(db, busy_timeout_ms, read_only, immutable));
}

Status SqliteDb::EnableWal() {
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::milliseconds(busy_timeout_ms_);
  std::minstd_rand jitter(static_cast<unsigned>(::getpid()));
  int pause_ms = 1;
  while (true) {
    Status s = Status::Ok();
    Result<std::unique_ptr<Query>> q = Prepare("PRAGMA journal_mode=WAL");
    if (!q.ok()) {
      s = q.status();
    } else {
      Result<bool> row = (*q)->Step();
      if (!row.ok()) {
        s = row.status();
      } else if (!*row || (*q)->Text(0) != "wal") {
        // SQLite answers with the old mode when it could not switch.
        s = Status::Unavailable("could not switch the database to WAL mode");
      }
      q->reset();
    }
    if (s.ok() || s.code() != StatusCode::kUnavailable ||
        std::chrono::steady_clock::now() >= deadline) {
      return s;
    }
    std::this_thread::sleep_for(
        std::chrono::milliseconds(pause_ms + jitter() % pause_ms));
    pause_ms = std::min(pause_ms * 2, 50);
  }
}

SqliteDb::~SqliteDb() {
  cache_.clear();
  dynamic_cache_.clear();
  sqlite3_close(db_);
}

Status SqliteDb::Error(int rc, std::string_view what) const {
  return StatusFromSqlite(rc, std::string(what) + ": " + sqlite3_errmsg(db_) +
                                  " (" + sqlite3_errstr(rc) + ")");
}

Status SqliteDb::Exec(std::string_view sql) {
  std::string copy(sql);
  int rc = sqlite3_exec(db_, copy.c_str(), nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) return Error(rc, "sqlite exec");
  return Status::Ok();
}

Result<sqlite3_stmt*> SqliteDb::Compile(const char* sql) {
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v3(db_, sql, -1, SQLITE_PREPARE_PERSISTENT, &stmt,
                              nullptr);
  if (rc != SQLITE_OK) return Error(rc, "sqlite prepare");
  return stmt;
}

Result<std::unique_ptr<Query>> SqliteDb::Prepare(const char* sql) {
  auto it = cache_.find(sql);
  if (it == cache_.end()) {
    Result<sqlite3_stmt*> stmt = Compile(sql);
    if (!stmt.ok()) return stmt.status();
    it = cache_.emplace(sql, std::make_unique<Statement>(*stmt)).first;
  }
  return std::make_unique<Query>(db_, it->second->get());
}

Result<std::unique_ptr<Query>> SqliteDb::PrepareDynamic(
    const std::string& sql) {
  auto it = dynamic_cache_.find(sql);
  if (it == dynamic_cache_.end()) {
    Result<sqlite3_stmt*> stmt = Compile(sql.c_str());
    if (!stmt.ok()) return stmt.status();
    it = dynamic_cache_.emplace(sql, std::make_unique<Statement>(*stmt)).first;
  }
  return std::make_unique<Query>(db_, it->second->get());
}

WriteTransaction::~WriteTransaction() {
  if (!open_) return;
  auto q = db_->Prepare("ROLLBACK");
  if (q.ok()) (void)(*q)->Run();
}

// Transaction control runs on cached prepared statements: sqlite3_exec
// would parse the SQL again on every write.
Status WriteTransaction::Begin() {
  if (db_->read_only()) return ReadOnlyError("write");
  auto q = db_->Prepare("BEGIN IMMEDIATE");
  if (!q.ok()) return q.status();
  Status s = (*q)->Run();
  if (s.ok()) open_ = true;
  return s;
}

Status WriteTransaction::Commit() {
  auto q = db_->Prepare("COMMIT");
  if (!q.ok()) return q.status();
  Status s = (*q)->Run();
  if (s.ok()) open_ = false;
  return s;
}

std::string PrefixUpperBound(std::string prefix) {
  while (!prefix.empty()) {
    auto last = static_cast<unsigned char>(prefix.back());
    if (last < 0xff) {
      prefix.back() = static_cast<char>(last + 1);
      return prefix;
    }
    prefix.pop_back();
  }
  return prefix;
}

}  // namespace ctxkit::storage
