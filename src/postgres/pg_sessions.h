// Session state in the PostgreSQL engine: ctxkit_sessions (one row per
// session: generation and state document) and ctxkit_session_entries (one
// row per pool entry), with the semantics of Backend's session calls
// (backend.h). The caller holds the lock of the engine's connection;
// Write and Remove run inside a transaction the caller opened.

#ifndef CTXKIT_POSTGRES_PG_SESSIONS_H_
#define CTXKIT_POSTGRES_PG_SESSIONS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ctxkit/status.h"
#include "postgres/pg_conn.h"
#include "storage/backend.h"

namespace ctxkit::storage::pg_sessions {

// `lock_row`: take the row's lock until the transaction ends (a writer's
// compare-and-set).
Result<std::optional<uint64_t>> Generation(PgConn* conn, std::string_view id,
                                           bool lock_row);
// One statement, so one snapshot of the state and its entries.
Result<SessionRecord> Load(PgConn* conn, std::string_view id);
// Backend::LoadSessionHead, LoadSessionEntries and
// CountListedSessionEntries, one statement each.
Result<SessionRecord> LoadHead(PgConn* conn, std::string_view id,
                               size_t listed_limit);
Result<SessionRecord> LoadEntries(PgConn* conn, std::string_view id,
                                  const std::vector<std::string>& object_ids);
Result<uint64_t> CountListed(PgConn* conn, std::string_view id);
Result<uint64_t> Write(PgConn* conn, const SessionWrite& write);
Result<std::vector<std::string>> List(PgConn* conn);
Status Remove(PgConn* conn, std::string_view id);

}  // namespace ctxkit::storage::pg_sessions

#endif  // CTXKIT_POSTGRES_PG_SESSIONS_H_
