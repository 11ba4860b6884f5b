#include "index/index_rows.h"

#include <sqlite3.h>

#include <algorithm>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/clock.h"
#include "core/encoding.h"
#include "core/status_macros.h"
#include "index/chunker.h"
#include "store/store_internals.h"

namespace ctxkit::index {

namespace {

using storage::SqliteDb;

// A run of chunks whose text is read back in one range when their FTS5
// rows are deleted spans at most this many bytes.
constexpr uint64_t kDeleteReadBytes = 1 << 20;

// An objects row's version, key, scope, first_chunk and chunk_count, from
// column `col` on.
Indexed IndexedAt(const storage::Query& q, int col) {
  return Indexed{static_cast<uint64_t>(q.Int(col)), q.Text(col + 1),
                 q.Text(col + 2), q.Int(col + 3), q.Int(col + 4)};
}

// Where one chunk of a variable lies in its value.
struct ChunkSpan {
  int64_t id = 0;
  uint64_t offset = 0;
  uint64_t length = 0;
};

Result<std::vector<ChunkSpan>> LoadSpans(SqliteDb* db, const Indexed& have) {
  CTXKIT_ASSIGN_OR_RETURN(
      auto q, db->Prepare("SELECT id, offset, length FROM chunks WHERE id "
                          "BETWEEN ?1 AND ?2 ORDER BY id"));
  q->Bind(1, have.first_chunk).Bind(2, have.first_chunk + have.chunk_count - 1);
  std::vector<ChunkSpan> spans;
  while (true) {
    CTXKIT_ASSIGN_OR_RETURN(bool row, q->Step());
    if (!row) return spans;
    spans.push_back({q->Int(0), static_cast<uint64_t>(q->Int(1)),
                     static_cast<uint64_t>(q->Int(2))});
  }
}

// Deletes one chunk's FTS5 row: by its text when `text` holds it (a
// contentless table needs it again), else by listing it as an orphan.
Status DropChunkRow(SqliteDb* db, int64_t id,
                    std::optional<std::string_view> text) {
  if (!text) {
    CTXKIT_ASSIGN_OR_RETURN(
        auto q, db->Prepare("INSERT OR IGNORE INTO orphans(id) VALUES (?1)"));
    return q->Bind(1, id).Run();
  }
  CTXKIT_ASSIGN_OR_RETURN(
      auto q, db->Prepare("INSERT INTO chunk_text(chunk_text, rowid, text) "
                          "VALUES ('delete', ?1, ?2)"));
  return q->Bind(1, id).BindText(2, *text).Run();
}

// Deletes the FTS5 rows of `obj`'s chunks (`have`: its objects row),
// reading their text back from the store in runs of up to
// kDeleteReadBytes. The rows of a version that cannot be read back whole
// (collected, or any read error: a damaged blob file must not stop every
// later sync) become orphans, which is always safe; a wrong text never
// reaches FTS5.
Status DropChunkText(SqliteDb* db, Store& store, const std::string& obj,
                     const Indexed& have) {
  const uint64_t version = have.version;
  CTXKIT_ASSIGN_OR_RETURN(std::vector<ChunkSpan> spans, LoadSpans(db, have));
  for (size_t i = 0; i < spans.size();) {
    const uint64_t from = spans[i].offset;
    size_t end = i + 1;
    while (end < spans.size() &&
           spans[end].offset + spans[end].length - from <= kDeleteReadBytes) {
      ++end;
    }
    const ChunkSpan& last = spans[end - 1];
    Result<std::optional<std::string>> read = ReadIndexedRange(
        store, obj, version, from, last.offset + last.length - from);
    const std::optional<std::string> text =
        read.ok() ? std::move(*read) : std::nullopt;
    for (; i < end; ++i) {
      const ChunkSpan& c = spans[i];
      const bool whole = text && c.offset - from + c.length <= text->size();
      CTXKIT_RETURN_IF_ERROR(DropChunkRow(
          db, c.id,
          whole ? std::optional<std::string_view>(
                      std::string_view(*text).substr(c.offset - from, c.length))
                : std::nullopt));
    }
  }
  return Status::Ok();
}

// Drops every row of `obj` (`have`: what its objects row says).
Status DropObjectRows(SqliteDb* db, Store& store, const std::string& obj,
                      const Indexed& have, CountDeltas* counts) {
  CTXKIT_RETURN_IF_ERROR(DropChunkText(db, store, obj, have));
  for (const char* sql : {"DELETE FROM vectors WHERE chunk BETWEEN ?1 AND ?2",
                          "DELETE FROM chunks WHERE id BETWEEN ?1 AND ?2"}) {
    CTXKIT_ASSIGN_OR_RETURN(auto q, db->Prepare(sql));
    CTXKIT_RETURN_IF_ERROR(q->Bind(1, have.first_chunk)
                               .Bind(2, have.first_chunk + have.chunk_count - 1)
                               .Run());
  }
  CTXKIT_ASSIGN_OR_RETURN(int64_t number, ObjectNumber(obj));
  CTXKIT_ASSIGN_OR_RETURN(auto q,
                          db->Prepare("DELETE FROM objects WHERE id = ?1"));
  CTXKIT_RETURN_IF_ERROR(q->Bind(1, number).Run());
  const int removed = sqlite3_changes(db->raw());  // Of the last DELETE.
  counts->Add(have.scope, -removed);
  return Status::Ok();
}

// Values up to this size are chunked in memory before anything is written
// (see Reindex).
constexpr uint64_t kBufferedBytes = 1 << 20;

Status WriteChunk(SqliteDb* db, int64_t obj, int64_t id, int64_t seq,
                  const Chunk& c) {
  CTXKIT_ASSIGN_OR_RETURN(
      auto q, db->Prepare("INSERT INTO chunks(id, obj, seq, offset, length, "
                          "tokens) VALUES (?1, ?2, ?3, ?4, ?5, ?6)"));
  CTXKIT_RETURN_IF_ERROR(q->Bind(1, id)
                             .Bind(2, obj)
                             .Bind(3, seq)
                             .Bind(4, static_cast<int64_t>(c.offset))
                             .Bind(5, static_cast<int64_t>(c.text.size()))
                             .Bind(6, c.tokens)
                             .Run());
  CTXKIT_ASSIGN_OR_RETURN(
      auto t,
      db->Prepare("INSERT INTO chunk_text(rowid, text) VALUES (?1, ?2)"));
  return t->Bind(1, id).BindText(2, c.text).Run();
}

Status WriteObjectRow(SqliteDb* db, const ObjectMeta& meta,
                      uint32_t chunk_tokens, int64_t first_chunk,
                      int64_t chunk_count, CountDeltas* counts) {
  CTXKIT_ASSIGN_OR_RETURN(int64_t number, ObjectNumber(meta.id));
  CTXKIT_ASSIGN_OR_RETURN(
      auto q,
      db->Prepare("INSERT INTO objects(id, key, scope, type, version, size, "
                  "chunk_tokens, indexed_ns, tag, first_chunk, chunk_count) "
                  "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)"));
  CTXKIT_RETURN_IF_ERROR(q->Bind(1, number)
                             .BindText(2, meta.key)
                             .BindText(3, meta.scope.ToString())
                             .Bind(4, static_cast<int64_t>(meta.type))
                             .Bind(5, static_cast<int64_t>(meta.version))
                             .Bind(6, static_cast<int64_t>(meta.size_bytes))
                             .Bind(7, chunk_tokens)
                             .Bind(8, core::NowUnixNanos())
                             .BindText(9, meta.ref_tag)
                             .Bind(10, first_chunk)
                             .Bind(11, chunk_count)
                             .Run());
  counts->Add(meta.scope.ToString(), 1);
  counts->NoteSize(static_cast<int64_t>(meta.size_bytes));
  return Status::Ok();
}

// Chunks meta.version of the variable, handing each chunk to `emit`; reads
// it through the view unless `content` holds it.
Status ChunkVersion(View& view, const Current& current, uint32_t chunk_tokens,
                    const ChunkSink& emit) {
  const ObjectMeta& meta = *current.meta;
  RangeReader read;
  if (current.content != nullptr) {
    if (!current.content->has_value()) {
      return Status::NotFound("version " + std::to_string(meta.version) +
                              " of '" + meta.key + "' is gone");
    }
    const std::string& content = **current.content;
    read = [&](uint64_t off, uint64_t len) -> Result<std::string> {
      if (off >= content.size()) return std::string();
      return content.substr(off, len);
    };
  } else {
    read = [&view, ref = StaticRefOf(meta)](uint64_t off, uint64_t len) {
      return view.ReadRange(ref, off, len);
    };
  }
  return ChunkValue(meta.size_bytes, read, chunk_tokens, emit, meta.tokens);
}

// Moves the variable's row to its current key and scope (promotion and
// rename keep id and version); `had` is what the row says now.
Status UpdateName(SqliteDb* db, const ObjectMeta& meta, const Indexed& had,
                  CountDeltas* counts) {
  CTXKIT_ASSIGN_OR_RETURN(
      auto q, db->Prepare("UPDATE objects SET key = ?2, scope = ?3, tag = ?4 "
                          "WHERE id = ?1"));
  CTXKIT_ASSIGN_OR_RETURN(int64_t number, ObjectNumber(meta.id));
  const std::string scope = meta.scope.ToString();
  CTXKIT_RETURN_IF_ERROR(q->Bind(1, number)
                             .BindText(2, meta.key)
                             .BindText(3, scope)
                             .BindText(4, meta.ref_tag)
                             .Run());
  counts->Add(had.scope, -1);
  counts->Add(scope, 1);
  return Status::Ok();
}

// Re-chunks a stale wanted variable at meta.version, replacing its rows
// (`have`: what the index holds now, if anything). A value that cannot be
// read leaves the
// transaction as it was and is reported in result->skipped. Small values
// are chunked in memory first, so nothing is written before the read
// succeeded; larger ones stream into a savepoint, rolled back on failure
// (a savepoint copies every page it touches to a sub-journal: per small
// variable that was most of the index build's writes).
Status Reindex(SqliteDb* db, View& view, const Current& current,
               const Indexed* have, uint32_t chunk_tokens, CountDeltas* counts,
               ChunkIds* ids, FindResult* result) {
  const ObjectMeta& m = *current.meta;
  CTXKIT_ASSIGN_OR_RETURN(const int64_t number, ObjectNumber(m.id));
  int64_t first = 0;  // Set once the old rows are gone.
  int64_t seq = 0;
  auto write = [&](const Chunk& c) {
    const int64_t n = seq++;
    return WriteChunk(db, number, first + n, n, c);
  };
  auto not_indexed = [&](const Status& s) {
    if (s.code() == StatusCode::kIoError) return s;
    result->skipped.push_back({m.key, "not indexed: " + s.ToString()});
    return Status::Ok();
  };
  if (m.size_bytes <= kBufferedBytes) {
    std::vector<Chunk> chunks;
    Status read = ChunkVersion(view, current, chunk_tokens, [&](Chunk c) {
      chunks.push_back(std::move(c));
      return Status::Ok();
    });
    if (!read.ok()) return not_indexed(read);
    if (have) {
      CTXKIT_RETURN_IF_ERROR(
          DropObjectRows(db, *view.store(), m.id, *have, counts));
    }
    CTXKIT_ASSIGN_OR_RETURN(first, ids->Next(db));
    for (const Chunk& c : chunks) CTXKIT_RETURN_IF_ERROR(write(c));
  } else {
    CTXKIT_RETURN_IF_ERROR(db->Exec("SAVEPOINT one_object"));
    const CountDeltas before = *counts;  // Rolled back with the savepoint.
    Status s = have ? DropObjectRows(db, *view.store(), m.id, *have, counts)
                    : Status::Ok();
    if (s.ok()) {
      Result<int64_t> next = ids->Next(db);
      s = next.status();
      if (s.ok()) first = *next;
    }
    if (s.ok()) {
      s = ChunkVersion(view, current, chunk_tokens,
                       [&](Chunk c) { return write(c); });
    }
    if (!s.ok()) {
      CTXKIT_RETURN_IF_ERROR(
          db->Exec("ROLLBACK TO one_object; RELEASE one_object"));
      *counts = before;
      return not_indexed(s);
    }
    CTXKIT_RETURN_IF_ERROR(db->Exec("RELEASE one_object"));
  }
  ids->Took(seq);
  CTXKIT_RETURN_IF_ERROR(
      WriteObjectRow(db, m, chunk_tokens, first, seq, counts));
  ++result->variables_indexed;
  result->chunks_indexed += static_cast<uint64_t>(seq);
  return Status::Ok();
}

}  // namespace

Result<std::optional<std::string>> ReadIndexedRange(Store& store,
                                                    const std::string& obj,
                                                    uint64_t version,
                                                    uint64_t offset,
                                                    uint64_t length) {
  CTXKIT_ASSIGN_OR_RETURN(int64_t number, ObjectNumber(obj));
  return StoreInternals::ReadDurableRange(store, {number, version}, offset,
                                          length);
}

Result<int64_t> ObjectNumber(std::string_view obj) {
  const std::optional<uint64_t> id = core::FromBase36(obj);
  if (!id || *id > INT64_MAX) {
    return Status::Corruption("index.db: bad object id '" + std::string(obj) +
                              "'");
  }
  return static_cast<int64_t>(*id);
}

Result<std::optional<Indexed>> LoadIndexed(SqliteDb* db,
                                           const std::string& obj) {
  CTXKIT_ASSIGN_OR_RETURN(auto q,
                          db->Prepare("SELECT version, key, scope, "
                                      "first_chunk, chunk_count FROM objects "
                                      "WHERE id = ?1"));
  CTXKIT_ASSIGN_OR_RETURN(int64_t number, ObjectNumber(obj));
  q->Bind(1, number);
  CTXKIT_ASSIGN_OR_RETURN(bool row, q->Step());
  if (!row) return std::optional<Indexed>();
  return std::optional<Indexed>(IndexedAt(*q, 0));
}

Result<std::vector<std::optional<Indexed>>> LoadIndexedMany(
    SqliteDb* db, std::span<const int64_t> numbers) {
  std::vector<std::optional<Indexed>> out(numbers.size());
  if (numbers.empty()) return out;
  const auto [lo, hi] = std::minmax_element(numbers.begin(), numbers.end());
  // More rows than this in the range: a lookup each reads fewer.
  const int64_t most = 4 * static_cast<int64_t>(numbers.size());
  std::unordered_map<int64_t, Indexed> rows;
  {
    CTXKIT_ASSIGN_OR_RETURN(
        auto q, db->Prepare("SELECT id, version, key, scope, first_chunk, "
                            "chunk_count FROM objects WHERE id BETWEEN ?1 "
                            "AND ?2 LIMIT ?3"));
    q->Bind(1, *lo).Bind(2, *hi).Bind(3, most + 1);
    while (true) {
      CTXKIT_ASSIGN_OR_RETURN(bool row, q->Step());
      if (!row) break;
      rows.emplace(q->Int(0), IndexedAt(*q, 1));
    }
  }
  for (size_t i = 0; i < numbers.size(); ++i) {
    if (static_cast<int64_t>(rows.size()) > most) {
      CTXKIT_ASSIGN_OR_RETURN(out[i],
                              LoadIndexed(db, core::ToBase36(numbers[i])));
    } else if (auto it = rows.find(numbers[i]); it != rows.end()) {
      out[i] = it->second;
    }
  }
  return out;
}

void CountDeltas::Add(const std::string& scope, int64_t delta) {
  if (delta != 0) deltas_[scope] += delta;
}

Status CountDeltas::Write(SqliteDb* db) {
  for (const auto& [scope, delta] : deltas_) {
    if (delta == 0) continue;
    CTXKIT_ASSIGN_OR_RETURN(
        auto q, db->Prepare("INSERT INTO counts(name, n) VALUES (?1, ?2) "
                            "ON CONFLICT(name) DO UPDATE SET n = n + ?2"));
    CTXKIT_RETURN_IF_ERROR(
        q->BindText(1, "scope:" + scope).Bind(2, delta).Run());
  }
  deltas_.clear();
  if (max_size_ < 0) return Status::Ok();
  CTXKIT_ASSIGN_OR_RETURN(
      auto q, db->Prepare("INSERT INTO counts(name, n) VALUES ('max_size', ?1) "
                          "ON CONFLICT(name) DO UPDATE SET n = max(n, ?1)"));
  CTXKIT_RETURN_IF_ERROR(q->Bind(1, max_size_).Run());
  max_size_ = -1;
  return Status::Ok();
}

Result<int64_t> ChunkIds::Next(SqliteDb* db) {
  if (next_ == 0) {
    CTXKIT_ASSIGN_OR_RETURN(
        auto q,
        db->Prepare("SELECT max(coalesce((SELECT max(id) FROM chunks), 0), "
                    "coalesce((SELECT max(id) FROM orphans), 0))"));
    CTXKIT_ASSIGN_OR_RETURN(bool row, q->Step());
    next_ = (row ? q->Int(0) : 0) + 1;
  }
  return next_;
}

Result<int64_t> MaxIndexedSize(SqliteDb* db) {
  CTXKIT_ASSIGN_OR_RETURN(
      auto q, db->Prepare("SELECT n FROM counts WHERE name = 'max_size'"));
  CTXKIT_ASSIGN_OR_RETURN(bool row, q->Step());
  return row ? q->Int(0) : 0;
}

Status Reconcile(SqliteDb* db, View& view, const Current& current,
                 uint32_t chunk_tokens, CountDeltas* counts, ChunkIds* ids,
                 FindResult* result) {
  const ObjectMeta& m = *current.meta;
  std::optional<Indexed> loaded;
  if (current.have == nullptr) {
    CTXKIT_ASSIGN_OR_RETURN(loaded, LoadIndexed(db, m.id));
  }
  const std::optional<Indexed>& have =
      current.have != nullptr ? *current.have : loaded;
  // Another process indexed a newer version meanwhile: keep it.
  if (have && have->version > m.version) return Status::Ok();
  if (current.removed ||
      (have && have->version != m.version && !current.wanted)) {
    if (!have) return Status::Ok();
    ++result->variables_dropped;
    return DropObjectRows(db, *view.store(), m.id, *have, counts);
  }
  if (have && have->version == m.version) {
    if (have->key == m.key && have->scope == m.scope.ToString()) {
      return Status::Ok();
    }
    return UpdateName(db, m, *have, counts);
  }
  if (!current.wanted) return Status::Ok();
  return Reindex(db, view, current, have ? &*have : nullptr, chunk_tokens,
                 counts, ids, result);
}

}  // namespace ctxkit::index
