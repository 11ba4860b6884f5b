// The embedded engine's `du` query: stored bytes by scope, type and medium.

#ifndef CTXKIT_SQLITE_SQLITE_USAGE_H_
#define CTXKIT_SQLITE_SQLITE_USAGE_H_

#include <vector>

#include "ctxkit/status.h"
#include "os/sqlite_db.h"
#include "storage/backend.h"

namespace ctxkit::storage {

// One read transaction over ctxkit.db (see Backend::Usage).
Result<std::vector<UsageRecord>> SqliteUsage(SqliteDb* db);

}  // namespace ctxkit::storage

#endif  // CTXKIT_SQLITE_SQLITE_USAGE_H_
