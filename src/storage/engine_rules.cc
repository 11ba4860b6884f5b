#include "storage/engine_rules.h"

#include <algorithm>
#include <string>

#include "core/encoding.h"
#include "core/status_macros.h"

namespace ctxkit::storage {

VersionRecord PutVersion(const ObjectRecord& obj, const PutRequest& req) {
  VersionRecord v;
  v.object_id = obj.id;
  v.version = obj.latest_version + 1;
  v.type = req.type;
  v.hash = req.hash;
  v.size_bytes = req.content.size();
  v.created_unix_ns = req.now_unix_ns;
  v.producer = req.producer;
  v.tokens = req.tokens;
  if (IsAppendableType(req.type)) v.stream_base = v.version;
  return v;
}

VersionRecord TombstoneVersion(const ObjectRecord& obj, VersionState state,
                               std::string_view producer, int64_t now_unix_ns) {
  VersionRecord v;
  v.object_id = obj.id;
  v.version = obj.latest_version + 1;
  v.state = state;
  v.type = obj.type;
  v.created_unix_ns = now_unix_ns;
  v.producer = std::string(producer);
  return v;
}

Result<AppendPlan> PlanAppend(const AppendRequest& req,
                              const ObjectRecord* found,
                              const VersionRecord* latest) {
  const uint64_t at = found != nullptr ? found->latest_version : 0;
  if (req.expected_version != 0 && at != req.expected_version) {
    return VersionMoved(req.key, at, req.expected_version);
  }
  AppendPlan plan;
  plan.type = req.type;
  plan.continues = found != nullptr && !found->deleted;
  if (!plan.continues) return plan;
  if (latest == nullptr) {
    return Status::Internal("PlanAppend: a live object without its version");
  }
  if (!IsAppendableType(latest->type) || latest->stream_base == 0) {
    return Status::FailedPrecondition(
        "'" + req.key + "' holds a " +
        std::string(ValueTypeName(latest->type)) +
        (IsAppendableType(latest->type)
             ? " value written whole by an earlier build; set it again "
               "before appending"
             : " value; append works only on streams and chats"));
  }
  plan.type = latest->type;
  plan.base = latest->stream_base;
  plan.offset = latest->size_bytes;
  return plan;
}

VersionRecord AppendVersion(const ObjectRecord& obj, const AppendRequest& req,
                            const AppendPlan& plan) {
  VersionRecord v;
  v.object_id = obj.id;
  v.version = obj.latest_version + 1;
  v.type = plan.type;
  v.hash = req.hash;
  v.size_bytes = plan.offset + req.bytes.size();
  v.created_unix_ns = req.now_unix_ns;
  v.producer = req.producer;
  v.stream_base = plan.continues ? plan.base : v.version;
  return v;
}

void AdvanceRecord(ObjectRecord* obj, const VersionRecord& v) {
  obj->type = v.type;
  obj->latest_version = v.version;
  obj->deleted = false;
  obj->size_bytes = v.size_bytes;
  obj->updated_unix_ns = v.created_unix_ns;
  obj->tokens = v.tokens;
}

void RemoveRecord(ObjectRecord* obj, const VersionRecord& v) {
  obj->latest_version = v.version;
  obj->deleted = true;
  obj->tokens.reset();
  obj->updated_unix_ns = v.created_unix_ns;
}

Status CheckLatest(const Result<ObjectRecord>& found, std::string_view key,
                   uint64_t expected) {
  if (!found.ok() && !found.status().IsNotFound()) return found.status();
  const uint64_t at = found.ok() ? found->latest_version : 0;
  if (at != expected) return VersionMoved(key, at, expected);
  return Status::Ok();
}

Status CheckDestinationFree(const Result<ObjectRecord>& there, int64_t id,
                            const Scope& scope, const std::string& key) {
  if (!there.ok() && !there.status().IsNotFound()) return there.status();
  if (there.ok() && !there->deleted && there->id != id) {
    return Status::AlreadyExists("'" + key + "' already exists in " +
                                 scope.ToString());
  }
  return Status::Ok();
}

Status CheckHasContent(const VersionRecord& v) {
  if (v.state == VersionState::kPresent) return Status::Ok();
  return Status::NotFound("version " + std::to_string(v.version) +
                          " holds no content (" +
                          std::string(VersionStateName(v.state)) + ")");
}

Status LatestIsKept(int64_t object_id, uint64_t version) {
  return Status::InvalidArgument("version " + std::to_string(version) +
                                 " of object " + std::to_string(object_id) +
                                 " is its latest; garbage collection keeps it");
}

Status RunLeftBehind(int64_t object_id, uint64_t left) {
  return Status::FailedPrecondition(
      "collecting part of a run of appends of object " +
      std::to_string(object_id) + " would leave version " +
      std::to_string(left) + " without its earlier chunks");
}

Status HeldIsKept(int64_t object_id, uint64_t version) {
  return Status::FailedPrecondition(
      "version " + std::to_string(version) + " of object " +
      std::to_string(object_id) +
      " is held (a session, context or manifest names it); garbage "
      "collection keeps it");
}

namespace {

Status CheckRecordName(std::string_view what, std::string_view name) {
  if (name.empty() || name.find('\0') != std::string_view::npos) {
    return Status::InvalidArgument("record " + std::string(what) +
                                   " must be non-empty text without NUL");
  }
  return Status::Ok();
}

}  // namespace

Status CheckRecordWrite(const RecordWrite& write) {
  for (const RecordPut& put : write.puts) {
    CTXKIT_RETURN_IF_ERROR(CheckRecordName("kind", put.kind));
    CTXKIT_RETURN_IF_ERROR(CheckRecordName("name", put.name));
  }
  for (const RecordKey& key : write.removes) {
    CTXKIT_RETURN_IF_ERROR(CheckRecordName("kind", key.kind));
    CTXKIT_RETURN_IF_ERROR(CheckRecordName("name", key.name));
  }
  for (const LogAppend& append : write.appends) {
    CTXKIT_RETURN_IF_ERROR(CheckRecordName("log", append.log));
  }
  return Status::Ok();
}

Status RecordExists(std::string_view kind, std::string_view name) {
  return Status::FailedPrecondition("a " + std::string(kind) + " record '" +
                                    std::string(name) + "' exists already");
}

Status NothingToHold(int64_t object_id, uint64_t version) {
  // The object as refs name it (ck:<id>:...), not the engine's number.
  return Status::NotFound(
      "version " + std::to_string(version) +
      " of object ck:" + core::ToBase36(static_cast<uint64_t>(object_id)) +
      " is gone (garbage collection removed it) or was never written");
}

VersionState VersionStateFromCode(int64_t code) {
  return code == 1   ? VersionState::kDeleted
         : code == 2 ? VersionState::kMissing
                     : VersionState::kPresent;
}

std::vector<std::string> NormalizedTags(std::vector<std::string> tags) {
  std::sort(tags.begin(), tags.end());
  tags.erase(std::unique(tags.begin(), tags.end()), tags.end());
  return tags;
}

}  // namespace ctxkit::storage
