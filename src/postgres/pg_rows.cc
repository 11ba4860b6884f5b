#include "postgres/pg_rows.h"

#include <optional>

#include "core/value_type_codes.h"
#include "storage/engine_rules.h"

namespace ctxkit::storage {

const char* const kPgObjectColumns =
    "o.id, o.scope, o.key, o.type, o.latest_version, o.deleted, o.size, "
    "o.created_ns, o.updated_ns, (SELECT v.tokens FROM ctxkit_versions v "
    "WHERE v.object_id = o.id AND v.version = o.latest_version), "
    "(SELECT string_agg(t.tag, E'\\n' ORDER BY t.tag) FROM ctxkit_tags t "
    "WHERE t.object_id = o.id)";

const char* const kPgVersionColumns =
    "version, state, type, hash, size, created_ns, producer, stream_base, "
    "tokens";

Result<ObjectRecord> PgObjectAt(const PgRows& rows, int r) {
  ObjectRecord obj;
  obj.id = rows.Int(r, 0);
  Result<Scope> scope = Scope::Parse(rows.Bytes(r, 1));
  if (!scope.ok()) {
    return Status::Corruption("object " + std::to_string(obj.id) +
                              " has a bad scope: " + scope.status().message());
  }
  obj.scope = std::move(scope).value();
  obj.key = rows.Bytes(r, 2);
  std::optional<ValueType> type = core::ValueTypeFromCode(rows.Int(r, 3));
  if (!type) {
    return Status::Corruption("object " + std::to_string(obj.id) +
                              " has an unknown type code");
  }
  obj.type = *type;
  obj.latest_version = static_cast<uint64_t>(rows.Int(r, 4));
  obj.deleted = rows.Int(r, 5) != 0;
  obj.size_bytes = static_cast<uint64_t>(rows.Int(r, 6));
  obj.created_unix_ns = rows.Int(r, 7);
  obj.updated_unix_ns = rows.Int(r, 8);
  if (!rows.IsNull(r, 9)) obj.tokens = static_cast<uint64_t>(rows.Int(r, 9));
  const std::string tags = rows.Bytes(r, 10);
  for (size_t start = 0; start < tags.size();) {
    size_t end = tags.find('\n', start);
    if (end == std::string::npos) end = tags.size();
    obj.tags.push_back(tags.substr(start, end - start));
    start = end + 1;
  }
  return obj;
}

Result<std::vector<ObjectRecord>> PgObjectsOf(const PgRows& rows) {
  std::vector<ObjectRecord> out;
  out.reserve(rows.size());
  for (int r = 0; r < rows.size(); ++r) {
    Result<ObjectRecord> obj = PgObjectAt(rows, r);
    if (!obj.ok()) return obj.status();
    out.push_back(*std::move(obj));
  }
  return out;
}

VersionRecord PgVersionAt(const PgRows& rows, int r, int64_t object_id,
                          int first) {
  VersionRecord v;
  v.object_id = object_id;
  v.version = static_cast<uint64_t>(rows.Int(r, first));
  v.state = VersionStateFromCode(rows.Int(r, first + 1));
  v.type = core::ValueTypeFromCode(rows.Int(r, first + 2))
               .value_or(ValueType::kText);
  v.hash = rows.Bytes(r, first + 3);
  v.size_bytes = static_cast<uint64_t>(rows.Int(r, first + 4));
  v.created_unix_ns = rows.Int(r, first + 5);
  v.producer = rows.Bytes(r, first + 6);
  v.stream_base = static_cast<uint64_t>(rows.Int(r, first + 7));
  if (!rows.IsNull(r, first + 8)) {
    v.tokens = static_cast<uint64_t>(rows.Int(r, first + 8));
  }
  return v;
}

std::string PgPlaceholders(int first, size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) {
    if (i) out += ", ";
    out += "$" + std::to_string(first + static_cast<int>(i));
  }
  return out;
}

}  // namespace ctxkit::storage
