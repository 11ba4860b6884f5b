// A thin RAII layer over the SQLite C API: one connection and its prepared
// statements. Not thread-safe; the backend serializes access.

#ifndef CTXKIT_OS_SQLITE_DB_H_
#define CTXKIT_OS_SQLITE_DB_H_

#include <sqlite3.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "ctxkit/status.h"

namespace ctxkit::storage {

// A prepared statement, reset and cleared when a Binder goes away.
class Statement {
 public:
  explicit Statement(sqlite3_stmt* stmt) : stmt_(stmt) {}
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  sqlite3_stmt* get() const { return stmt_; }

 private:
  sqlite3_stmt* stmt_;
};

// Binds parameters of a cached statement, steps it, reads columns, and
// resets it on destruction so the cache can hand it out again.
class Query {
 public:
  Query(sqlite3* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}
  ~Query() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }
  Query(const Query&) = delete;
  Query& operator=(const Query&) = delete;

  // Parameters are 1-based as in SQLite. Text and blobs are copied only
  // when SQLite needs them after the call (SQLITE_STATIC: the caller keeps
  // the bytes alive until the Query ends).
  Query& Bind(int index, int64_t value);
  Query& BindText(int index, std::string_view value);
  Query& BindBlob(int index, std::string_view value);
  Query& BindNull(int index);

  // Steps once: true with a row, false when done, or the error.
  Result<bool> Step();
  // Steps to completion; the error if any.
  Status Run();

  int64_t Int(int col) const { return sqlite3_column_int64(stmt_, col); }
  bool IsNull(int col) const {
    return sqlite3_column_type(stmt_, col) == SQLITE_NULL;
  }
  std::string Text(int col) const;
  std::string Blob(int col) const;

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_;
  int bind_rc_ = SQLITE_OK;
};

class SqliteDb {
 public:
  enum class Mode {
    kReadWrite,  // Creates the file (owner-only) when missing.
    kReadOnly,   // The file must exist; nothing is ever written to it, and
                 // every write transaction fails with PermissionDenied.
                 // Without a -wal file (no writer has it open) it is read
                 // as immutable: see immutable().
  };
  static Result<std::unique_ptr<SqliteDb>> Open(const std::string& path,
                                                int busy_timeout_ms,
                                                Mode mode = Mode::kReadWrite);
  ~SqliteDb();
  SqliteDb(const SqliteDb&) = delete;
  SqliteDb& operator=(const SqliteDb&) = delete;

  // Runs one or more statements without results.
  Status Exec(std::string_view sql);
  // Puts the database in WAL mode. A new database starts in rollback mode,
  // where SQLite answers a lock upgrade that could deadlock with
  // SQLITE_BUSY at once, without waiting in the busy handler: several
  // processes opening a fresh file together hit that. So this retries,
  // with short randomized sleeps, for up to the busy timeout.
  Status EnableWal();
  // A query on a statement prepared once per distinct `sql` and cached.
  Result<std::unique_ptr<Query>> Prepare(const char* sql);
  // The same for SQL built at run time (cached by its text).
  Result<std::unique_ptr<Query>> PrepareDynamic(const std::string& sql);

  int64_t LastInsertRowId() const { return sqlite3_last_insert_rowid(db_); }
  sqlite3* raw() const { return db_; }
  bool read_only() const { return read_only_; }
  // Opened read-only as immutable: SQLite takes no locks and does not see
  // later changes, so the owner must open it again once a writer may have
  // started (the store's change sequence moved).
  bool immutable() const { return immutable_; }

  // An error Status for SQLite result code `rc`, with the connection's
  // message. SQLITE_BUSY maps to Unavailable; SQLITE_CORRUPT to Corruption.
  Status Error(int rc, std::string_view what) const;

 private:
  SqliteDb(sqlite3* db, int busy_timeout_ms, bool read_only, bool immutable)
      : db_(db),
        busy_timeout_ms_(busy_timeout_ms),
        read_only_(read_only),
        immutable_(immutable) {}

  sqlite3* db_;
  int busy_timeout_ms_;
  bool read_only_;
  bool immutable_;
  Result<sqlite3_stmt*> Compile(const char* sql);

  // Cached statements. The literal cache is keyed by the address of the SQL
  // text, which is stable for string literals and cheap to look up.
  std::map<const char*, std::unique_ptr<Statement>> cache_;
  std::map<std::string, std::unique_ptr<Statement>> dynamic_cache_;
};

// Begins an IMMEDIATE transaction (taking the write lock up front, so two
// writers never deadlock upgrading read locks) and rolls it back on
// destruction unless Commit() succeeded. On a read-only database Begin
// fails with PermissionDenied (ReadOnlyError) before anything is touched.
// The smallest string greater than every string starting with `prefix`,
// or "" when there is none (a prefix of 0xff bytes): `key >= prefix AND
// key < PrefixUpperBound(prefix)` selects a prefix through an index.
std::string PrefixUpperBound(std::string prefix);

class WriteTransaction {
 public:
  explicit WriteTransaction(SqliteDb* db) : db_(db) {}
  ~WriteTransaction();
  Status Begin();
  Status Commit();

 private:
  SqliteDb* db_;
  bool open_ = false;
};

}  // namespace ctxkit::storage

#endif  // CTXKIT_OS_SQLITE_DB_H_
