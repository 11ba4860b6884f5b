// sessions.db: schema and the few statements the session layer needs.

#include "session/session_db.h"

#include <string>

#include "core/status_macros.h"
#include "storage/filename.h"

namespace ctxkit::session {
namespace {

constexpr char kSchema[] = R"sql(
CREATE TABLE IF NOT EXISTS sessions (
  id TEXT PRIMARY KEY,
  generation INTEGER NOT NULL,
  state TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS entries (
  session TEXT NOT NULL,
  object_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  entry TEXT NOT NULL,
  PRIMARY KEY (session, object_id)
);
)sql";

}  // namespace

Result<std::unique_ptr<SessionDb>> SessionDb::Open(const std::string& home) {
  CTXKIT_ASSIGN_OR_RETURN(
      auto db, storage::SqliteDb::Open(storage::SessionsDbPath(home), 30000));
  CTXKIT_RETURN_IF_ERROR(db->EnableWal());
  CTXKIT_RETURN_IF_ERROR(db->Exec(kSchema));
  // Session state is small and rewritten often; a crash of the process
  // must not lose a committed mutation, a power loss may lose the last one.
  CTXKIT_RETURN_IF_ERROR(db->Exec("PRAGMA synchronous=NORMAL;"));
  return std::unique_ptr<SessionDb>(new SessionDb(std::move(db)));
}

Status SessionDb::Begin() {
  CTXKIT_RETURN_IF_ERROR(db_->Exec("BEGIN IMMEDIATE"));
  in_tx_ = true;
  return Status::Ok();
}

Status SessionDb::Commit() {
  CTXKIT_RETURN_IF_ERROR(db_->Exec("COMMIT"));
  in_tx_ = false;
  return Status::Ok();
}

void SessionDb::Rollback() {
  if (in_tx_) {
    (void)db_->Exec("ROLLBACK");
    in_tx_ = false;
  }
}

Result<std::optional<uint64_t>> SessionDb::Generation(const std::string& id) {
  CTXKIT_ASSIGN_OR_RETURN(
      auto q, db_->Prepare("SELECT generation FROM sessions WHERE id = ?1"));
  q->BindText(1, id);
  CTXKIT_ASSIGN_OR_RETURN(bool row, q->Step());
  if (!row) return std::optional<uint64_t>();
  return std::optional<uint64_t>(static_cast<uint64_t>(q->Int(0)));
}

Result<std::string> SessionDb::LoadState(const std::string& id) {
  CTXKIT_ASSIGN_OR_RETURN(
      auto q, db_->Prepare("SELECT state FROM sessions WHERE id = ?1"));
  q->BindText(1, id);
  CTXKIT_ASSIGN_OR_RETURN(bool row, q->Step());
  if (!row) return Status::NotFound("no session '" + id + "'");
  return q->Text(0);
}

Status SessionDb::LoadEntries(
    const std::string& id,
    const std::function<Status(const std::string&)>& fn) {
  CTXKIT_ASSIGN_OR_RETURN(
      auto q, db_->Prepare("SELECT entry FROM entries WHERE session = ?1 "
                           "ORDER BY seq"));
  q->BindText(1, id);
  while (true) {
    CTXKIT_ASSIGN_OR_RETURN(bool row, q->Step());
    if (!row) return Status::Ok();
    CTXKIT_RETURN_IF_ERROR(fn(q->Text(0)));
  }
}

Status SessionDb::InsertSession(const std::string& id,
                                const std::string& state_json) {
  CTXKIT_ASSIGN_OR_RETURN(
      auto q, db_->Prepare("INSERT INTO sessions (id, generation, state) "
                           "VALUES (?1, 1, ?2)"));
  q->BindText(1, id).BindText(2, state_json);
  return q->Run();
}

Status SessionDb::UpdateState(const std::string& id, uint64_t generation,
                              const std::string& state_json) {
  CTXKIT_ASSIGN_OR_RETURN(
      auto q, db_->Prepare("UPDATE sessions SET generation = ?2, state = ?3 "
                           "WHERE id = ?1"));
  q->BindText(1, id)
      .Bind(2, static_cast<int64_t>(generation))
      .BindText(3, state_json);
  return q->Run();
}

Status SessionDb::PutEntry(const std::string& id, const std::string& object_id,
                           uint64_t seq, const std::string& entry_json) {
  CTXKIT_ASSIGN_OR_RETURN(
      auto q,
      db_->Prepare("INSERT OR REPLACE INTO entries (session, object_id, seq, "
                   "entry) VALUES (?1, ?2, ?3, ?4)"));
  q->BindText(1, id)
      .BindText(2, object_id)
      .Bind(3, static_cast<int64_t>(seq))
      .BindText(4, entry_json);
  return q->Run();
}

Status SessionDb::DeleteEntry(const std::string& id,
                              const std::string& object_id) {
  CTXKIT_ASSIGN_OR_RETURN(
      auto q, db_->Prepare("DELETE FROM entries WHERE session = ?1 AND "
                           "object_id = ?2"));
  q->BindText(1, id).BindText(2, object_id);
  return q->Run();
}

Result<std::vector<std::string>> SessionDb::ListIds() {
  CTXKIT_ASSIGN_OR_RETURN(auto q,
                          db_->Prepare("SELECT id FROM sessions ORDER BY id"));
  std::vector<std::string> ids;
  while (true) {
    CTXKIT_ASSIGN_OR_RETURN(bool row, q->Step());
    if (!row) return ids;
    ids.push_back(q->Text(0));
  }
}

}  // namespace ctxkit::session
