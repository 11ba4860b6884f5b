#include "index/index_rows.h"

#include <utility>

#include "core/clock.h"
#include "core/status_macros.h"
#include "index/chunker.h"

namespace ctxkit::index {

namespace {

using storage::SqliteDb;

Status DropObjectRows(SqliteDb* db, const std::string& obj) {
  for (const char* sql : {"DELETE FROM chunk_text WHERE rowid IN "
                          "(SELECT id FROM chunks WHERE obj = ?1)",
                          "DELETE FROM vectors WHERE chunk IN "
                          "(SELECT id FROM chunks WHERE obj = ?1)",
                          "DELETE FROM chunks WHERE obj = ?1",
                          "DELETE FROM objects WHERE obj = ?1"}) {
    CTXKIT_ASSIGN_OR_RETURN(auto q, db->Prepare(sql));
    CTXKIT_RETURN_IF_ERROR(q->BindText(1, obj).Run());
  }
  return Status::Ok();
}

// Re-chunks one variable at meta.version, replacing its rows (`has_rows`:
// it has some); `chunks` receives the number of chunks written.
Status IndexObject(SqliteDb* db, View& view, const ObjectMeta& meta,
                   bool has_rows, uint32_t chunk_tokens, uint64_t* chunks) {
  if (has_rows) CTXKIT_RETURN_IF_ERROR(DropObjectRows(db, meta.id));
  const Ref ref = StaticRefOf(meta);
  int64_t seq = 0;
  RangeReader read = [&](uint64_t off, uint64_t len) {
    return view.ReadRange(ref, off, len);
  };
  ChunkSink emit = [&](Chunk c) -> Status {
    CTXKIT_ASSIGN_OR_RETURN(
        auto q, db->Prepare("INSERT INTO chunks(obj, seq, offset, length, "
                            "tokens) VALUES (?1, ?2, ?3, ?4, ?5)"));
    CTXKIT_RETURN_IF_ERROR(q->BindText(1, meta.id)
                               .Bind(2, seq++)
                               .Bind(3, static_cast<int64_t>(c.offset))
                               .Bind(4, static_cast<int64_t>(c.text.size()))
                               .Bind(5, c.tokens)
                               .Run());
    int64_t id = db->LastInsertRowId();
    CTXKIT_ASSIGN_OR_RETURN(
        auto t,
        db->Prepare("INSERT INTO chunk_text(rowid, text) VALUES (?1, ?2)"));
    CTXKIT_RETURN_IF_ERROR(t->Bind(1, id).BindText(2, c.text).Run());
    ++*chunks;
    return Status::Ok();
  };
  CTXKIT_RETURN_IF_ERROR(ChunkValue(meta.size_bytes, read, chunk_tokens, emit));
  CTXKIT_ASSIGN_OR_RETURN(
      auto q,
      db->Prepare("INSERT INTO objects(obj, key, scope, type, version, size, "
                  "chunk_tokens, indexed_ns, tag) VALUES "
                  "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"));
  return q->BindText(1, meta.id)
      .BindText(2, meta.key)
      .BindText(3, meta.scope.ToString())
      .Bind(4, static_cast<int64_t>(meta.type))
      .Bind(5, static_cast<int64_t>(meta.version))
      .Bind(6, static_cast<int64_t>(meta.size_bytes))
      .Bind(7, chunk_tokens)
      .Bind(8, core::NowUnixNanos())
      .BindText(9, meta.ref_tag)
      .Run();
}

Status UpdateName(SqliteDb* db, const ObjectMeta& meta) {
  CTXKIT_ASSIGN_OR_RETURN(
      auto q, db->Prepare("UPDATE objects SET key = ?2, scope = ?3, tag = ?4 "
                          "WHERE obj = ?1"));
  return q->BindText(1, meta.id)
      .BindText(2, meta.key)
      .BindText(3, meta.scope.ToString())
      .BindText(4, meta.ref_tag)
      .Run();
}

// Re-chunks a stale wanted variable in a savepoint, so a value that cannot
// be read leaves the transaction as it was.
Status Reindex(SqliteDb* db, View& view, const ObjectMeta& m, bool has_rows,
               uint32_t chunk_tokens, FindResult* result) {
  CTXKIT_RETURN_IF_ERROR(db->Exec("SAVEPOINT one_object"));
  uint64_t chunks = 0;
  Status s = IndexObject(db, view, m, has_rows, chunk_tokens, &chunks);
  if (!s.ok()) {
    CTXKIT_RETURN_IF_ERROR(
        db->Exec("ROLLBACK TO one_object; RELEASE one_object"));
    if (s.code() == StatusCode::kIoError) return s;
    result->skipped.push_back({m.key, "not indexed: " + s.ToString()});
    return Status::Ok();
  }
  CTXKIT_RETURN_IF_ERROR(db->Exec("RELEASE one_object"));
  ++result->variables_indexed;
  result->chunks_indexed += chunks;
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
    return DropObjectRows(db, m.id);
  }
  if (have && have->version == m.version) {
    if (have->key == m.key && have->scope == m.scope.ToString()) {
      return Status::Ok();
    }
    return UpdateName(db, m);  // Promotion keeps id and version.
  }
  if (!current.wanted) return Status::Ok();
  return Reindex(db, view, m, have.has_value(), chunk_tokens, result);
}

}  // namespace ctxkit::index
