// Session state in the embedded engine: the `sessions` and
// `session_entries` tables of ctxkit.db (schema v2, entry flags v5;
// docs/storage-format.md), and the one-time import of the sessions.db file
// that older builds kept beside it. The SqliteBackend calls these under its
// connection mutex.

#ifndef CTXKIT_SQLITE_SQLITE_SESSIONS_H_
#define CTXKIT_SQLITE_SQLITE_SESSIONS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ctxkit/status.h"
#include "os/sqlite_db.h"
#include "storage/backend.h"

namespace ctxkit::storage::sqlite_sessions {

// Sets every stored entry's `hot` and `listed` flags (schema v5) from the
// entry document's own fields, as the session layer sets them on write
// (session/session_impl.cc): for stores migrated from v4 and for imported
// sessions. Idempotent.
inline constexpr char kSetEntryFlags[] = R"sql(
UPDATE session_entries SET
  hot = (coalesce(json_extract(entry, '$.active'), 0) <> 0 OR
         coalesce(json_extract(entry, '$.pinned_version'), 0) <> 0 OR
         coalesce(json_extract(entry, '$.locked'), 0) <> 0),
  listed = (coalesce(json_extract(entry, '$.locked'), 0) = 0 AND
            coalesce(json_extract(entry, '$.from_chat'), 0) = 0)
)sql";

Result<std::optional<uint64_t>> Generation(SqliteDb* db, std::string_view id);
// Reads the state and entries inside one read transaction (one snapshot).
Result<SessionRecord> Load(SqliteDb* db, std::string_view id);
// Backend::LoadSessionHead, LoadSessionEntries and
// CountListedSessionEntries, each in one read transaction.
Result<SessionRecord> LoadHead(SqliteDb* db, std::string_view id,
                               size_t listed_limit);
Result<SessionRecord> LoadEntries(SqliteDb* db, std::string_view id,
                                  const std::vector<std::string>& object_ids);
Result<uint64_t> CountListed(SqliteDb* db, std::string_view id);
// One write transaction; see Backend::WriteSession.
Result<uint64_t> Write(SqliteDb* db, const SessionWrite& write);
Result<std::vector<std::string>> List(SqliteDb* db);
Status Remove(SqliteDb* db, std::string_view id);

// Moves the sessions of a pre-v2 `<home>/sessions.db` (path `legacy_path`)
// into `db`, then renames the old file to `<legacy_path>.imported` so it is
// imported once. Sessions already present in `db` are kept as they are.
// Does nothing when the file does not exist.
Status ImportLegacy(SqliteDb* db, const std::string& legacy_path);

}  // namespace ctxkit::storage::sqlite_sessions

#endif  // CTXKIT_SQLITE_SQLITE_SESSIONS_H_
