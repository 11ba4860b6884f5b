// The parts of the Backend contract (backend.h) that do not depend on how
// an engine stores rows: which version a write makes, where an append
// continues, what a record looks like after it, and the errors every engine
// returns for the same refusal. The SQLite and PostgreSQL engines call
// these inside their transactions, so the two cannot drift apart.

#ifndef CTXKIT_STORAGE_ENGINE_RULES_H_
#define CTXKIT_STORAGE_ENGINE_RULES_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ctxkit/status.h"
#include "storage/backend.h"

namespace ctxkit::storage {

// The version a Put appends to `obj` (its next number). Appendable types
// start a new run of appends (stream_base = the version itself).
VersionRecord PutVersion(const ObjectRecord& obj, const PutRequest& req);

// The tombstone a Remove appends to `obj`.
VersionRecord TombstoneVersion(const ObjectRecord& obj, VersionState state,
                               std::string_view producer, int64_t now_unix_ns);

// Where an append goes: on after the latest version of a live appendable
// object, or a new run (a missing or removed object).
struct AppendPlan {
  bool continues = false;
  ValueType type = ValueType::kStream;
  uint64_t base = 0;    // The run's first version (when it continues).
  uint64_t offset = 0;  // Bytes before the append.
};

// `found`: the object at the request's (scope, key), or nullptr; `latest`:
// its latest version when it is live. FailedPrecondition (VersionMoved)
// when request.expected_version does not hold, or when the latest version
// is not appendable (another type, or a chat written whole by an earlier
// build).
Result<AppendPlan> PlanAppend(const AppendRequest& req,
                              const ObjectRecord* found,
                              const VersionRecord* latest);

// The version an append following `plan` appends to `obj`.
VersionRecord AppendVersion(const ObjectRecord& obj, const AppendRequest& req,
                            const AppendPlan& plan);

// `obj` as it is once the present version `v` is its latest.
void AdvanceRecord(ObjectRecord* obj, const VersionRecord& v);
// `obj` as it is once the tombstone `v` is its latest.
void RemoveRecord(ObjectRecord* obj, const VersionRecord& v);

// OK when `found` (the object at (scope, key), or NotFound) is at version
// `expected` (0: there is none); VersionMoved otherwise.
Status CheckLatest(const Result<ObjectRecord>& found, std::string_view key,
                   uint64_t expected);

// AlreadyExists when `there` (the object at the destination of a move or
// rename, or NotFound) is a live object other than `id`.
Status CheckDestinationFree(const Result<ObjectRecord>& there, int64_t id,
                            const Scope& scope, const std::string& key);

// The NotFound of reading a tombstone's content; OK for a present version.
Status CheckHasContent(const VersionRecord& v);

// The refusals of CollectVersions: the latest version, and part of a run
// of appends whose version `left` would stay behind.
Status LatestIsKept(int64_t object_id, uint64_t version);
Status RunLeftBehind(int64_t object_id, uint64_t left);
// CollectVersions' refusal of a held version (Backend::AddHolds), and
// AddHolds' refusal of a version that is not stored.
Status HeldIsKept(int64_t object_id, uint64_t version);
Status NothingToHold(int64_t object_id, uint64_t version);

// Backend::WriteRecords' checks before anything is written: InvalidArgument
// for an empty kind, name or log name, or one holding NUL.
Status CheckRecordWrite(const RecordWrite& write);
// WriteRecords' refusal of a kCreate put whose record exists.
Status RecordExists(std::string_view kind, std::string_view name);

// A stored VersionState number (0 present, 1 deleted, 2 missing).
VersionState VersionStateFromCode(int64_t code);

// Tags as stored: sorted, without duplicates.
std::vector<std::string> NormalizedTags(std::vector<std::string> tags);

}  // namespace ctxkit::storage

#endif  // CTXKIT_STORAGE_ENGINE_RULES_H_
