#include "sqlite/sqlite_gc.h"

#include <set>
#include <utility>

#include "core/status_macros.h"
#include "storage/engine_rules.h"

namespace ctxkit::storage {
namespace {

// What one collected version held.
struct Held {
  bool found = false;
  uint64_t stream_base = 0;
  std::optional<int64_t> content_id;  // Inline content row.
  std::string blob_hash;              // Content in a blob file.
  uint64_t bytes = 0;                 // Stored by this version itself.
};

Result<uint64_t> LatestVersion(SqliteDb* db, int64_t object_id) {
  CTXKIT_ASSIGN_OR_RETURN(
      auto q, db->Prepare("SELECT latest_version FROM objects WHERE id = ?"));
  q->Bind(1, object_id);
  CTXKIT_ASSIGN_OR_RETURN(bool row, q->Step());
  return row ? static_cast<uint64_t>(q->Int(0)) : 0;
}

// The version row and, for an appendable value, its own chunk.
Result<Held> ReadHeld(SqliteDb* db, const VersionKey& key) {
  Held h;
  CTXKIT_ASSIGN_OR_RETURN(
      auto q, db->Prepare("SELECT stream_base, content_id, hash, size, state "
                          "FROM versions WHERE object_id = ? AND version = ?"));
  q->Bind(1, key.object_id).Bind(2, static_cast<int64_t>(key.version));
  CTXKIT_ASSIGN_OR_RETURN(bool row, q->Step());
  if (!row) return h;
  h.found = true;
  h.stream_base = static_cast<uint64_t>(q->Int(0));
  const bool present = q->Int(4) == 0;
  if (h.stream_base == 0 && present) {
    if (!q->IsNull(1)) {
      h.content_id = q->Int(1);
    } else if (!q->IsNull(2)) {
      h.blob_hash = q->Blob(2);
    }
    h.bytes = static_cast<uint64_t>(q->Int(3));
  }
  q.reset();
  if (h.stream_base == 0) return h;
  CTXKIT_ASSIGN_OR_RETURN(
      auto c, db->Prepare("SELECT content_id, hash, size FROM stream_chunks "
                          "WHERE object_id = ? AND version = ?"));
  c->Bind(1, key.object_id).Bind(2, static_cast<int64_t>(key.version));
  CTXKIT_ASSIGN_OR_RETURN(bool chunk, c->Step());
  if (chunk) {
    if (!c->IsNull(0)) {
      h.content_id = c->Int(0);
    } else {
      h.blob_hash = c->Blob(1);
    }
    h.bytes = static_cast<uint64_t>(c->Int(2));
  }
  return h;
}

Status Delete(SqliteDb* db, const char* sql, int64_t a, int64_t b) {
  CTXKIT_ASSIGN_OR_RETURN(auto q, db->Prepare(sql));
  q->Bind(1, a);
  if (b >= 0) q->Bind(2, b);
  return q->Run();
}

// FailedPrecondition when a version of the run (object, base) is left.
Status CheckRunGone(SqliteDb* db, int64_t object_id, uint64_t base) {
  CTXKIT_ASSIGN_OR_RETURN(
      auto q, db->Prepare("SELECT version FROM versions WHERE object_id = ? "
                          "AND stream_base = ? LIMIT 1"));
  q->Bind(1, object_id).Bind(2, static_cast<int64_t>(base));
  CTXKIT_ASSIGN_OR_RETURN(bool row, q->Step());
  if (!row) return Status::Ok();
  return RunLeftBehind(object_id, static_cast<uint64_t>(q->Int(0)));
}

}  // namespace

Result<bool> SqliteBlobReferenced(SqliteDb* db, std::string_view hash) {
  // No index on hash: a scan, acceptable for maintenance.
  CTXKIT_ASSIGN_OR_RETURN(
      auto q,
      db->Prepare("SELECT 1 WHERE EXISTS (SELECT 1 FROM versions WHERE hash = "
                  "? AND content_id IS NULL AND stream_base = 0 AND state = 0)"
                  " OR EXISTS (SELECT 1 FROM stream_chunks WHERE hash = ? AND "
                  "content_id IS NULL)"));
  q->BindBlob(1, hash).BindBlob(2, hash);
  return q->Step();
}

Result<SqliteCollected> SqliteCollectLocked(
    SqliteDb* db, const std::vector<VersionKey>& keys) {
  SqliteCollected out;
  std::set<std::pair<int64_t, uint64_t>> runs;
  std::set<std::string> blobs;
  for (const VersionKey& key : keys) {
    CTXKIT_ASSIGN_OR_RETURN(uint64_t latest, LatestVersion(db, key.object_id));
    if (key.version >= latest && latest != 0) {
      return LatestIsKept(key.object_id, key.version);
    }
    CTXKIT_ASSIGN_OR_RETURN(Held held, ReadHeld(db, key));
    if (!held.found) continue;
    if (held.content_id) {
      CTXKIT_RETURN_IF_ERROR(Delete(db,
                                    "DELETE FROM inline_contents WHERE id = ?",
                                    *held.content_id, -1));
      out.inline_bytes += held.bytes;
    } else if (!held.blob_hash.empty()) {
      blobs.insert(held.blob_hash);
    }
    const auto version = static_cast<int64_t>(key.version);
    if (held.stream_base != 0) {
      runs.insert({key.object_id, held.stream_base});
      CTXKIT_RETURN_IF_ERROR(Delete(db,
                                    "DELETE FROM stream_chunks WHERE "
                                    "object_id = ? AND version = ?",
                                    key.object_id, version));
    }
    CTXKIT_RETURN_IF_ERROR(
        Delete(db, "DELETE FROM versions WHERE object_id = ? AND version = ?",
               key.object_id, version));
    ++out.versions;
  }
  for (const auto& [object_id, base] : runs) {
    CTXKIT_RETURN_IF_ERROR(CheckRunGone(db, object_id, base));
  }
  for (const std::string& hash : blobs) {
    CTXKIT_ASSIGN_OR_RETURN(bool used, SqliteBlobReferenced(db, hash));
    if (used) continue;
    CTXKIT_ASSIGN_OR_RETURN(auto q,
                            db->Prepare("DELETE FROM blobs WHERE hash = ?"));
    CTXKIT_RETURN_IF_ERROR(q->BindBlob(1, hash).Run());
    out.unreferenced_blobs.push_back(hash);
  }
  return out;
}

}  // namespace ctxkit::storage
