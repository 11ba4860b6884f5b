// Named records and logs in the PostgreSQL engine (Backend::WriteRecords
// and friends): ctxkit_records and ctxkit_record_log of schema v5. The
// caller holds the lock of the engine's connection and runs Write inside a
// transaction it opened.

#ifndef CTXKIT_POSTGRES_PG_RECORDS_H_
#define CTXKIT_POSTGRES_PG_RECORDS_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ctxkit/status.h"
#include "postgres/pg_conn.h"
#include "storage/backend.h"

namespace ctxkit::storage::pg_records {

// Schema v5 (inside the migration's transaction): the tables.
Status CreateSchema(PgConn* conn);
// The whole write; FailedPrecondition (RecordExists) at a kCreate put
// whose record exists.
Status Write(PgConn* conn, const RecordWrite& write);
Result<std::optional<StoredRecord>> Get(PgConn* conn, std::string_view kind,
                                        std::string_view name);
Result<std::vector<StoredRecord>> List(PgConn* conn, std::string_view kind);
Result<std::vector<std::string>> ReadLog(PgConn* conn, std::string_view log,
                                         size_t limit);

}  // namespace ctxkit::storage::pg_records

#endif  // CTXKIT_POSTGRES_PG_RECORDS_H_
