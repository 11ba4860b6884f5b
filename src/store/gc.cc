// Garbage collection of superseded durable versions (Store::CollectGarbage).
//
// The planner scans every version through the durable engine, object by
// object, decides which versions may go (never one the engine holds for a
// session or manifest, nor one the caller names), and hands them to
// Backend::CollectVersions in batches that never split an object (so a run
// of appends is always collected in one transaction). The engine refuses a
// batch with a version held since it was planned; the batch is planned
// again.

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "core/clock.h"
#include "core/encoding.h"
#include "core/progress_meter.h"
#include "core/status_macros.h"
#include "store/store_impl.h"
#include "store/store_internals.h"

namespace ctxkit {
namespace {

constexpr size_t kScanPage = 2048;
constexpr size_t kCollectBatch = 512;

using KeepSet = std::set<storage::VersionKey>;

// What the caller names and what the engine holds (Backend::ListHeld).
Result<KeepSet> KeepSetOf(storage::Backend& backend,
                          const std::vector<Ref>& refs) {
  std::vector<storage::VersionKey> named =
      StoreInternals::DurableVersionsOf(refs);
  KeepSet keep(named.begin(), named.end());
  CTXKIT_ASSIGN_OR_RETURN(std::vector<storage::VersionKey> held,
                          backend.ListHeld());
  keep.insert(held.begin(), held.end());
  return keep;
}

// The bytes a version stored itself: all of a whole value, the appended
// part of a version in a run of appends.
uint64_t OwnBytes(const std::vector<storage::VersionRecord>& versions,
                  size_t i) {
  const storage::VersionRecord& v = versions[i];
  if (v.state != VersionState::kPresent) return 0;
  if (v.stream_base == 0 || v.stream_base == v.version || i == 0) {
    return v.size_bytes;
  }
  return v.size_bytes - std::min(v.size_bytes, versions[i - 1].size_bytes);
}

// Which versions of one object (all of them, in version order) go.
struct ObjectPlan {
  std::vector<size_t> collect;  // Indexes into the versions.
  uint64_t kept_by_ref = 0;
};

ObjectPlan PlanObject(const std::vector<storage::VersionRecord>& versions,
                      const KeepSet& keep, int64_t cutoff_ns) {
  ObjectPlan plan;
  const size_t n = versions.size();
  std::vector<bool> go(n, false);
  // Never the latest; otherwise by the age of the version after it.
  for (size_t i = 0; i + 1 < n; ++i) {
    if (versions[i + 1].created_unix_ns >= cutoff_ns) continue;
    if (keep.count({versions[i].object_id, versions[i].version})) {
      ++plan.kept_by_ref;
      continue;
    }
    go[i] = true;
  }
  // A run of appends goes whole or not at all.
  std::map<uint64_t, bool> run_goes;
  for (size_t i = 0; i < n; ++i) {
    const uint64_t base = versions[i].stream_base;
    if (base == 0) continue;
    auto [it, fresh] = run_goes.try_emplace(base, true);
    it->second = it->second && go[i];
  }
  for (size_t i = 0; i < n; ++i) {
    const uint64_t base = versions[i].stream_base;
    if (base != 0 && !run_goes[base]) go[i] = false;
    if (go[i]) plan.collect.push_back(i);
  }
  return plan;
}

void AddToRow(const Scope& scope, ValueType type, uint64_t bytes,
              std::vector<GarbageRow>* rows) {
  auto row = std::find_if(rows->begin(), rows->end(), [&](const GarbageRow& r) {
    return r.scope == scope && r.type == type;
  });
  if (row == rows->end()) {
    rows->push_back({scope, type, 0, 0});
    row = rows->end() - 1;
  }
  ++row->versions;
  row->bytes += bytes;
}

// Planned objects waiting for one CollectVersions call.
struct GcBatch {
  std::vector<std::vector<storage::VersionRecord>> objects;
  std::vector<ObjectPlan> plans;
  size_t keys = 0;
};

}  // namespace

Result<GarbageReport> StoreImpl::CollectGarbage(const GarbageOptions& options) {
  if (options.retention_seconds < 0) {
    return Status::InvalidArgument("gc retention must not be negative");
  }
  CTXKIT_ASSIGN_OR_RETURN(bool pending, backend_->HoldsPending());
  if (pending) {
    return Status::FailedPrecondition(
        "gc: this store holds sessions or manifests written by an earlier "
        "ctxkit, and what they name is not recorded yet; run `ctxkit gc` "
        "(or collect from Python or the MCP server) once, which records it");
  }
  const int64_t cutoff =
      core::NowUnixNanos() - options.retention_seconds * 1'000'000'000;
  CTXKIT_ASSIGN_OR_RETURN(KeepSet keep, KeepSetOf(*backend_, options.keep));
  GarbageReport report;
  report.applied = options.apply;
  GcBatch batch;
  std::vector<storage::VersionRecord> object;  // One object's versions.

  // Counts a planned object into the report.
  auto count = [&](const std::vector<storage::VersionRecord>& versions,
                   const ObjectPlan& p) -> Status {
    report.kept_by_ref += p.kept_by_ref;
    if (p.collect.empty()) return Status::Ok();
    CTXKIT_ASSIGN_OR_RETURN(storage::ObjectRecord record,
                            backend_->GetObject(versions.front().object_id));
    for (size_t i : p.collect) {
      const uint64_t bytes = OwnBytes(versions, i);
      AddToRow(record.scope, versions[i].type, bytes, &report.rows);
      ++report.versions;
      report.bytes += bytes;
    }
    return Status::Ok();
  };
  // Collects the batch. A version held since it was planned (a session
  // pinned it meanwhile) makes the engine refuse the whole batch: plan it
  // again with the holds as they are now, and retry.
  auto flush = [&]() -> Status {
    if (batch.keys == 0) {
      for (size_t i = 0; i < batch.objects.size(); ++i) {
        CTXKIT_RETURN_IF_ERROR(count(batch.objects[i], batch.plans[i]));
      }
      batch = GcBatch();
      return Status::Ok();
    }
    constexpr int kAttempts = 16;
    for (int attempt = 1;; ++attempt) {
      std::vector<storage::VersionKey> keys;
      for (size_t i = 0; i < batch.objects.size(); ++i) {
        for (size_t v : batch.plans[i].collect) {
          keys.push_back(
              {batch.objects[i][v].object_id, batch.objects[i][v].version});
        }
      }
      // A dry run measures the same batch: what applying it would free.
      Result<storage::CollectReport> done =
          keys.empty()    ? storage::CollectReport()
          : options.apply ? backend_->CollectVersions(keys)
                          : backend_->MeasureCollect(keys);
      if (done.ok()) {
        report.freed_bytes += done->bytes;
        report.blob_files += done->blob_files;
        break;
      }
      if (done.status().code() != StatusCode::kFailedPrecondition) {
        return done.status();
      }
      if (attempt == kAttempts) {
        return Status::Unavailable(
            "gc: sessions kept holding versions it had planned to collect (" +
            std::string(done.status().message()) + "); try again");
      }
      CTXKIT_ASSIGN_OR_RETURN(keep, KeepSetOf(*backend_, options.keep));
      for (size_t i = 0; i < batch.objects.size(); ++i) {
        batch.plans[i] = PlanObject(batch.objects[i], keep, cutoff);
      }
    }
    for (size_t i = 0; i < batch.objects.size(); ++i) {
      CTXKIT_RETURN_IF_ERROR(count(batch.objects[i], batch.plans[i]));
    }
    batch = GcBatch();
    if (options.apply) ForgetCachedVersions();
    return Status::Ok();
  };
  auto plan = [&]() -> Status {
    if (object.empty()) return Status::Ok();
    ObjectPlan p = PlanObject(object, keep, cutoff);
    batch.keys += p.collect.size();
    batch.plans.push_back(std::move(p));
    batch.objects.push_back(std::move(object));
    object.clear();
    return batch.keys >= kCollectBatch || batch.objects.size() >= kScanPage
               ? flush()
               : Status::Ok();
  };

  // The number of versions is not known without a scan of its own, so
  // the reports count without a total.
  core::ProgressMeter meter(
      options.progress, options.apply ? "collecting" : "checking", "versions");
  storage::VersionKey after;
  while (true) {
    CTXKIT_ASSIGN_OR_RETURN(std::vector<storage::VersionRecord> page,
                            backend_->ScanVersions(after, kScanPage));
    if (page.empty()) break;
    for (storage::VersionRecord& v : page) {
      ++report.versions_scanned;
      if (!object.empty() && object.front().object_id != v.object_id) {
        CTXKIT_RETURN_IF_ERROR(plan());
      }
      object.push_back(std::move(v));
    }
    after = {object.back().object_id, object.back().version};
    meter.Reach(report.versions_scanned);
  }
  CTXKIT_RETURN_IF_ERROR(plan());
  CTXKIT_RETURN_IF_ERROR(flush());
  std::sort(
      report.rows.begin(), report.rows.end(),
      [](const GarbageRow& a, const GarbageRow& b) {
        return std::make_pair(a.scope.ToString(), static_cast<int>(a.type)) <
               std::make_pair(b.scope.ToString(), static_cast<int>(b.type));
      });
  return report;
}

void StoreImpl::ForgetCachedVersions() {
  memory_.ClearCache();
  core::MutexLock lock(&mu_);
  versions_.clear();
  records_.clear();
  ref_memo_.clear();
}

}  // namespace ctxkit
