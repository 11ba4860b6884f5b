// Named records and logs in the embedded engine (Backend::WriteRecords and
// friends): the `records` and `record_log` tables of schema v7.
#ifndef CTXKIT_SQLITE_SQLITE_RECORDS_H_
#define CTXKIT_SQLITE_SQLITE_RECORDS_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ctxkit/status.h"
#include "os/sqlite_db.h"
#include "storage/backend.h"

namespace ctxkit::storage::sqlite_records {

// Schema v7: the tables. Runs inside the schema transaction.
Status CreateSchema(SqliteDb* db);

// Inside a write transaction: the whole write (Backend::WriteRecords),
// FailedPrecondition (RecordExists) at a kCreate put whose record exists.
Status WriteLocked(SqliteDb* db, const RecordWrite& write);
Result<std::optional<StoredRecord>> Get(SqliteDb* db, std::string_view kind,
                                        std::string_view name);
Result<std::vector<StoredRecord>> List(SqliteDb* db, std::string_view kind);
Result<std::vector<std::string>> ReadLog(SqliteDb* db, std::string_view log,
                                         size_t limit);

}  // namespace ctxkit::storage::sqlite_records

#endif  // CTXKIT_SQLITE_SQLITE_RECORDS_H_
