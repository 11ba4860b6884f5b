// index.db: the find_relevant full-text index, a SQLite database of its own
// next to the store's (docs/index.md documents every table).

#ifndef CTXKIT_INDEX_INDEX_DB_H_
#define CTXKIT_INDEX_INDEX_DB_H_

#include <memory>
#include <string>

#include "ctxkit/status.h"
#include "storage/sqlite_db.h"

namespace ctxkit::index {

// The current schema version, kept in meta.schema_version.
inline constexpr int kIndexSchemaVersion = 2;  // 2: objects.tag

// Opens (creating when missing) <home>/index.db in WAL mode with the
// current schema. A database from a newer build is Corruption; one from an
// older build is dropped and rebuilt (the index is derived data).
Result<std::unique_ptr<storage::SqliteDb>> OpenIndexDb(const std::string& home,
                                                       int busy_timeout_ms);

// An empty index with the same schema in this process's memory, for a
// store opened read-only (nothing may be written under its home): each
// query then indexes what it covers from scratch.
Result<std::unique_ptr<storage::SqliteDb>> OpenScratchIndexDb();

}  // namespace ctxkit::index

#endif  // CTXKIT_INDEX_INDEX_DB_H_
