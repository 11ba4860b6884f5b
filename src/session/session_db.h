// Durable session state: <home>/sessions.db (SQLite, WAL). One row per
// session (its small state as JSON and a generation counter) and one row
// per pool entry, so a mutation rewrites only what changed. Format in
// docs/sessions.md.

#ifndef CTXKIT_SESSION_SESSION_DB_H_
#define CTXKIT_SESSION_SESSION_DB_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ctxkit/status.h"
#include "storage/sqlite_db.h"

namespace ctxkit::session {

class SessionDb {
 public:
  static Result<std::unique_ptr<SessionDb>> Open(const std::string& home);

  // Write transactions: BEGIN IMMEDIATE, so a load-modify-store cycle of one
  // process never interleaves with another's.
  Status Begin();
  Status Commit();
  void Rollback();

  // nullopt when the session does not exist.
  Result<std::optional<uint64_t>> Generation(const std::string& id);
  // The state JSON; NotFound when the session does not exist.
  Result<std::string> LoadState(const std::string& id);
  // Calls `fn(entry_json)` for every entry of the session.
  Status LoadEntries(const std::string& id,
                     const std::function<Status(const std::string&)>& fn);
  Status InsertSession(const std::string& id, const std::string& state_json);
  Status UpdateState(const std::string& id, uint64_t generation,
                     const std::string& state_json);
  Status PutEntry(const std::string& id, const std::string& object_id,
                  uint64_t seq, const std::string& entry_json);
  Status DeleteEntry(const std::string& id, const std::string& object_id);
  Result<std::vector<std::string>> ListIds();

 private:
  explicit SessionDb(std::unique_ptr<storage::SqliteDb> db)
      : db_(std::move(db)) {}
  std::unique_ptr<storage::SqliteDb> db_;
  bool in_tx_ = false;
};

}  // namespace ctxkit::session

#endif  // CTXKIT_SESSION_SESSION_DB_H_
