#include "sqlite/sqlite_usage.h"

#include <algorithm>
#include <string>
#include <tuple>

#include "core/status_macros.h"
#include "core/value_type_codes.h"

namespace ctxkit::storage {
namespace {

// Inline content: a version row's own content, or a stream append's chunk.
constexpr const char* kInlineSql = R"sql(
WITH rows(scope, type, object_id, bytes) AS (
  SELECT o.scope, v.type, v.object_id, length(ic.data)
  FROM versions v JOIN objects o ON o.id = v.object_id
  JOIN inline_contents ic ON ic.id = v.content_id
  UNION ALL
  SELECT o.scope, v.type, c.object_id, length(ic.data)
  FROM stream_chunks c
  JOIN versions v ON v.object_id = c.object_id AND v.version = c.version
  JOIN objects o ON o.id = c.object_id
  JOIN inline_contents ic ON ic.id = c.content_id
)
SELECT scope, type, count(DISTINCT object_id), count(*),
       coalesce(sum(bytes), 0)
FROM rows GROUP BY scope, type
)sql";

// Blob content: a version whose content is a blob file (not a stream
// append, whose chunk row names its blob), or a stream append's chunk.
// Bytes count each distinct blob of a group once.
constexpr const char* kBlobSql = R"sql(
WITH refs(scope, type, object_id, hash) AS (
  SELECT o.scope, v.type, v.object_id, v.hash
  FROM versions v JOIN objects o ON o.id = v.object_id
  WHERE v.content_id IS NULL AND v.hash IS NOT NULL AND NOT EXISTS (
    SELECT 1 FROM stream_chunks c
    WHERE c.object_id = v.object_id AND c.version = v.version)
  UNION ALL
  SELECT o.scope, v.type, c.object_id, c.hash
  FROM stream_chunks c
  JOIN versions v ON v.object_id = c.object_id AND v.version = c.version
  JOIN objects o ON o.id = c.object_id
  WHERE c.content_id IS NULL
)
SELECT g.scope, g.type, g.objects, g.versions,
       (SELECT coalesce(sum(b.size), 0) FROM blobs b WHERE b.hash IN (
          SELECT r.hash FROM refs r
          WHERE r.scope = g.scope AND r.type = g.type))
FROM (SELECT scope, type, count(DISTINCT object_id) AS objects,
             count(*) AS versions
      FROM refs JOIN blobs USING (hash) GROUP BY scope, type) g
)sql";

Status Collect(SqliteDb* db, const char* sql, UsageRecord::Medium medium,
               std::vector<UsageRecord>* out) {
  CTXKIT_ASSIGN_OR_RETURN(auto q, db->Prepare(sql));
  while (true) {
    CTXKIT_ASSIGN_OR_RETURN(bool row, q->Step());
    if (!row) return Status::Ok();
    UsageRecord r;
    CTXKIT_ASSIGN_OR_RETURN(r.scope, Scope::Parse(q->Text(0)));
    std::optional<ValueType> type = core::ValueTypeFromCode(q->Int(1));
    if (!type) {
      return Status::Corruption("unknown value type code " +
                                std::to_string(q->Int(1)));
    }
    r.type = *type;
    r.medium = medium;
    r.objects = static_cast<uint64_t>(q->Int(2));
    r.versions = static_cast<uint64_t>(q->Int(3));
    r.bytes = static_cast<uint64_t>(q->Int(4));
    out->push_back(std::move(r));
  }
}

}  // namespace

Result<std::vector<UsageRecord>> SqliteUsage(SqliteDb* db) {
  CTXKIT_RETURN_IF_ERROR(db->Exec("BEGIN"));
  std::vector<UsageRecord> out;
  Status s = Collect(db, kInlineSql, UsageRecord::Medium::kInline, &out);
  if (s.ok()) s = Collect(db, kBlobSql, UsageRecord::Medium::kBlob, &out);
  Status end = db->Exec("COMMIT");
  CTXKIT_RETURN_IF_ERROR(s);
  CTXKIT_RETURN_IF_ERROR(end);
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return std::make_tuple(a.scope.ToString(), static_cast<int>(a.type),
                           static_cast<int>(a.medium)) <
           std::make_tuple(b.scope.ToString(), static_cast<int>(b.type),
                           static_cast<int>(b.medium));
  });
  return out;
}

}  // namespace ctxkit::storage
