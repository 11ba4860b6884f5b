#include "index/region_sync.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/progress_meter.h"
#include "core/status_macros.h"
#include "index/index_db.h"
#include "index/index_rows.h"
#include "store/store_internals.h"

namespace ctxkit::index {

namespace {

using storage::SqliteDb;

// Changes reconciled per write transaction.
constexpr size_t kChangesPerCommit = 10000;

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

// Values up to this size are read ahead, many in one store transaction
// (storage::Backend::ReadWhole), instead of one read per value through the
// view; at most kReadAheadBatch bytes of them at once.
constexpr uint64_t kReadAheadBytes = 64 << 10;
constexpr uint64_t kReadAheadBatch = 16 << 20;

// Progress through the change feed, counted in changes read. The feed's
// stamps say how far it is to the newest change when the work started,
// but not how many changes lie between (a stamp may count several writes
// of one object), so the total is estimated from the changes per stamp
// seen so far.
class FeedProgress {
 public:
  static Result<FeedProgress> Start(View& view, const ProgressOptions& options,
                                    std::string_view task, uint64_t from) {
    uint64_t latest = 0;
    if (options.report) {
      CTXKIT_ASSIGN_OR_RETURN(latest,
                              StoreInternals::LatestChange(*view.store()));
    }
    return FeedProgress(options, task, from, latest);
  }
  // One more change read, at `stamp`.
  void Read(uint64_t stamp) {
    ++read_;
    if (stamp > from_ && latest_ >= stamp) {
      const double per_stamp =
          static_cast<double>(read_) / static_cast<double>(stamp - from_);
      meter_->SetTotal(
          read_ + static_cast<uint64_t>(per_stamp * (latest_ - stamp) + 0.5));
    }
    meter_->Reach(read_);
  }

 private:
  FeedProgress(const ProgressOptions& options, std::string_view task,
               uint64_t from, uint64_t latest)
      : meter_(std::make_unique<core::ProgressMeter>(options, task, "changes")),
        from_(from),
        latest_(latest) {}

