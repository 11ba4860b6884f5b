#include "index/index_rows.h"

#include <sqlite3.h>

#include <utility>
#include <vector>

#include "core/clock.h"
#include "core/status_macros.h"
#include "index/chunker.h"

namespace ctxkit::index {

namespace {

using storage::SqliteDb;

// Adds `delta` to the kept count of `objects` rows in `scope` (the counts
// row 'scope:<scope>').
Status CountObjects(SqliteDb* db, const std::string& scope, int64_t delta) {
  const std::string name = "scope:" + scope;
  CTXKIT_ASSIGN_OR_RETURN(
      auto q, db->Prepare("INSERT INTO counts(name, n) VALUES (?1, ?2) "
                          "ON CONFLICT(name) DO UPDATE SET n = n + ?2"));
  return q->BindText(1, name).Bind(2, delta).Run();
}

// Drops every row of `obj`, whose objects row (if any) is in `scope`.
Status DropObjectRows(SqliteDb* db, const std::string& obj,
                      const std::string& scope) {
  for (const char* sql : {"DELETE FROM chunk_text WHERE rowid IN "
                          "(SELECT id FROM chunks WHERE obj = ?1)",
                          "DELETE FROM vectors WHERE chunk IN "
                          "(SELECT id FROM chunks WHERE obj = ?1)",
                          "DELETE FROM chunks WHERE obj = ?1",
                          "DELETE FROM objects WHERE obj = ?1"}) {
    CTXKIT_ASSIGN_OR_RETURN(auto q, db->Prepare(sql));
    CTXKIT_RETURN_IF_ERROR(q->BindText(1, obj).Run());
  }
  const int removed = sqlite3_changes(db->raw());  // Of the last DELETE.
  return removed > 0 ? CountObjects(db, scope, -removed) : Status::Ok();
}

// Values up to this size are chunked in memory before anything is written
// (see Reindex).
constexpr uint64_t kBufferedBytes = 1 << 20;

Status WriteChunk(SqliteDb* db, const std::string& obj, int64_t seq,
                  const Chunk& c) {
  CTXKIT_ASSIGN_OR_RETURN(
      auto q, db->Prepare("INSERT INTO chunks(obj, seq, offset, length, "
                          "tokens) VALUES (?1, ?2, ?3, ?4, ?5)"));
  CTXKIT_RETURN_IF_ERROR(q->BindText(1, obj)
                             .Bind(2, seq)
                             .Bind(3, static_cast<int64_t>(c.offset))
                             .Bind(4, static_cast<int64_t>(c.text.size()))
                             .Bind(5, c.tokens)
                             .Run());
  const int64_t id = db->LastInsertRowId();
  CTXKIT_ASSIGN_OR_RETURN(
      auto t,
      db->Prepare("INSERT INTO chunk_text(rowid, text) VALUES (?1, ?2)"));
  return t->Bind(1, id).BindText(2, c.text).Run();
}

Status WriteObjectRow(SqliteDb* db, const ObjectMeta& meta,
                      uint32_t chunk_tokens) {
  CTXKIT_ASSIGN_OR_RETURN(
      auto q,
      db->Prepare("INSERT INTO objects(obj, key, scope, type, version, size, "
                  "chunk_tokens, indexed_ns, tag) VALUES "
                  "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"));
  CTXKIT_RETURN_IF_ERROR(q->BindText(1, meta.id)
                             .BindText(2, meta.key)
                             .BindText(3, meta.scope.ToString())
                             .Bind(4, static_cast<int64_t>(meta.type))
                             .Bind(5, static_cast<int64_t>(meta.version))
                             .Bind(6, static_cast<int64_t>(meta.size_bytes))
                             .Bind(7, chunk_tokens)
                             .Bind(8, core::NowUnixNanos())
                             .BindText(9, meta.ref_tag)
                             .Run());
  return CountObjects(db, meta.scope.ToString(), 1);
}

// Chunks meta.version of the variable, handing each chunk to `emit`.
Status ChunkVersion(View& view, const ObjectMeta& meta, uint32_t chunk_tokens,
                    const ChunkSink& emit) {
  const Ref ref = StaticRefOf(meta);
  RangeReader read = [&](uint64_t off, uint64_t len) {
    return view.ReadRange(ref, off, len);
  };
  return ChunkValue(meta.size_bytes, read, chunk_tokens, emit, meta.tokens);
}

// Moves the variable's row to its current key and scope (promotion and
// rename keep id and version); `had` is what the row says now.
Status UpdateName(SqliteDb* db, const ObjectMeta& meta, const Indexed& had) {
  CTXKIT_ASSIGN_OR_RETURN(
      auto q, db->Prepare("UPDATE objects SET key = ?2, scope = ?3, tag = ?4 "
                          "WHERE obj = ?1"));
  const std::string scope = meta.scope.ToString();
  CTXKIT_RETURN_IF_ERROR(q->BindText(1, meta.id)
                             .BindText(2, meta.key)
                             .BindText(3, scope)
                             .BindText(4, meta.ref_tag)
                             .Run());
  if (scope == had.scope) return Status::Ok();
  CTXKIT_RETURN_IF_ERROR(CountObjects(db, had.scope, -1));
  return CountObjects(db, scope, 1);
}

// Re-chunks a stale wanted variable at meta.version, replacing its rows
// (`have`: what the index holds now, if anything). A value that cannot be
// read leaves the
// transaction as it was and is reported in result->skipped. Small values
// are chunked in memory first, so nothing is written before the read
// succeeded; larger ones stream into a savepoint, rolled back on failure
// (a savepoint copies every page it touches to a sub-journal: per small
// variable that was most of the index build's writes).
Status Reindex(SqliteDb* db, View& view, const ObjectMeta& m,
               const Indexed* have, uint32_t chunk_tokens, FindResult* result) {
  int64_t seq = 0;
  auto write = [&](const Chunk& c) { return WriteChunk(db, m.id, seq++, c); };
  auto not_indexed = [&](const Status& s) {
    if (s.code() == StatusCode::kIoError) return s;
    result->skipped.push_back({m.key, "not indexed: " + s.ToString()});
    return Status::Ok();
  };
  if (m.size_bytes <= kBufferedBytes) {
    std::vector<Chunk> chunks;
    Status read = ChunkVersion(view, m, chunk_tokens, [&](Chunk c) {
      chunks.push_back(std::move(c));
      return Status::Ok();
    });
    if (!read.ok()) return not_indexed(read);
    if (have) CTXKIT_RETURN_IF_ERROR(DropObjectRows(db, m.id, have->scope));
    for (const Chunk& c : chunks) CTXKIT_RETURN_IF_ERROR(write(c));
  } else {
    CTXKIT_RETURN_IF_ERROR(db->Exec("SAVEPOINT one_object"));
    Status s = have ? DropObjectRows(db, m.id, have->scope) : Status::Ok();
    if (s.ok()) {
      s = ChunkVersion(view, m, chunk_tokens,
                       [&](Chunk c) { return write(c); });
    }
    if (!s.ok()) {
      CTXKIT_RETURN_IF_ERROR(
          db->Exec("ROLLBACK TO one_object; RELEASE one_object"));
      return not_indexed(s);
    }
    CTXKIT_RETURN_IF_ERROR(db->Exec("RELEASE one_object"));
  }
  CTXKIT_RETURN_IF_ERROR(WriteObjectRow(db, m, chunk_tokens));
  ++result->variables_indexed;
  result->chunks_indexed += static_cast<uint64_t>(seq);
  return Status::Ok();
}

}  // namespace

Result<std::optional<Indexed>> LoadIndexed(SqliteDb* db,
                                           const std::string& obj) {
  CTXKIT_ASSIGN_OR_RETURN(auto q,
                          db->Prepare("SELECT version, key, scope FROM objects "
                                      "WHERE obj = ?1"));
  q->BindText(1, obj);
  CTXKIT_ASSIGN_OR_RETURN(bool row, q->Step());
  if (!row) return std::optional<Indexed>();
  return std::optional<Indexed>(
      Indexed{static_cast<uint64_t>(q->Int(0)), q->Text(1), q->Text(2)});
}

Status Reconcile(SqliteDb* db, View& view, const Current& current,
                 uint32_t chunk_tokens, FindResult* result) {
  const ObjectMeta& m = *current.meta;
  CTXKIT_ASSIGN_OR_RETURN(std::optional<Indexed> have, LoadIndexed(db, m.id));
  // Another process indexed a newer version meanwhile: keep it.
  if (have && have->version > m.version) return Status::Ok();
  if (current.removed ||
      (have && have->version != m.version && !current.wanted)) {
    if (!have) return Status::Ok();
    ++result->variables_dropped;
    return DropObjectRows(db, m.id, have->scope);
  }
  if (have && have->version == m.version) {
    if (have->key == m.key && have->scope == m.scope.ToString()) {
      return Status::Ok();
    }
    return UpdateName(db, m, *have);
  }
  if (!current.wanted) return Status::Ok();
  return Reindex(db, view, m, have ? &*have : nullptr, chunk_tokens, result);
}

}  // namespace ctxkit::index
