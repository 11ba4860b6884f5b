#include "index/index_db.h"

#include <sqlite3.h>
#include <sys/stat.h>

#include <string>

#include "core/status_macros.h"
#include "os/filename.h"

namespace ctxkit::index {

namespace {

// chunk_text is contentless: the text lives in the store, which keeps
// every version, so index.db holds no copy of it. SQLite 3.40's FTS5 can
// delete a contentless row only when given its original text again;
// index_rows.cc reads it back from the version that was indexed. When that
// version was collected first, the row stays in FTS5 as an orphan, listed
// in `orphans` and filtered out of queries until the index is rebuilt.
constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS meta(name TEXT PRIMARY KEY, value TEXT NOT NULL);
-- Keyed by the store's object number (ObjectMeta::id is its base 36):
-- a first build appends rows in the feed's order instead of inserting
-- text keys all over the table.
CREATE TABLE IF NOT EXISTS objects(
  id INTEGER PRIMARY KEY,
  key TEXT NOT NULL,
  scope TEXT NOT NULL,
  type INTEGER NOT NULL,
  version INTEGER NOT NULL,
  size INTEGER NOT NULL,
  chunk_tokens INTEGER NOT NULL,
  indexed_ns INTEGER NOT NULL,
  tag TEXT NOT NULL,  -- the capability tag hits' refs carry (ObjectMeta)
  -- Its chunks: ids first_chunk .. first_chunk + chunk_count - 1 (a
  -- variable is always chunked whole in one transaction), so no index on
  -- chunks.obj is kept.
  first_chunk INTEGER NOT NULL,
  chunk_count INTEGER NOT NULL
);
-- Covers the call's filter (scope, key prefix, size limit) and its count.
CREATE INDEX IF NOT EXISTS objects_by_scope ON objects(scope, key, size);
-- Row counts kept by the writers (index_rows.cc): 'scope:<scope>' holds
-- the number of rows in that scope, so counting what a call covers needs
-- no count(*) scan; 'max_size' the largest size ever given an objects row
-- (whether a size limit filters anything; an index on size cost ~5% of a
-- build). Not by triggers: a statement that
-- fires one opens a statement savepoint, and FTS5 flushes its pending
-- terms at every savepoint (measured 3.3x slower index builds).
CREATE TABLE IF NOT EXISTS counts(
  name TEXT PRIMARY KEY,
  n INTEGER NOT NULL
) WITHOUT ROWID;
-- Ids are given by index_rows.cc above every chunk's and orphan's, so a
-- new chunk cannot take the FTS5 rowid of an orphan (cheaper than
-- AUTOINCREMENT, which reads and writes sqlite_sequence per insert).
CREATE TABLE IF NOT EXISTS chunks(
  id INTEGER PRIMARY KEY,
  obj INTEGER NOT NULL,  -- objects.id
  seq INTEGER NOT NULL,
  offset INTEGER NOT NULL,
  length INTEGER NOT NULL,
  tokens INTEGER NOT NULL
);
CREATE VIRTUAL TABLE IF NOT EXISTS chunk_text USING fts5(
  text, content = '', tokenize = 'porter unicode61 remove_diacritics 2');
-- FTS5 writes its pending terms out as a new segment whenever they pass
-- `hashsize` (1 MiB by default) and merges segments as they pile up: with
-- 8 MiB a page of small values is written as one segment at its commit
-- (measured ~20% less FTS5 insertion work; bench/index_build.py). Kept
-- in chunk_text's own config table, so every writer uses it.
INSERT INTO chunk_text(chunk_text, rank) VALUES ('hashsize', 8388608);
-- FTS5 rows whose chunk is gone but whose text could not be read back to
-- delete them (index_rows.cc).
CREATE TABLE IF NOT EXISTS orphans(id INTEGER PRIMARY KEY);
-- One row per listing region a call has covered (its scopes, key prefix
-- and size limit, FindRelevant's RegionKey): the store's change-feed stamp
-- it is synced to. The next call over it reads only later changes.
CREATE TABLE IF NOT EXISTS regions(
  region TEXT PRIMARY KEY,
  stamp INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS vectors(
  chunk INTEGER PRIMARY KEY,
  model TEXT NOT NULL,
  dim INTEGER NOT NULL,
  vec BLOB NOT NULL
);
)sql";

constexpr const char* kDropAll = R"sql(
DROP TABLE IF EXISTS objects; DROP TABLE IF EXISTS chunks;
DROP TABLE IF EXISTS chunk_text; DROP TABLE IF EXISTS vectors;
DROP TABLE IF EXISTS regions; DROP TABLE IF EXISTS counts;
DROP TABLE IF EXISTS orphans;
)sql";

// A meta value ("" when unset).
Result<std::string> ReadMeta(storage::SqliteDb* db, const char* name) {
  CTXKIT_ASSIGN_OR_RETURN(
      auto q, db->Prepare("SELECT value FROM meta WHERE name = ?1"));
  CTXKIT_ASSIGN_OR_RETURN(bool row, q->BindText(1, name).Step());
  return row ? q->Text(0) : std::string();
}

Status WriteMeta(storage::SqliteDb* db, const char* name,
                 const std::string& value) {
  CTXKIT_ASSIGN_OR_RETURN(
      auto q, db->Prepare("INSERT OR REPLACE INTO meta(name, value) "
                          "VALUES (?1, ?2)"));
  return q->BindText(1, name).BindText(2, value).Run();
}

// Whether the rows were made from `store_identity`'s store by this SQLite
// library: a contentless row is deleted by tokenizing its text again, so
// another library's tokenizer must not meet rows this one made.
Result<bool> MadeHere(storage::SqliteDb* db,
                      const std::string& store_identity) {
  CTXKIT_ASSIGN_OR_RETURN(std::string store, ReadMeta(db, "store_identity"));
  CTXKIT_ASSIGN_OR_RETURN(std::string sqlite, ReadMeta(db, "sqlite_version"));
  return store == store_identity && sqlite == sqlite3_libversion();
}

// 0 when the database is new.
Result<int> ReadSchemaVersion(storage::SqliteDb* db) {
  CTXKIT_ASSIGN_OR_RETURN(
      auto has, db->Prepare("SELECT count(*) FROM sqlite_master WHERE type = "
                            "'table' AND name = 'meta'"));
  CTXKIT_ASSIGN_OR_RETURN(bool row, has->Step());
  if (!row || has->Int(0) == 0) return 0;
  CTXKIT_ASSIGN_OR_RETURN(
      auto q,
      db->Prepare("SELECT value FROM meta WHERE name = 'schema_version'"));
  CTXKIT_ASSIGN_OR_RETURN(row, q->Step());
  if (!row) return 0;
  std::string v = q->Text(0);
  if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos ||
      v.size() > 6) {
    return Status::Corruption("index.db: bad schema_version '" + v + "'");
  }
  return std::stoi(v);
}

}  // namespace

