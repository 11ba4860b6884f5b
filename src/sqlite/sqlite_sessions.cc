#include "sqlite/sqlite_sessions.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>

#include "core/status_macros.h"
#include "os/file_util.h"
#include "os/posix_io.h"
#include "sqlite/sqlite_holds.h"

namespace ctxkit::storage::sqlite_sessions {
namespace {

// Ends a read transaction on destruction (reads never fail to end).
class ReadTransaction {
 public:
  explicit ReadTransaction(SqliteDb* db) : db_(db) {}
  ~ReadTransaction() {
    if (open_) db_->Exec("COMMIT").IgnoreError();
  }
  Status Begin() {
    CTXKIT_RETURN_IF_ERROR(db_->Exec("BEGIN"));
    open_ = true;
    return Status::Ok();
  }

 private:
  SqliteDb* db_;
  bool open_ = false;
};

Status PutEntries(SqliteDb* db, const SessionWrite& w) {
  for (const std::string& object_id : w.removed_entries) {
    CTXKIT_ASSIGN_OR_RETURN(
        auto q, db->Prepare("DELETE FROM session_entries "
                            "WHERE session = ?1 AND object_id = ?2"));
    CTXKIT_RETURN_IF_ERROR(q->BindText(1, w.id).BindText(2, object_id).Run());
  }
  for (const SessionEntryRow& e : w.put_entries) {
    CTXKIT_ASSIGN_OR_RETURN(
        auto q, db->Prepare("INSERT OR REPLACE INTO session_entries"
                            "(session, object_id, seq, entry, hot, listed) "
                            "VALUES (?1, ?2, ?3, ?4, ?5, ?6)"));
    CTXKIT_RETURN_IF_ERROR(q->BindText(1, w.id)
                               .BindText(2, e.object_id)
                               .Bind(3, static_cast<int64_t>(e.seq))
                               .BindText(4, e.entry_json)
                               .Bind(5, int64_t{e.hot})
                               .Bind(6, int64_t{e.listed})
                               .Run());
  }
  return Status::Ok();
}

// A string literal for SQL text ('it''s').
std::string SqlQuote(std::string_view text) {
  std::string out = "'";
  for (char c : text) {
    out += c;
    if (c == '\'') out += '\'';
  }
  return out + "'";
}

}  // namespace

Result<std::optional<uint64_t>> Generation(SqliteDb* db, std::string_view id) {
  CTXKIT_ASSIGN_OR_RETURN(
      auto q, db->Prepare("SELECT generation FROM sessions WHERE id = ?1"));
  q->BindText(1, id);
  CTXKIT_ASSIGN_OR_RETURN(bool row, q->Step());
  if (!row) return std::optional<uint64_t>();
  return std::optional<uint64_t>(static_cast<uint64_t>(q->Int(0)));
}

namespace {

// The session's row: its generation, and its state unless `with_state`
// is false. NotFound when there is none.
Status ReadSessionRow(SqliteDb* db, std::string_view id, bool with_state,
                      SessionRecord* rec) {
  rec->id = std::string(id);
  CTXKIT_ASSIGN_OR_RETURN(
      auto q,
      db->Prepare(with_state
                      ? "SELECT generation, state FROM sessions "
                        "WHERE id = ?1"
                      : "SELECT generation FROM sessions WHERE id = ?1"));
  q->BindText(1, id);
  CTXKIT_ASSIGN_OR_RETURN(bool row, q->Step());
  if (!row) return Status::NotFound("no session '" + rec->id + "'");
  rec->generation = static_cast<uint64_t>(q->Int(0));
  if (with_state) rec->state_json = q->Text(1);
  return Status::Ok();
}

// Appends the rows of `q` (selecting object_id, seq, hot, listed, entry)
// to `out`, but for the hot ones when `skip_hot` (read already).
Status ReadEntryRows(Query* q, bool skip_hot,
                     std::vector<SessionEntryRow>* out) {
  while (true) {
    CTXKIT_ASSIGN_OR_RETURN(bool row, q->Step());
    if (!row) return Status::Ok();
    if (skip_hot && q->Int(2) != 0) continue;
    out->push_back({q->Text(0), static_cast<uint64_t>(q->Int(1)), q->Text(4),
                    q->Int(2) != 0, q->Int(3) != 0});
  }
}

}  // namespace

Result<SessionRecord> Load(SqliteDb* db, std::string_view id) {
  ReadTransaction snapshot(db);
  CTXKIT_RETURN_IF_ERROR(snapshot.Begin());
  SessionRecord rec;
  CTXKIT_RETURN_IF_ERROR(ReadSessionRow(db, id, true, &rec));
  CTXKIT_ASSIGN_OR_RETURN(
      auto q, db->Prepare("SELECT object_id, seq, hot, listed, entry "
                          "FROM session_entries WHERE session = ?1"));
  q->BindText(1, id);
  CTXKIT_RETURN_IF_ERROR(ReadEntryRows(q.get(), false, &rec.entries));
  return rec;
}

Result<SessionRecord> LoadHead(SqliteDb* db, std::string_view id,
                               size_t listed_limit) {
  ReadTransaction snapshot(db);
  CTXKIT_RETURN_IF_ERROR(snapshot.Begin());
  SessionRecord rec;
  CTXKIT_RETURN_IF_ERROR(ReadSessionRow(db, id, true, &rec));
  {
    CTXKIT_ASSIGN_OR_RETURN(
        auto q,
        db->Prepare("SELECT object_id, seq, hot, listed, entry "
                    "FROM session_entries INDEXED BY session_entries_hot "
                    "WHERE session = ?1 AND hot = 1"));
    q->BindText(1, id);
    CTXKIT_RETURN_IF_ERROR(ReadEntryRows(q.get(), false, &rec.entries));
  }
  {
    CTXKIT_ASSIGN_OR_RETURN(
        auto q,
        db->Prepare("SELECT object_id, seq, hot, listed, entry "
                    "FROM session_entries INDEXED BY session_entries_listed "
                    "WHERE session = ?1 AND listed = 1 "
                    "ORDER BY seq LIMIT ?2"));
    q->BindText(1, id).Bind(
        2, static_cast<int64_t>(std::min<size_t>(listed_limit, INT64_MAX)));
    CTXKIT_RETURN_IF_ERROR(ReadEntryRows(q.get(), true, &rec.entries));
  }
  return rec;
}

Result<uint64_t> CountListed(SqliteDb* db, std::string_view id) {
  ReadTransaction snapshot(db);
  CTXKIT_RETURN_IF_ERROR(snapshot.Begin());
  SessionRecord rec;
  CTXKIT_RETURN_IF_ERROR(ReadSessionRow(db, id, false, &rec));
  CTXKIT_ASSIGN_OR_RETURN(auto q,
                          db->Prepare("SELECT count(*) FROM session_entries "
                                      "INDEXED BY session_entries_listed "
                                      "WHERE session = ?1 AND listed = 1"));
  q->BindText(1, id);
  CTXKIT_ASSIGN_OR_RETURN(bool row, q->Step());
  return row ? static_cast<uint64_t>(q->Int(0)) : 0;
}

Result<SessionRecord> LoadEntries(SqliteDb* db, std::string_view id,
                                  const std::vector<std::string>& object_ids) {
  ReadTransaction snapshot(db);
  CTXKIT_RETURN_IF_ERROR(snapshot.Begin());
  SessionRecord rec;
  CTXKIT_RETURN_IF_ERROR(ReadSessionRow(db, id, false, &rec));
  for (const std::string& object_id : object_ids) {
    CTXKIT_ASSIGN_OR_RETURN(
        auto q, db->Prepare("SELECT object_id, seq, hot, listed, entry "
                            "FROM session_entries "
                            "WHERE session = ?1 AND object_id = ?2"));
    q->BindText(1, id).BindText(2, object_id);
    CTXKIT_RETURN_IF_ERROR(ReadEntryRows(q.get(), false, &rec.entries));
  }
  return rec;
}

Result<uint64_t> Write(SqliteDb* db, const SessionWrite& w) {
  WriteTransaction txn(db);
  CTXKIT_RETURN_IF_ERROR(txn.Begin());
  CTXKIT_ASSIGN_OR_RETURN(std::optional<uint64_t> stored, Generation(db, w.id));
  if (w.expected_generation == 0) {
    if (stored) {
      return Status::AlreadyExists("session '" + w.id + "' already exists");
    }
  } else if (!stored) {
    return Status::NotFound("no session '" + w.id + "' (it was removed)");
  } else if (*stored != w.expected_generation) {
    return Status::FailedPrecondition(
        "session '" + w.id + "' changed meanwhile (generation " +
        std::to_string(*stored) + ", expected " +
        std::to_string(w.expected_generation) + ")");
  }
  CTXKIT_RETURN_IF_ERROR(
      sqlite_holds::AddLocked(db, SessionHolder(w.id), w.holds));
  const uint64_t next = w.expected_generation + 1;
  CTXKIT_ASSIGN_OR_RETURN(
      auto q, db->Prepare("INSERT OR REPLACE INTO sessions(id, generation, "
                          "state) VALUES (?1, ?2, ?3)"));
  CTXKIT_RETURN_IF_ERROR(q->BindText(1, w.id)
                             .Bind(2, static_cast<int64_t>(next))
                             .BindText(3, w.state_json)
                             .Run());
  CTXKIT_RETURN_IF_ERROR(PutEntries(db, w));
  CTXKIT_RETURN_IF_ERROR(txn.Commit());
  return next;
}

Result<std::vector<std::string>> List(SqliteDb* db) {
  CTXKIT_ASSIGN_OR_RETURN(auto q,
                          db->Prepare("SELECT id FROM sessions ORDER BY id"));
  std::vector<std::string> ids;
  while (true) {
    CTXKIT_ASSIGN_OR_RETURN(bool row, q->Step());
    if (!row) break;
    ids.push_back(q->Text(0));
  }
  return ids;
}

Status Remove(SqliteDb* db, std::string_view id) {
  WriteTransaction txn(db);
  CTXKIT_RETURN_IF_ERROR(txn.Begin());
  CTXKIT_ASSIGN_OR_RETURN(std::optional<uint64_t> stored, Generation(db, id));
  if (!stored) return Status::NotFound("no session '" + std::string(id) + "'");
  for (const char* sql : {"DELETE FROM session_entries WHERE session = ?1",
                          "DELETE FROM sessions WHERE id = ?1"}) {
    CTXKIT_ASSIGN_OR_RETURN(auto q, db->Prepare(sql));
    CTXKIT_RETURN_IF_ERROR(q->BindText(1, id).Run());
  }
  CTXKIT_RETURN_IF_ERROR(sqlite_holds::DropLocked(db, SessionHolder(id)));
  return txn.Commit();
}

Status ImportLegacy(SqliteDb* db, const std::string& legacy_path) {
  if (!PathExists(legacy_path)) return Status::Ok();
  {
    // Fold the old file's WAL into it, so the copy below sees every commit
    // and the renamed file is whole on its own.
    CTXKIT_ASSIGN_OR_RETURN(auto old, SqliteDb::Open(legacy_path, 30000));
    CTXKIT_RETURN_IF_ERROR(old->Exec("PRAGMA wal_checkpoint(TRUNCATE)"));
  }
  CTXKIT_RETURN_IF_ERROR(
      db->Exec("ATTACH DATABASE " + SqlQuote(legacy_path) + " AS legacy"));
  Status s = [&]() -> Status {
    WriteTransaction txn(db);
    CTXKIT_RETURN_IF_ERROR(txn.Begin());
    CTXKIT_RETURN_IF_ERROR(
        db->Exec("INSERT OR IGNORE INTO main.sessions(id, generation, state) "
                 "SELECT id, generation, state FROM legacy.sessions;"
                 "INSERT OR IGNORE INTO main.session_entries"
                 "(session, object_id, seq, entry) "
                 "SELECT session, object_id, seq, entry FROM legacy.entries"));
    CTXKIT_RETURN_IF_ERROR(db->Exec(kSetEntryFlags));
    return txn.Commit();
  }();
  db->Exec("DETACH DATABASE legacy").IgnoreError();
  CTXKIT_RETURN_IF_ERROR(s.WithContext("import " + legacy_path));
  for (const char* suffix : {"-wal", "-shm"}) {
    std::remove((legacy_path + suffix).c_str());
  }
  return MarkImported(legacy_path);
}

}  // namespace ctxkit::storage::sqlite_sessions
