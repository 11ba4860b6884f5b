#include "sqlite/sqlite_schema.h"

#include <cstdlib>
#include <random>
#include <string>

#include "core/encoding.h"
#include "core/hmac.h"
#include "core/status_macros.h"
#include "sqlite/sqlite_holds.h"
#include "sqlite/sqlite_records.h"
#include "sqlite/sqlite_sessions.h"

namespace ctxkit::storage {
namespace {

// Layout notes (docs/storage-format.md has the full description). Each set
// should dirty as few b-tree pages as possible, since every dirty page is a
// WAL write: ids are plain rowids (rows are never deleted, so never reused;
// no AUTOINCREMENT bookkeeping table), objects have a single secondary index,
// and small content goes to an append-only rowid table (its rows always land
// on the rightmost leaf). Content is not put in the WITHOUT ROWID versions
// table: such tables keep only ~1 KB of a row in the leaf, so even 1 KiB
// values would spill to overflow pages.
constexpr const char* kSchemaV1 = R"sql(
CREATE TABLE meta(
  name  TEXT PRIMARY KEY,
  value TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE objects(
  id             INTEGER PRIMARY KEY,  -- from meta.object_id_base up
  scope          TEXT NOT NULL,
  key            TEXT NOT NULL,
  type           INTEGER NOT NULL,
  latest_version INTEGER NOT NULL,
  deleted        INTEGER NOT NULL,
  size           INTEGER NOT NULL,
  created_ns     INTEGER NOT NULL,
  updated_ns     INTEGER NOT NULL
);
CREATE INDEX objects_by_key ON objects(key, scope);

CREATE TABLE versions(
  object_id   INTEGER NOT NULL,
  version     INTEGER NOT NULL,
  state       INTEGER NOT NULL,
  type        INTEGER NOT NULL,
  hash        BLOB,
  size        INTEGER NOT NULL,
  created_ns  INTEGER NOT NULL,
  producer    TEXT NOT NULL,
  stream_base INTEGER NOT NULL,
  tokens      INTEGER,
  attrs       TEXT,
  content_id  INTEGER,
  PRIMARY KEY(object_id, version)
) WITHOUT ROWID;

CREATE TABLE inline_contents(
  id   INTEGER PRIMARY KEY,
  data BLOB NOT NULL
);

CREATE TABLE blobs(
  hash       BLOB PRIMARY KEY,
  size       INTEGER NOT NULL,
  created_ns INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE tags(
  object_id INTEGER NOT NULL,
  tag       TEXT NOT NULL,
  PRIMARY KEY(object_id, tag)
) WITHOUT ROWID;
CREATE INDEX tags_by_tag ON tags(tag, object_id);

CREATE TABLE stream_chunks(
  object_id   INTEGER NOT NULL,
  version     INTEGER NOT NULL,
  stream_base INTEGER NOT NULL,
  offset      INTEGER NOT NULL,
  size        INTEGER NOT NULL,
  hash        BLOB NOT NULL,
  content_id  INTEGER,
  PRIMARY KEY(object_id, version)
) WITHOUT ROWID;
CREATE INDEX stream_chunks_by_offset
  ON stream_chunks(object_id, stream_base, offset);
)sql";

// v2: session state (the context manager's pools), formerly in a
// sessions.db file of its own, moves into the store database so that it
// goes wherever the store goes.
constexpr const char* kSchemaV2 = R"sql(
CREATE TABLE sessions(
  id         TEXT PRIMARY KEY,
  generation INTEGER NOT NULL,
  state      TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE session_entries(
  session   TEXT NOT NULL,
  object_id TEXT NOT NULL,
  seq       INTEGER NOT NULL,
  entry     TEXT NOT NULL,
  PRIMARY KEY(session, object_id)
) WITHOUT ROWID;
)sql";

// v4: the change feed (Backend::ListChanged). Every insert and every change
// of an object's record gives it a stamp one above the store's largest, so
// stamps follow commit order (writers hold the write lock) and an index on
// them answers "what changed after N" in time proportional to the answer.
// Triggers stamp every write path, present and future. The inner UPDATE
// sets only `changed`, which the UPDATE trigger does not watch, so it does
// not fire again. Existing objects take their id as a first stamp.
constexpr const char* kSchemaV4 = R"sql(
ALTER TABLE objects ADD COLUMN changed INTEGER NOT NULL DEFAULT 0;
UPDATE objects SET changed = id;
CREATE INDEX objects_by_change ON objects(changed);
CREATE TRIGGER objects_stamp_insert AFTER INSERT ON objects BEGIN
  UPDATE objects SET changed = (SELECT max(changed) FROM objects) + 1
  WHERE id = new.id;
END;
CREATE TRIGGER objects_stamp_update
AFTER UPDATE OF scope, key, type, latest_version, deleted, size ON objects
BEGIN
  UPDATE objects SET changed = (SELECT max(changed) FROM objects) + 1
  WHERE id = new.id;
END;
UPDATE meta SET value = '4' WHERE name = 'schema_version';
)sql";

// v5: the two flags of a session entry a partial load filters on
// (Backend::LoadSessionHead), set from the stored entries' own fields
// once, then by the session layer on every write.
constexpr const char* kSchemaV5 = R"sql(
ALTER TABLE session_entries ADD COLUMN hot INTEGER NOT NULL DEFAULT 1;
ALTER TABLE session_entries ADD COLUMN listed INTEGER NOT NULL DEFAULT 0;
CREATE INDEX session_entries_hot ON session_entries(session, hot);
CREATE INDEX session_entries_listed ON session_entries(session, listed, seq);
UPDATE meta SET value = '5' WHERE name = 'schema_version';
)sql";

// The secret behind refs' capability tags (ctxkit/ref.h), made once per
// store. Stores made by earlier builds get theirs on first open; their old
// refs carry no tag and keep working inside their owner's view.
Status EnsureRefSecret(SqliteDb* db) {
  auto q = db->Prepare("SELECT 1 FROM meta WHERE name = 'ref_secret'");
  if (!q.ok()) return q.status();
  Result<bool> row = (*q)->Step();
  if (!row.ok()) return row.status();
  if (*row) return Status::Ok();
  CTXKIT_ASSIGN_OR_RETURN(std::string secret, core::SecureRandomBytes(32));
  return db->Exec("INSERT INTO meta(name, value) VALUES ('ref_secret', '" +
                  core::ToHex(secret) + "')");
}

// The schema version recorded in the database; 0 for an empty database.
Result<int> StoredSchemaVersion(SqliteDb* db) {
  auto has_meta = db->Prepare(
      "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'");
  if (!has_meta.ok()) return has_meta.status();
  Result<bool> exists = (*has_meta)->Step();
  if (!exists.ok()) return exists.status();
  has_meta->reset();
  if (!*exists) return 0;
  auto q = db->Prepare("SELECT value FROM meta WHERE name = 'schema_version'");
  if (!q.ok()) return q.status();
  Result<bool> row = (*q)->Step();
  if (!row.ok()) return row.status();
  return *row ? std::atoi((*q)->Text(0).c_str()) : 0;
}

// True when the store needs no migration and has its ref secret: then an
// open takes no write lock (a reader never waits for a writer to open).
// One query, as every open asks (a database without `meta` fails to
// prepare it: not current).
Result<bool> SchemaIsCurrent(SqliteDb* db) {
  Result<std::unique_ptr<Query>> q = db->Prepare(
      "SELECT (SELECT value FROM meta WHERE name = 'schema_version'), "
      "EXISTS (SELECT 1 FROM meta WHERE name = 'ref_secret')");
  if (!q.ok()) return false;
  CTXKIT_ASSIGN_OR_RETURN(bool row, (*q)->Step());
  return row && (*q)->Text(0) == std::to_string(kSchemaVersion) &&
         (*q)->Int(1) != 0;
}

}  // namespace