Status ClearIndex(storage::SqliteDb* db) {
  // Dropped rather than deleted: DROP TABLE frees pages without rewriting
  // them, so the WAL stays small however large the index was.
  CTXKIT_RETURN_IF_ERROR(db->Exec(kDropAll));
  return db->Exec(kSchema);
}

Result<std::unique_ptr<storage::SqliteDb>> OpenScratchIndexDb() {
  CTXKIT_ASSIGN_OR_RETURN(std::unique_ptr<storage::SqliteDb> db,
                          storage::SqliteDb::Open(":memory:", 1000));
  CTXKIT_RETURN_IF_ERROR(db->Exec(kSchema));
  return db;
}

Result<std::unique_ptr<storage::SqliteDb>> OpenIndexDb(
    const std::string& home, const std::string& store_identity,
    int busy_timeout_ms) {
  const std::string path = storage::IndexDbPath(home);
  CTXKIT_ASSIGN_OR_RETURN(std::unique_ptr<storage::SqliteDb> db,
                          storage::SqliteDb::Open(path, busy_timeout_ms));
  ::chmod(path.c_str(), 0600);
  // Derived data: a crash may lose the last commits (they are redone by
  // the next sync) but never tears the database.
  CTXKIT_RETURN_IF_ERROR(db->EnableWal());
  // temp_store stays the default: FTS5's ORDER BY rank measured ~25%
  // slower with temp_store=MEMORY.
  CTXKIT_RETURN_IF_ERROR(db->Exec("PRAGMA synchronous=NORMAL"));
  CTXKIT_ASSIGN_OR_RETURN(int version, ReadSchemaVersion(db.get()));
  if (version > kIndexSchemaVersion) {
    return Status::Corruption(
        path + " has index schema version " + std::to_string(version) +
        ", newer than this build's " + std::to_string(kIndexSchemaVersion));
  }
  if (version == kIndexSchemaVersion) {
    CTXKIT_ASSIGN_OR_RETURN(bool current, MadeHere(db.get(), store_identity));
    if (current) return db;
  }
  storage::WriteTransaction tx(db.get());
  CTXKIT_RETURN_IF_ERROR(tx.Begin());
  // Re-check under the write lock: another process may have just done it.
  CTXKIT_ASSIGN_OR_RETURN(version, ReadSchemaVersion(db.get()));
  if (version != kIndexSchemaVersion) {
    CTXKIT_RETURN_IF_ERROR(db->Exec(kDropAll));
    CTXKIT_RETURN_IF_ERROR(db->Exec(kSchema));
    CTXKIT_RETURN_IF_ERROR(WriteMeta(db.get(), "schema_version",
                                     std::to_string(kIndexSchemaVersion)));
  }
  CTXKIT_ASSIGN_OR_RETURN(bool current, MadeHere(db.get(), store_identity));
  if (!current) {
    // Another store now lives at this home, or another SQLite library
    // opens it: nothing indexed applies.
    CTXKIT_RETURN_IF_ERROR(ClearIndex(db.get()));
    CTXKIT_RETURN_IF_ERROR(
        WriteMeta(db.get(), "store_identity", store_identity));
    CTXKIT_RETURN_IF_ERROR(
        WriteMeta(db.get(), "sqlite_version", sqlite3_libversion()));
  }
  CTXKIT_RETURN_IF_ERROR(tx.Commit());
  return db;
}

}  // namespace ctxkit::index
