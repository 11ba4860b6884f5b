// The embedded engine's `du` query: stored bytes by scope, type and medium.

#ifndef CTXKIT_STORAGE_SQLITE_USAGE_H_
#define CTXKIT_STORAGE_SQLITE_USAGE_H_

#include <vector>

#include "ctxkit/status.h"
#include "storage/backend.h"
#include "storage/sqlite_db.h"

namespace ctxkit::storage {

// One read transaction over ctxkit.db (see Backend::Usage).
Result<std::vector<UsageRecord>> SqliteUsage(SqliteDb* db);

}  // namespace ctxkit::storage

#endif  // CTXKIT_STORAGE_SQLITE_USAGE_H_
