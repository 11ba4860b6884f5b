// index.db: the find_relevant full-text index, a SQLite database of its own
// next to the store's (docs/index.md documents every table).

#ifndef CTXKIT_INDEX_INDEX_DB_H_
#define CTXKIT_INDEX_INDEX_DB_H_

#include <memory>
#include <string>

#include "ctxkit/status.h"
#include "os/sqlite_db.h"

namespace ctxkit::index {

// The current schema version, kept in meta.schema_version.
// 2: objects.tag. 3: regions (synced from the store's change feed), counts.
// 4: chunk_text contentless (the text is read from the store), orphans.
// 5: objects.first_chunk and chunk_count instead of the index chunks_by_obj;
// chunk ids given by the writer, not AUTOINCREMENT; objects and chunks.obj
// keyed by the object's number.
inline constexpr int kIndexSchemaVersion = 5;

// Opens (creating when missing) <home>/index.db in WAL mode with the
// current schema, for the store named `store_identity`
// (StoreInternals::Identity). A database from a newer build is Corruption;
// one from an older build, built from another store or by another SQLite
// library (meta.sqlite_version: its tokenizer deletes contentless rows), is
// emptied (the index is derived data). A current one is only read.
Result<std::unique_ptr<storage::SqliteDb>> OpenIndexDb(
    const std::string& home, const std::string& store_identity,
    int busy_timeout_ms);

// Empties every table but meta (kept counts gone, every region unsynced,
// embeddings too), so the next call rebuilds what it covers. Inside the
// caller's write transaction.
Status ClearIndex(storage::SqliteDb* db);

// An empty index with the same schema in this process's memory, for a
// store opened read-only (nothing may be written under its home): each
// query then indexes what it covers from scratch.
Result<std::unique_ptr<storage::SqliteDb>> OpenScratchIndexDb();

}  // namespace ctxkit::index

#endif  // CTXKIT_INDEX_INDEX_DB_H_
