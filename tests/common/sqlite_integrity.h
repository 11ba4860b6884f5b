// PRAGMA integrity_check on a store's database, for tests that check the
// store survived a crash or an injected fault.

#ifndef CTXKIT_TESTS_COMMON_SQLITE_INTEGRITY_H_
#define CTXKIT_TESTS_COMMON_SQLITE_INTEGRITY_H_

#include <sqlite3.h>

#include <string>

namespace ctxkit::testing {

// The first row of PRAGMA integrity_check on the database at `path` ("ok"
// when it is sound), or "cannot open". Opened for writing, as the next
// writer opens it: a writer killed while making the database (its first
// transaction, which switches it to WAL, runs with a rollback journal)
// leaves a hot journal that only a writer may roll back; a read-only
// connection cannot open it until then.
inline std::string SqliteIntegrityCheck(const std::string& path) {
  sqlite3* db = nullptr;
  std::string out = "cannot open";
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) ==
      SQLITE_OK) {
    sqlite3_stmt* q = nullptr;
    if (sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &q, nullptr) ==
            SQLITE_OK &&
        sqlite3_step(q) == SQLITE_ROW) {
      out = reinterpret_cast<const char*>(sqlite3_column_text(q, 0));
    }
    sqlite3_finalize(q);
  }
  sqlite3_close(db);
  return out;
}

}  // namespace ctxkit::testing

#endif  // CTXKIT_TESTS_COMMON_SQLITE_INTEGRITY_H_
