#include "postgres/pg_gc.h"

#include <algorithm>
#include <utility>

#include "core/status_macros.h"
#include "postgres/pg_contents.h"
#include "storage/engine_rules.h"

namespace ctxkit::storage {
namespace {

// Deletes one version (and its chunk); the contents they referenced go to
// `contents`, the run of appends it belonged to to `runs`.
Result<bool> DeleteVersion(PgConn* conn, const VersionKey& key,
                           std::vector<int64_t>* contents,
                           std::vector<std::pair<int64_t, uint64_t>>* runs) {
  CTXKIT_ASSIGN_OR_RETURN(
      PgRows latest,
      conn->Exec("SELECT latest_version FROM ctxkit_objects WHERE id = $1",
                 PgParams().Int(key.object_id)));
  const uint64_t at =
      latest.empty() ? 0 : static_cast<uint64_t>(latest.Int(0, 0));
  if (at != 0 && key.version >= at) {
    return LatestIsKept(key.object_id, key.version);
  }
  PgParams p;
  p.Int(key.object_id).Int(static_cast<int64_t>(key.version));
  CTXKIT_ASSIGN_OR_RETURN(
      PgRows gone,
      conn->Exec("DELETE FROM ctxkit_versions WHERE object_id = $1 AND "
                 "version = $2 RETURNING stream_base, content_id",
                 p));
  if (gone.empty()) return false;
  if (!gone.IsNull(0, 1)) contents->push_back(gone.Int(0, 1));
  const auto base = static_cast<uint64_t>(gone.Int(0, 0));
  if (base == 0) return true;
  runs->emplace_back(key.object_id, base);
  CTXKIT_ASSIGN_OR_RETURN(
      PgRows chunk,
      conn->Exec("DELETE FROM ctxkit_chunks WHERE object_id = $1 AND "
                 "version = $2 RETURNING content_id",
                 p));
  if (!chunk.empty()) contents->push_back(chunk.Int(0, 0));
  return true;
}

template <typename T>
void SortUnique(std::vector<T>* v) {
  std::sort(v->begin(), v->end());
  v->erase(std::unique(v->begin(), v->end()), v->end());
}

}  // namespace

Result<CollectReport> PgCollect(PgConn* conn,
                                const std::vector<VersionKey>& keys) {
  CollectReport report;
  std::vector<std::pair<int64_t, uint64_t>> runs;
  std::vector<int64_t> contents;
  for (const VersionKey& key : keys) {
    CTXKIT_ASSIGN_OR_RETURN(bool deleted,
                            DeleteVersion(conn, key, &contents, &runs));
    if (deleted) ++report.versions;
  }
  SortUnique(&runs);
  for (const auto& [object_id, base] : runs) {
    CTXKIT_ASSIGN_OR_RETURN(
        PgRows left,
        conn->Exec("SELECT version FROM ctxkit_versions WHERE object_id = $1 "
                   "AND stream_base = $2 LIMIT 1",
                   PgParams().Int(object_id).Int(static_cast<int64_t>(base))));
    if (!left.empty()) {
      return RunLeftBehind(object_id, static_cast<uint64_t>(left.Int(0, 0)));
    }
  }
  SortUnique(&contents);
  for (int64_t id : contents) {
    CTXKIT_ASSIGN_OR_RETURN(uint64_t freed, PgDropContentIfUnused(conn, id));
    report.bytes += freed;
  }
  CTXKIT_ASSIGN_OR_RETURN(auto orphans, PgDropOrphanContents(conn));
  report.bytes += orphans.second;
  return report;
}

}  // namespace ctxkit::storage
