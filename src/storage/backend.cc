#include "storage/backend.h"

#include <unistd.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "core/status_macros.h"

namespace ctxkit::storage {

Status VersionMoved(std::string_view key, uint64_t at, uint64_t expected) {
  return Status::FailedPrecondition(
      "'" + std::string(key) + "' is at version " + std::to_string(at) +
      ", not " + std::to_string(expected) + "; another writer came first");
}

Result<std::vector<ObjectRecord>> Backend::FindObjectsCounted(
    std::string_view key, const std::vector<Scope>& scopes, uint64_t* counter) {
  CTXKIT_ASSIGN_OR_RETURN(*counter, ChangeCounter());
  return FindObjects(key, scopes);
}

Result<std::string> Backend::StageFile(int /*fd*/) { return std::string(); }

void Backend::DropStaged(const std::string& path) {
  if (!path.empty()) ::unlink(path.c_str());
}

Result<std::vector<WriteResult>> Backend::PutBatch(
    std::span<const PutRequest> requests) {
  std::vector<WriteResult> out;
  out.reserve(requests.size());
  for (const PutRequest& request : requests) {
    CTXKIT_ASSIGN_OR_RETURN(WriteResult written, Put(request));
    out.push_back(std::move(written));
  }
  return out;
}

Result<std::vector<std::optional<std::string>>> Backend::ReadWhole(
    std::span<const VersionKey> keys) {
  std::vector<std::optional<std::string>> out;
  out.reserve(keys.size());
  for (const VersionKey& key : keys) {
    CTXKIT_ASSIGN_OR_RETURN(std::optional<std::string> content,
                            ReadIfPresent(key, 0, UINT64_MAX));
    out.push_back(std::move(content));
  }
  return out;
}

Result<std::optional<std::string>> Backend::ReadIfPresent(const VersionKey& key,
                                                          uint64_t offset,
                                                          uint64_t length) {
  Result<VersionRecord> v = GetVersion(key.object_id, key.version);
  Status s = v.status();
  if (v.ok() && v->state != VersionState::kPresent) {
    return std::optional<std::string>();  // A tombstone holds no content.
  }
  if (v.ok()) {
    Result<std::string> range = Read(*v, offset, length);
    if (range.ok()) return std::optional<std::string>(std::move(*range));
    s = range.status();
  }
  if (s.code() == StatusCode::kNotFound) return std::optional<std::string>();
  return s;
}

Status Backend::Scan(const VersionRecord& version, uint64_t offset,
                     uint64_t length, uint64_t piece_bytes,
                     const std::function<bool(std::string_view)>& sink) {
  if (offset >= version.size_bytes) return Status::Ok();
  const uint64_t end = offset + std::min(length, version.size_bytes - offset);
  for (uint64_t pos = offset; pos < end;) {
    const uint64_t n = std::min(piece_bytes, end - pos);
    Result<std::string> piece = Read(version, pos, n);
    if (!piece.ok()) return piece.status();
    if (piece->empty()) {
      return Status::Corruption(
          "content of object " + std::to_string(version.object_id) +
          " version " + std::to_string(version.version) + " ends at byte " +
          std::to_string(pos) + " of " + std::to_string(version.size_bytes));
    }
    pos += piece->size();
    if (!sink(*piece)) break;
  }
  return Status::Ok();
}

}  // namespace ctxkit::storage
