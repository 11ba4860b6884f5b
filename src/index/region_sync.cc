#include "index/region_sync.h"

#include <algorithm>
#include <string>

#include "core/status_macros.h"
#include "index/index_rows.h"
#include "store/store_internals.h"

namespace ctxkit::index {

namespace {

using storage::SqliteDb;

// Changes reconciled per write transaction.
constexpr size_t kChangesPerCommit = 2000;

std::string RegionKey(const Region& r) {
  std::string key;
  for (const std::string& s : r.scopes) key += s + '\x1f';
  key += '\n' + r.key_prefix + '\n' + std::to_string(r.max_value_bytes);
  return key;
}

bool Contains(const Region& r, const ObjectMeta& m) {
  return m.key.starts_with(r.key_prefix) &&
         std::binary_search(r.scopes.begin(), r.scopes.end(),
                            m.scope.ToString());
}

Result<uint64_t> ReadStamp(SqliteDb* db, const std::string& region) {
  CTXKIT_ASSIGN_OR_RETURN(
      auto q, db->Prepare("SELECT stamp FROM regions WHERE region = ?1"));
  q->BindText(1, region);
  CTXKIT_ASSIGN_OR_RETURN(bool row, q->Step());
  return row ? static_cast<uint64_t>(q->Int(0)) : 0;
}

Status WriteStamp(SqliteDb* db, const std::string& region, uint64_t stamp) {
  CTXKIT_ASSIGN_OR_RETURN(
      auto q, db->Prepare("INSERT OR REPLACE INTO regions(region, stamp) "
                          "VALUES (?1, ?2)"));
  return q->BindText(1, region).Bind(2, static_cast<int64_t>(stamp)).Run();
}

// Reconciles one page of changes after the region's stamp under the write
// lock; `more` is set when the page was full.
Status CatchUpPage(SqliteDb* db, View& view, const Region& region,
                   const std::string& key, uint32_t chunk_tokens,
                   FindResult* result, bool* more) {
  storage::WriteTransaction tx(db);
  CTXKIT_RETURN_IF_ERROR(tx.Begin());
  // Re-read under the lock: another process may have caught up meanwhile.
  CTXKIT_ASSIGN_OR_RETURN(uint64_t stamp, ReadStamp(db, key));
  CTXKIT_ASSIGN_OR_RETURN(
      std::vector<ChangedMeta> page,
      StoreInternals::DurableChanges(*view.store(), stamp, kChangesPerCommit));
  *more = page.size() == kChangesPerCommit;
  if (page.empty()) return tx.Commit();
  result->changes_read += page.size();
  for (const ChangedMeta& c : page) {
    const bool inside = Contains(region, c.meta);
    const bool fits = c.meta.size_bytes <= region.max_value_bytes;
    if (inside && !fits && !c.removed) {
      result->skipped.push_back(
          {c.meta.key, "larger than " + std::to_string(region.max_value_bytes) +
                           " bytes: not indexed"});
    }
    CTXKIT_RETURN_IF_ERROR(
        Reconcile(db, view, Current{&c.meta, c.removed, inside && fits},
                  chunk_tokens, result));
  }
  CTXKIT_RETURN_IF_ERROR(WriteStamp(db, key, page.back().stamp));
  return tx.Commit();
}

}  // namespace

Result<Region> RegionOf(const View& view, const FindOptions& options) {
  Region r;
  if (options.scope.empty()) {
    // Every scope the view sees, as View::List lists them.
    r.scopes.push_back(Scope::Global().ToString());
    if (!view.agent_id().empty()) {
      r.scopes.push_back(Scope::Agent(view.agent_id()).ToString());
    }
    if (!view.session_id().empty()) {
      r.scopes.push_back(Scope::Session(view.session_id()).ToString());
    }
  } else {
    CTXKIT_ASSIGN_OR_RETURN(
        Scope one,
        ResolveScopeName(options.scope, view.agent_id(), view.session_id()));
    r.scopes.push_back(one.ToString());
  }
  std::sort(r.scopes.begin(), r.scopes.end());
  r.key_prefix = options.key_prefix;
  r.max_value_bytes = options.max_value_bytes;
  return r;
}

Status CatchUp(SqliteDb* db, View& view, const Region& region,
               uint32_t chunk_tokens, FindResult* result) {
  const std::string key = RegionKey(region);
  // Up to date: one row read from each database, no write lock.
  CTXKIT_ASSIGN_OR_RETURN(uint64_t stamp, ReadStamp(db, key));
  CTXKIT_ASSIGN_OR_RETURN(
      std::vector<ChangedMeta> next,
      StoreInternals::DurableChanges(*view.store(), stamp, 1));
  if (next.empty()) return Status::Ok();
  // A page writes a few thousand variables in one transaction: with
  // SQLite's default 2 MB cache its pages spill to the WAL repeatedly. The
  // default comes back for the query (FTS5's rank sort measured ~25%
  // slower with the larger cache).
  CTXKIT_RETURN_IF_ERROR(db->Exec("PRAGMA cache_size=-65536"));
  bool more = true;
  Status s;
  while (more && s.ok()) {
    s = CatchUpPage(db, view, region, key, chunk_tokens, result, &more);
  }
  Status restored = db->Exec("PRAGMA cache_size=-2000");
  return s.ok() ? restored : s;
}

}  // namespace ctxkit::index
