#include "storage/pg_sessions.h"

#include "core/status_macros.h"

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
                   "seq, entry) VALUES ($1, $2, $3, $4) ON CONFLICT "
                   "(session, object_id) DO UPDATE SET seq = excluded.seq, "
                   "entry = excluded.entry",
                   PgParams()
                       .Text(w.id)
                       .Text(e.object_id)
                       .Int(static_cast<int64_t>(e.seq))
                       .Text(e.entry_json))
            .status());
  }
  return Status::Ok();
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
      conn->Exec("SELECT s.generation, s.state, e.object_id, e.seq, e.entry "
                 "FROM ctxkit_sessions s LEFT JOIN ctxkit_session_entries e "
                 "ON e.session = s.id WHERE s.id = $1 ORDER BY e.seq",
                 PgParams().Text(id)));
  if (rows.empty()) {
    return Status::NotFound("no session '" + std::string(id) + "'");
  }
  SessionRecord rec;
  rec.id = std::string(id);
  rec.generation = static_cast<uint64_t>(rows.Int(0, 0));
  rec.state_json = rows.Bytes(0, 1);
  for (int r = 0; r < rows.size(); ++r) {
    if (rows.IsNull(r, 2)) continue;
    rec.entries.push_back({rows.Bytes(r, 2),
                           static_cast<uint64_t>(rows.Int(r, 3)),
                           rows.Bytes(r, 4)});
  }
  return rec;
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
  return conn
      ->Exec("DELETE FROM ctxkit_session_entries WHERE session = $1",
             PgParams().Text(id))
      .status();
}

}  // namespace ctxkit::storage::pg_sessions