Status CheckSchema(SqliteDb* db, const std::string& path) {
  CTXKIT_ASSIGN_OR_RETURN(int current, StoredSchemaVersion(db));
  if (current == 0) {
    return Status::NotFound(path + " holds no ctxkit store");
  }
  if (current != kSchemaVersion) {
    return Status::FailedPrecondition(
        path + " has store schema version " + std::to_string(current) +
        "; this build reads version " + std::to_string(kSchemaVersion) +
        " (open it once writable with the matching ctxkit to migrate it)");
  }
  return Status::Ok();
}

Status EnsureSchema(SqliteDb* db) {
  CTXKIT_ASSIGN_OR_RETURN(bool current_already, SchemaIsCurrent(db));
  if (current_already) return Status::Ok();
  WriteTransaction txn(db);
  Status s = txn.Begin();
  if (!s.ok()) return s;
  CTXKIT_ASSIGN_OR_RETURN(const int current, StoredSchemaVersion(db));
  if (current > kSchemaVersion) {
    return Status::Corruption(
        "store schema version " + std::to_string(current) +
        " is newer than this build understands (" +
        std::to_string(kSchemaVersion) + "); upgrade ctxkit");
  }
  if (current == 0) {
    s = db->Exec(kSchemaV1);
    if (!s.ok()) return s;
    s = db->Exec(
        "INSERT INTO meta(name, value) VALUES ('schema_version', '1')");
    if (!s.ok()) return s;
    // Each store numbers its objects from its own random base, so an id
    // taken from one store practically never names an object in another
    // (a ref is also checked against the object's key). Bases stay below
    // 36^7 - 2^32, keeping ids 7 base-36 digits for billions of objects.
    std::random_device rd;
    const uint64_t low = 2176782336ull;  // 36^6
    const uint64_t span = 78364164096ull - 4294967296ull - low;
    const uint64_t base = low + ((uint64_t{rd()} << 32 | rd()) % span);
    s = db->Exec("INSERT INTO meta(name, value) VALUES ('object_id_base', '" +
                 std::to_string(base) + "')");
    if (!s.ok()) return s;
  }
  // Each later step runs inside this same transaction.
  if (current < 2) {
    s = db->Exec(kSchemaV2);
    if (!s.ok()) return s;
    s = db->Exec("UPDATE meta SET value = '2' WHERE name = 'schema_version'");
    if (!s.ok()) return s;
  }
  if (current < 3) {
    // Chunk checksums of blob files (storage/blob_checksums.h); NULL for
    // blobs written before.
    s = db->Exec(
        "ALTER TABLE blobs ADD COLUMN sums BLOB; "
        "UPDATE meta SET value = '3' WHERE name = 'schema_version'");
    if (!s.ok()) return s;
  }
  if (current < 4) {
    s = db->Exec(kSchemaV4);
    if (!s.ok()) return s;
  }
  if (current < 5) {
    s = db->Exec(kSchemaV5);
    if (!s.ok()) return s;
    s = db->Exec(sqlite_sessions::kSetEntryFlags);
    if (!s.ok()) return s;
  }
  if (current < 6) {
    // Holds (Backend::AddHolds): a store with earlier state has its
    // sessions' and manifests' holds recorded before its next collection.
    s = sqlite_holds::CreateSchema(db, current != 0);
    if (!s.ok()) return s;
  }
  if (current < 7) {
    // Named records and logs (Backend::WriteRecords): state of the layers
    // above the store that follows it (spawn manifests, the watch list,
    // the execution log).
    s = sqlite_records::CreateSchema(db);
    if (!s.ok()) return s;
  }
  CTXKIT_RETURN_IF_ERROR(EnsureRefSecret(db));
  return txn.Commit();
}

}  // namespace ctxkit::storage
