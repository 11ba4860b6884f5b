// The rows index.db keeps for one variable (docs/index.md): its `objects`
// row, its chunks and their text, and how FindRelevant brings them in line
// with the variable's current metadata.

#ifndef CTXKIT_INDEX_INDEX_ROWS_H_
#define CTXKIT_INDEX_INDEX_ROWS_H_

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ctxkit/index.h"
#include "ctxkit/store.h"
#include "os/sqlite_db.h"

namespace ctxkit::index {

// What index.db holds for a variable.
struct Indexed {
  uint64_t version = 0;
  std::string key;
  std::string scope;
  // Its chunks' ids: first_chunk .. first_chunk + chunk_count - 1.
  int64_t first_chunk = 0;
  int64_t chunk_count = 0;
};

// [offset, offset + length) of version `version` of the indexed variable
// `obj` (an ObjectMeta::id), read from the store, or nullopt when that
// version is gone: chunk_text keeps no copy of the text (index_db.cc).
Result<std::optional<std::string>> ReadIndexedRange(Store& store,
                                                    const std::string& obj,
                                                    uint64_t version,
                                                    uint64_t offset,
                                                    uint64_t length);

Result<std::optional<Indexed>> LoadIndexed(storage::SqliteDb* db,
                                           const std::string& obj);

// What index.db holds for each object numbered in `numbers`, in order: one
// scan of their range of numbers when it holds few other rows (a first
// build: none), else a lookup each.
Result<std::vector<std::optional<Indexed>>> LoadIndexedMany(
    storage::SqliteDb* db, std::span<const int64_t> numbers);

// The object number index.db keys `obj` (an ObjectMeta::id) by.
Result<int64_t> ObjectNumber(std::string_view obj);

// The variable's current state, as FindRelevant sees it.
struct Current {
  const ObjectMeta* meta = nullptr;
  bool removed = false;  // Its latest version is a tombstone.
  // The call wants it indexed: covered, persistent and within the size
  // limit. A variable that is not wanted keeps rows of its current version
  // (a call with a larger limit made them; calls filter by size) but loses
  // rows of an older one.
  bool wanted = false;
  // Its content at meta->version when the caller read it ahead (region
  // sync reads a page's small values together), nullopt when that version
  // is gone; nullptr: Reconcile reads it through the view.
  const std::optional<std::string>* content = nullptr;
  // What index.db holds for it, when the caller looked it up already
  // (LoadIndexed); nullptr: Reconcile looks it up.
  const std::optional<Indexed>* have = nullptr;
};

// Changes to the kept per-scope row counts and to the largest size indexed
// (the `counts` table), gathered over a transaction and written once before
// it commits (an upsert per variable was ~5% of an index build).
class CountDeltas {
 public:
  void Add(const std::string& scope, int64_t delta);
  // A row of a value of `size` bytes was written.
  void NoteSize(int64_t size) { max_size_ = std::max(max_size_, size); }
  // Adds the gathered changes to `counts` and forgets them.
  Status Write(storage::SqliteDb* db);

 private:
  std::map<std::string, int64_t> deltas_;
  int64_t max_size_ = -1;  // -1: no row written.
};

// Chunk ids for one write transaction: above every chunk's and every
// orphan's (so no FTS5 rowid is reused while its row may remain), read
// once, then counted up in memory (a query per variable was ~3% of a
// build). A variable's chunks take consecutive ids.
class ChunkIds {
 public:
  // The id the next chunk written takes.
  Result<int64_t> Next(storage::SqliteDb* db);
  // `n` ids from Next() on were used (or lost to a rollback: gaps are
  // harmless).
  void Took(int64_t n) { next_ += n; }

 private:
  int64_t next_ = 0;  // 0: not read yet.
};

// The largest size of a value with an objects row, or above it: the
// `max_size` of `counts`, which only a rebuild lowers (0 when empty).
Result<int64_t> MaxIndexedSize(storage::SqliteDb* db);

// Brings the variable's rows in line with `current`: removed -> rows
// dropped; wanted and stale -> re-chunked at meta->version; current
// version already indexed -> renamed when promotion or rename moved it;
// older version indexed and not wanted -> dropped. Counts the work in
// `result`, and the rows it adds or drops per scope in `counts`, which the
// caller writes before it commits; new chunks take `ids` (one per
// transaction). Runs inside the caller's write transaction.
// A value that cannot be read now (removed meanwhile, a capability problem) is
// reported in result->skipped, not failed; an I/O error fails.
Status Reconcile(storage::SqliteDb* db, View& view, const Current& current,
                 uint32_t chunk_tokens, CountDeltas* counts, ChunkIds* ids,
                 FindResult* result);

}  // namespace ctxkit::index

#endif  // CTXKIT_INDEX_INDEX_ROWS_H_
