// Reading the PostgreSQL engine's object and version rows (pg_backend.cc):
// the columns its queries select and the records they decode into.

#ifndef CTXKIT_POSTGRES_PG_ROWS_H_
#define CTXKIT_POSTGRES_PG_ROWS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "ctxkit/status.h"
#include "postgres/pg_conn.h"
#include "storage/backend.h"

namespace ctxkit::storage {

// The object columns of `ctxkit_objects o`, for ObjectAt. The latest
// version's token count and the tags (joined by '\n': tags hold no control
// characters) ride along, so a lookup is one round trip.
extern const char* const kPgObjectColumns;
inline constexpr int kPgObjectColumnCount = 11;

// The version columns of `ctxkit_versions`, for VersionAt.
extern const char* const kPgVersionColumns;

// The object of row `r` (columns kPgObjectColumns first). Corruption for a
// bad scope or type code.
Result<ObjectRecord> PgObjectAt(const PgRows& rows, int r);
Result<std::vector<ObjectRecord>> PgObjectsOf(const PgRows& rows);

// The version of row `r` of object `object_id`, its kPgVersionColumns from
// column `first` on.
VersionRecord PgVersionAt(const PgRows& rows, int r, int64_t object_id,
                          int first);

// "$first, $first+1, ..." for n parameters.
std::string PgPlaceholders(int first, size_t n);

}  // namespace ctxkit::storage

#endif  // CTXKIT_POSTGRES_PG_ROWS_H_