  std::unique_ptr<core::ProgressMeter> meter_;
  uint64_t from_;
  uint64_t latest_;
  uint64_t read_ = 0;
};

// Whether the region wants the change indexed: present, inside it and
// within its size limit.
bool Wanted(const Region& r, const ChangedMeta& c) {
  return !c.removed && Contains(r, c.meta) &&
         c.meta.size_bytes <= r.max_value_bytes;
}

// Reconciles a run of a page's changes, the small values it must index
// read ahead: wanted, and not indexed at their version already (another
// region's call may have done it).
Status ReconcileRun(SqliteDb* db, View& view, const Region& region,
                    std::span<const ChangedMeta> run, uint32_t chunk_tokens,
                    CountDeltas* counts, FindResult* result,
                    FeedProgress& progress) {
  std::vector<std::optional<Indexed>> haves;
  haves.reserve(run.size());
  for (const ChangedMeta& c : run) {
    CTXKIT_ASSIGN_OR_RETURN(std::optional<Indexed> have,
                            LoadIndexed(db, c.meta.id));
    haves.push_back(std::move(have));
  }
  auto read_ahead = [&](size_t i) {
    const ChangedMeta& c = run[i];
    return Wanted(region, c) && c.meta.size_bytes <= kReadAheadBytes &&
           !(haves[i] && haves[i]->version >= c.meta.version);
  };
  std::vector<storage::VersionKey> keys;
  for (size_t i = 0; i < run.size(); ++i) {
    if (read_ahead(i)) keys.push_back({run[i].object_id, run[i].meta.version});
  }
  // When the batch read fails (one damaged value), each value is read
  // through the view instead, which reports the bad one in `skipped`.
  Result<std::vector<std::optional<std::string>>> contents =
      StoreInternals::ReadDurable(*view.store(), keys);
  size_t next = 0;
  for (size_t i = 0; i < run.size(); ++i) {
    const ChangedMeta& c = run[i];
    const bool wanted = Wanted(region, c);
    if (Contains(region, c.meta) && !c.removed && !wanted) {
      result->skipped.push_back(
          {c.meta.key, "larger than " + std::to_string(region.max_value_bytes) +
                           " bytes: not indexed"});
    }
    Current current{&c.meta, c.removed, wanted};
    current.have = &haves[i];
    if (contents.ok() && read_ahead(i)) current.content = &(*contents)[next++];
    CTXKIT_RETURN_IF_ERROR(
        Reconcile(db, view, current, chunk_tokens, counts, result));
    progress.Read(c.stamp);
  }
  return Status::Ok();
}

// Reconciles one page of changes after the region's stamp under the write
// lock; `more` is set when the page was full.
Status CatchUpPage(SqliteDb* db, View& view, const Region& region,
                   const std::string& key, uint32_t chunk_tokens,
                   FindResult* result, FeedProgress& progress, bool* more) {
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
  // Runs of changes whose read-ahead values total about kReadAheadBatch.
  CountDeltas counts;
  size_t begin = 0;
  while (begin < page.size()) {
    size_t end = begin;
    uint64_t bytes = 0;
    while (end < page.size() && bytes < kReadAheadBatch) {
      const ChangedMeta& c = page[end++];
      if (Wanted(region, c) && c.meta.size_bytes <= kReadAheadBytes) {
        bytes += c.meta.size_bytes;
      }
    }
    CTXKIT_RETURN_IF_ERROR(ReconcileRun(
        db, view, region, std::span(page).subspan(begin, end - begin),
        chunk_tokens, &counts, result, progress));
    begin = end;
  }
  CTXKIT_RETURN_IF_ERROR(counts.Write(db));
  CTXKIT_RETURN_IF_ERROR(WriteStamp(db, key, page.back().stamp));
  return tx.Commit();
}

// Whether orphans (index_db.cc) are worth a rebuild: at least
// kMinOrphans and over a tenth of the chunks. Each costs whole-index
// queries a lookup and skews BM25's statistics.
constexpr int64_t kMinOrphans = 64;

Result<bool> TooManyOrphans(SqliteDb* db) {
  CTXKIT_ASSIGN_OR_RETURN(auto q, db->Prepare("SELECT count(*) FROM orphans"));
  CTXKIT_ASSIGN_OR_RETURN(bool row, q->Step());
  const int64_t orphans = row ? q->Int(0) : 0;
  if (orphans < kMinOrphans) return false;
  CTXKIT_ASSIGN_OR_RETURN(auto c, db->Prepare("SELECT count(*) FROM chunks"));
  CTXKIT_ASSIGN_OR_RETURN(row, c->Step());
  return orphans * 10 > (row ? c->Int(0) : 0);
}

// Reconciles pages until the region is caught up.
Status CatchUpPages(SqliteDb* db, View& view, const Region& region,
                    const std::string& key, uint32_t chunk_tokens,
                    FindResult* result, FeedProgress& progress) {
  bool more = true;
  while (more) {
    CTXKIT_RETURN_IF_ERROR(CatchUpPage(db, view, region, key, chunk_tokens,
                                       result, progress, &more));
  }
  return Status::Ok();
}

// Empties the index when orphans are too many; the region is then built
// again from the start of the change feed.
Status RebuildIfOrphaned(SqliteDb* db, View& view, const Region& region,
                         const std::string& key, uint32_t chunk_tokens,
                         FindResult* result,
                         const ProgressOptions& progress_options) {
  CTXKIT_ASSIGN_OR_RETURN(bool rebuild, TooManyOrphans(db));
  if (!rebuild) return Status::Ok();
  storage::WriteTransaction tx(db);
  CTXKIT_RETURN_IF_ERROR(tx.Begin());
  CTXKIT_ASSIGN_OR_RETURN(rebuild, TooManyOrphans(db));  // Under the lock.
  if (rebuild) CTXKIT_RETURN_IF_ERROR(ClearIndex(db));
  CTXKIT_RETURN_IF_ERROR(tx.Commit());
  if (!rebuild) return Status::Ok();
  CTXKIT_ASSIGN_OR_RETURN(
      FeedProgress progress,
      FeedProgress::Start(view, progress_options, "rebuilding the index", 0));
  return CatchUpPages(db, view, region, key, chunk_tokens, result, progress);
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
               uint32_t chunk_tokens, const ProgressOptions& progress_options,
               FindResult* result) {
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
  CTXKIT_ASSIGN_OR_RETURN(
      std::optional<FeedProgress> progress,
      FeedProgress::Start(view, progress_options, "indexing", stamp));
  CTXKIT_RETURN_IF_ERROR(db->Exec("PRAGMA cache_size=-65536"));
  Status s =
      CatchUpPages(db, view, region, key, chunk_tokens, result, *progress);
  progress.reset();  // Finishes its reports before a rebuild starts its own.
  if (s.ok()) {
    s = RebuildIfOrphaned(db, view, region, key, chunk_tokens, result,
                          progress_options);
  }
  Status restored = db->Exec("PRAGMA cache_size=-2000");
  return s.ok() ? restored : s;
}

}  // namespace ctxkit::index
