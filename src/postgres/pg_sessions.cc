#include "postgres/pg_sessions.h"

#include <algorithm>
#include <cstdint>

#include "core/status_macros.h"
#include "postgres/pg_holds.h"

namespace ctxkit::storage::pg_sessions {
namespace {

Status PutEntries(PgConn* conn, const SessionWrite& w) {
  for (const std::string& object_id : w.removed_entries) {
    CTXKIT_RETURN_IF_ERROR(
        conn->Exec("DELETE FROM ctxkit_session_entries WHERE session = $1 "
                   "AND object_id = $2",
                   PgParams().Text(w.id).Text(object_id))
            .status());
  }
  for (const SessionEntryRow& e : w.put_entries) {
    CTXKIT_RETURN_IF_ERROR(
        conn->Exec("INSERT INTO ctxkit_session_entries(session, object_id, "
                   "seq, entry, hot, listed) VALUES ($1, $2, $3, $4, $5 <> 0, "
                   "$6 <> 0) "
                   "ON CONFLICT (session, object_id) DO UPDATE SET "
                   "seq = excluded.seq, entry = excluded.entry, "
                   "hot = excluded.hot, listed = excluded.listed",
                   PgParams()
                       .Text(w.id)
                       .Text(e.object_id)
                       .Int(static_cast<int64_t>(e.seq))
                       .Text(e.entry_json)
                       .Int(e.hot ? 1 : 0)
                       .Int(e.listed ? 1 : 0))
            .status());
  }
  return Status::Ok();
}

// Rows whose columns from `first` on are object_id, seq, hot, listed,
// entry (all NULL: no entry) as entries of `rec`.
void ReadEntryRows(const PgRows& rows, int first, SessionRecord* rec) {
  for (int r = 0; r < rows.size(); ++r) {
    if (rows.IsNull(r, first)) continue;
    rec->entries.push_back(
        {rows.Bytes(r, first), static_cast<uint64_t>(rows.Int(r, first + 1)),
         rows.Bytes(r, first + 4), rows.Int(r, first + 2) != 0,
         rows.Int(r, first + 3) != 0});
  }
}

// The record of session `id` from `rows`: generation in column 0, the
// state in column 1 when `with_state`, then entries (ReadEntryRows).
// NotFound when there are no rows (no session).
Result<SessionRecord> RecordOf(const PgRows& rows, std::string_view id,
                               bool with_state) {
  if (rows.empty()) {
    return Status::NotFound("no session '" + std::string(id) + "'");
  }
  SessionRecord rec;
  rec.id = std::string(id);
  rec.generation = static_cast<uint64_t>(rows.Int(0, 0));
  if (with_state) rec.state_json = rows.Bytes(0, 1);
  ReadEntryRows(rows, with_state ? 2 : 1, &rec);
  return rec;
}

}  // namespace

Result<std::optional<uint64_t>> Generation(PgConn* conn, std::string_view id,
                                           bool lock_row) {
  CTXKIT_ASSIGN_OR_RETURN(
      PgRows rows,
      conn->Exec(lock_row ? "SELECT generation FROM ctxkit_sessions WHERE "
                            "id = $1 FOR UPDATE"
                          : "SELECT generation FROM ctxkit_sessions WHERE "
                            "id = $1",
                 PgParams().Text(id)));
  if (rows.empty()) return std::optional<uint64_t>();
  return std::optional<uint64_t>(static_cast<uint64_t>(rows.Int(0, 0)));
}

Result<SessionRecord> Load(PgConn* conn, std::string_view id) {
  CTXKIT_ASSIGN_OR_RETURN(
      PgRows rows,
      conn->Exec("SELECT s.generation, s.state, e.object_id, e.seq, e.hot, "
                 "e.listed, e.entry FROM ctxkit_sessions s "
                 "LEFT JOIN ctxkit_session_entries e ON e.session = s.id "
                 "WHERE s.id = $1",
                 PgParams().Text(id)));
  return RecordOf(rows, id, /*with_state=*/true);
}

Result<SessionRecord> LoadHead(PgConn* conn, std::string_view id,
                               size_t listed_limit) {
  CTXKIT_ASSIGN_OR_RETURN(
      PgRows rows,
      conn->Exec("WITH e AS ("
                 "  SELECT object_id, seq, hot, listed, entry "
                 "  FROM ctxkit_session_entries WHERE session = $1 AND hot "
                 "  UNION ALL "
                 "  (SELECT object_id, seq, hot, listed, entry "
                 "   FROM ctxkit_session_entries WHERE session = $1 AND listed "
                 "   ORDER BY seq LIMIT $2)) "
                 "SELECT s.generation, s.state, e.object_id, e.seq, e.hot, "
                 "e.listed, e.entry "
                 "FROM ctxkit_sessions s LEFT JOIN e ON true WHERE s.id = $1",
                 PgParams().Text(id).Int(static_cast<int64_t>(
                     std::min<size_t>(listed_limit, INT64_MAX)))));
  CTXKIT_ASSIGN_OR_RETURN(SessionRecord rec,
                          RecordOf(rows, id, /*with_state=*/true));
  // A hot entry among the first listed ones came twice: keep one.
  std::sort(rec.entries.begin(), rec.entries.end(),
            [](const auto& a, const auto& b) { return a.seq < b.seq; });
  rec.entries.erase(std::unique(rec.entries.begin(), rec.entries.end(),
                                [](const auto& a, const auto& b) {
                                  return a.object_id == b.object_id;
                                }),
                    rec.entries.end());
  return rec;
}

Result<uint64_t> CountListed(PgConn* conn, std::string_view id) {
  CTXKIT_ASSIGN_OR_RETURN(
      PgRows rows,
      conn->Exec("SELECT (SELECT count(*) FROM ctxkit_session_entries "
                 "WHERE session = $1 AND listed) FROM ctxkit_sessions "
                 "WHERE id = $1",
                 PgParams().Text(id)));
  if (rows.empty()) {
    return Status::NotFound("no session '" + std::string(id) + "'");
  }
  return static_cast<uint64_t>(rows.Int(0, 0));
}

Result<SessionRecord> LoadEntries(PgConn* conn, std::string_view id,
                                  const std::vector<std::string>& object_ids) {
  std::string ids;
  for (const std::string& object_id : object_ids) {
    if (object_id.find('\n') != std::string::npos) {
      return Status::InvalidArgument("object id with a newline");
    }
    ids += object_id + "\n";
  }
  CTXKIT_ASSIGN_OR_RETURN(
      PgRows rows,
      conn->Exec("SELECT s.generation, e.object_id, e.seq, e.hot, e.listed, "
                 "e.entry FROM ctxkit_sessions s "
                 "LEFT JOIN ctxkit_session_entries e ON e.session = s.id AND "
                 "e.object_id = ANY(string_to_array($2, E'\\n')) "
                 "WHERE s.id = $1",
                 PgParams().Text(id).Text(ids)));
  return RecordOf(rows, id, /*with_state=*/false);
}

Result<uint64_t> Write(PgConn* conn, const SessionWrite& w) {
  const uint64_t next = w.expected_generation + 1;
  if (w.expected_generation == 0) {
    // Two creators: the second waits for the first's row, then inserts
    // nothing.
    CTXKIT_ASSIGN_OR_RETURN(
        PgRows made,
        conn->Exec("INSERT INTO ctxkit_sessions(id, generation, state) "
                   "VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING",
                   PgParams()
                       .Text(w.id)
                       .Int(static_cast<int64_t>(next))
                       .Text(w.state_json)));
    if (made.Affected() == 0) {
      return Status::AlreadyExists("session '" + w.id + "' already exists");
    }
  } else {
    CTXKIT_ASSIGN_OR_RETURN(std::optional<uint64_t> stored,
                            Generation(conn, w.id, /*lock_row=*/true));
    if (!stored) {
      return Status::NotFound("no session '" + w.id + "' (it was removed)");
    }
    if (*stored != w.expected_generation) {
      return Status::FailedPrecondition(
          "session '" + w.id + "' changed meanwhile (generation " +
          std::to_string(*stored) + ", expected " +
          std::to_string(w.expected_generation) + ")");
    }
    CTXKIT_RETURN_IF_ERROR(
        conn->Exec("UPDATE ctxkit_sessions SET generation = $2, state = $3 "
                   "WHERE id = $1",
                   PgParams()
                       .Text(w.id)
                       .Int(static_cast<int64_t>(next))
                       .Text(w.state_json))
            .status());
  }
  if (!w.holds.empty()) {
    CTXKIT_RETURN_IF_ERROR(pg_holds::LockShared(conn));
    CTXKIT_RETURN_IF_ERROR(pg_holds::Add(conn, SessionHolder(w.id), w.holds));
  }
  CTXKIT_RETURN_IF_ERROR(PutEntries(conn, w));
  return next;
}

Result<std::vector<std::string>> List(PgConn* conn) {
  CTXKIT_ASSIGN_OR_RETURN(
      PgRows rows, conn->Exec("SELECT id FROM ctxkit_sessions ORDER BY id"));
  std::vector<std::string> ids;
  for (int r = 0; r < rows.size(); ++r) ids.push_back(rows.Bytes(r, 0));
  return ids;
}

Status Remove(PgConn* conn, std::string_view id) {
  // The session row first, as Write locks it first: a write in flight
  // commits before the removal proceeds (its entries then go too), and the
  // two never wait on each other in opposite orders.
  CTXKIT_ASSIGN_OR_RETURN(
      PgRows gone, conn->Exec("DELETE FROM ctxkit_sessions WHERE id = $1",
                              PgParams().Text(id)));
  if (gone.Affected() == 0) {
    return Status::NotFound("no session '" + std::string(id) + "'");
  }
  CTXKIT_RETURN_IF_ERROR(
      conn->Exec("DELETE FROM ctxkit_session_entries WHERE session = $1",
                 PgParams().Text(id))
          .status());
  return pg_holds::Drop(conn, SessionHolder(id));
}

}  // namespace ctxkit::storage::pg_sessions
