// A libpq connection for the PostgreSQL engine (pg_backend.cc): statements
// with typed binary parameters and binary results, prepared once per
// connection, errors mapped to Status codes with any password scrubbed,
// and reconnection after the server went away.
//
// Thread safety: none; the engine uses one PgConn under its mutex.

#ifndef CTXKIT_POSTGRES_PG_CONN_H_
#define CTXKIT_POSTGRES_PG_CONN_H_

#include <libpq-fe.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ctxkit/status.h"
#include "postgres/pq_api.h"

namespace ctxkit::storage {

// Parameters of one statement, all sent in binary form with their types
// named, so the server never guesses a type from text.
class PgParams {
 public:
  PgParams& Int(int64_t v);             // int8
  PgParams& Bytes(std::string_view v);  // bytea
  PgParams& Text(std::string_view v);   // text (valid UTF-8, no NUL)
  PgParams& Null();                     // an untyped NULL

  int size() const { return static_cast<int>(types_.size()); }
  const Oid* types() const { return types_.data(); }
  const int* lengths() const { return lengths_.data(); }
  const int* formats() const { return formats_.data(); }
  // Pointers into the values; valid while this object lives unchanged.
  std::vector<const char*> Values() const;

 private:
  PgParams& Add(Oid type, std::string_view bytes, bool null);

  std::vector<Oid> types_;
  std::vector<std::string> values_;
  std::vector<bool> nulls_;
  std::vector<int> lengths_;
  std::vector<int> formats_;
};

// The rows of a statement's result, in binary form.
class PgRows {
 public:
  explicit PgRows(PGresult* result) : result_(result, Pq().clear) {}

  int size() const { return Pq().ntuples(result_.get()); }
  bool empty() const { return size() == 0; }
  int columns() const { return Pq().nfields(result_.get()); }
  bool IsNull(int row, int col) const {
    return Pq().getisnull(result_.get(), row, col) != 0;
  }
  // An integer column (int2, int4, int8 or bool); 0 when NULL.
  int64_t Int(int row, int col) const;
  // A bytea or text column's bytes; empty when NULL.
  std::string Bytes(int row, int col) const;
  // Rows changed by an INSERT, UPDATE or DELETE.
  uint64_t Affected() const;
  const PGresult* result() const { return result_.get(); }

 private:
  std::unique_ptr<PGresult, decltype(&PQclear)> result_;
};

class PgConn {
 public:
  // Connects to `url` (a libpq URI or key=value string; PGPASSFILE, service
  // files and the PG* environment apply as in psql). InvalidArgument for a
  // malformed string, Unavailable when the server cannot be reached,
  // PermissionDenied when it refuses the login. No message ever holds the
  // password.
  // `setup`: statements run at once on every new server session (this
  // one and each after a reconnect), e.g. SET synchronous_commit.
  static Result<std::unique_ptr<PgConn>> Connect(const std::string& url,
                                                 std::string setup);
  ~PgConn();
  PgConn(const PgConn&) = delete;
  PgConn& operator=(const PgConn&) = delete;

  // Runs `sql` (prepared on first use on this connection) with `params`.
  // Errors: Unavailable when the connection is lost or the server is
  // shutting down (the connection is then reset by the next
  // EnsureConnected), or for a lock timeout, serialization conflict or
  // deadlock (nothing written; try again); InvalidArgument for a data
  // exception (e.g. text that is not valid UTF-8); PermissionDenied for a
  // privilege or read-only error; ResourceExhausted for a full disk;
  // Internal otherwise.
  Result<PgRows> Exec(const std::string& sql, const PgParams& params = {});
  // Runs one or more statements without parameters (DDL, BEGIN, COMMIT).
  Status Run(const std::string& sql);

  // Reconnects when the connection was lost. Unavailable when the server
  // still cannot be reached.
  Status EnsureConnected();
  bool Broken() const { return Pq().status(conn_) != CONNECTION_OK; }

  // The session's socket, for LISTEN wake-ups; and the notifications
  // received so far (their channels), after consuming input.
  int Socket() const { return Pq().socket(conn_); }
  Result<std::vector<std::string>> TakeNotifications();

 private:
  PgConn(PGconn* conn, std::vector<std::string> secrets, std::string setup)
      : conn_(conn), secrets_(std::move(secrets)), setup_(std::move(setup)) {}
  Status ErrorOf(const PGresult* result, std::string_view what) const;
  std::string Scrub(std::string message) const;
  // Quiets notices and runs setup_ on a new server session.
  Status StartSession();

  PGconn* conn_;
  std::vector<std::string> secrets_;  // Never shown in a message.
  std::string setup_;
  bool needs_reset_ = false;  // Connected, but setup_ failed.

  std::unordered_map<std::string, std::string> prepared_;  // sql -> name
};

// The password of `url`, in each form it may appear in a message (as
// written and percent-decoded); empty when there is none. For scrubbing.
std::vector<std::string> PgSecrets(const std::string& url);

}  // namespace ctxkit::storage

#endif  // CTXKIT_POSTGRES_PG_CONN_H_
