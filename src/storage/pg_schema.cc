#include "storage/pg_schema.h"

#include <random>
#include <string>

#include "core/encoding.h"
#include "core/hmac.h"
#include "core/status_macros.h"

namespace ctxkit::storage {
namespace {

// Version 1. Keys, scopes and tags compare bytewise (COLLATE "C"), as in
// the SQLite engine, so listings and keyset pages have one order.
// Content is deduplicated by hash and held in fixed-size pieces stored
// uncompressed out of line (STORAGE EXTERNAL), so substring() of a piece
// reads only the TOAST chunks it covers. ctxkit_seq is the durable change
// sequence: every write transaction bumps it first (which also orders
// writers) and stamps the objects it changes with the new value.
constexpr const char* kSchemaV1 = R"sql(
CREATE TABLE ctxkit_meta(
  name  text PRIMARY KEY,
  value text NOT NULL
);
CREATE TABLE ctxkit_seq(
  one smallint PRIMARY KEY CHECK (one = 1),
  seq bigint NOT NULL
);
INSERT INTO ctxkit_seq VALUES (1, 0);
CREATE TABLE ctxkit_objects(
  id             bigint PRIMARY KEY,
  scope          text COLLATE "C" NOT NULL,
  key            text COLLATE "C" NOT NULL,
  type           integer NOT NULL,
  latest_version bigint NOT NULL,
  deleted        boolean NOT NULL,
  size           bigint NOT NULL,
  created_ns     bigint NOT NULL,
  updated_ns     bigint NOT NULL,
  changed        bigint NOT NULL
);
CREATE INDEX ctxkit_objects_by_key ON ctxkit_objects(key, scope);
CREATE INDEX ctxkit_objects_by_change ON ctxkit_objects(changed);
CREATE TABLE ctxkit_contents(
  id         bigserial PRIMARY KEY,
  hash       bytea NOT NULL UNIQUE,
  size       bigint NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE ctxkit_pieces(
  content_id bigint NOT NULL,
  off        bigint NOT NULL,
  data       bytea NOT NULL,
  PRIMARY KEY(content_id, off)
);
ALTER TABLE ctxkit_pieces ALTER COLUMN data SET STORAGE EXTERNAL;
CREATE TABLE ctxkit_versions(
  object_id   bigint NOT NULL,
  version     bigint NOT NULL,
  state       integer NOT NULL,
  type        integer NOT NULL,
  hash        bytea,
  size        bigint NOT NULL,
  created_ns  bigint NOT NULL,
  producer    text NOT NULL,
  stream_base bigint NOT NULL,
  tokens      bigint,
  content_id  bigint,
  PRIMARY KEY(object_id, version)
);
CREATE INDEX ctxkit_versions_by_content ON ctxkit_versions(content_id);
CREATE TABLE ctxkit_tags(
  object_id bigint NOT NULL,
  tag       text COLLATE "C" NOT NULL,
  PRIMARY KEY(object_id, tag)
);
CREATE INDEX ctxkit_tags_by_tag ON ctxkit_tags(tag, object_id);
CREATE TABLE ctxkit_chunks(
  object_id   bigint NOT NULL,
  version     bigint NOT NULL,
  stream_base bigint NOT NULL,
  off         bigint NOT NULL,
  size        bigint NOT NULL,
  hash        bytea NOT NULL,
  content_id  bigint NOT NULL,
  PRIMARY KEY(object_id, version)
);
CREATE INDEX ctxkit_chunks_by_offset ON ctxkit_chunks(object_id, stream_base, off);
CREATE INDEX ctxkit_chunks_by_content ON ctxkit_chunks(content_id);
CREATE TABLE ctxkit_sessions(
  id         text COLLATE "C" PRIMARY KEY,
  generation bigint NOT NULL,
  state      text NOT NULL
);
CREATE TABLE ctxkit_session_entries(
  session   text COLLATE "C" NOT NULL,
  object_id text COLLATE "C" NOT NULL,
  seq       bigint NOT NULL,
  entry     text NOT NULL,
  PRIMARY KEY(session, object_id)
);
)sql";

struct Stored {
  int version = 0;  // 0: no store in this schema.
  int compatible_since = 0;
};

Result<std::string> CurrentSchema(PgConn* conn) {
  CTXKIT_ASSIGN_OR_RETURN(PgRows rows, conn->Exec("SELECT current_schema()"));
  if (rows.empty() || rows.IsNull(0, 0)) {
    CTXKIT_ASSIGN_OR_RETURN(PgRows path, conn->Exec("SHOW search_path"));
    return Status::FailedPrecondition(
        "PostgreSQL store: no schema of the search_path (" +
        (path.empty() ? std::string() : path.Bytes(0, 0)) +
        ") exists; create it (CREATE SCHEMA ...) or set search_path, e.g. "
        "options=-csearch_path%3Dmy_schema in the URL");
  }
  return rows.Bytes(0, 0);
}

Result<Stored> ReadStored(PgConn* conn) {
  // In the current schema only: a store in a later schema of the
  // search_path is another store.
  CTXKIT_ASSIGN_OR_RETURN(
      PgRows table, conn->Exec("SELECT to_regclass(format('%I.ctxkit_meta', "
                               "current_schema())) IS NOT NULL"));
  Stored out;
  if (table.empty() || table.Int(0, 0) == 0) return out;
  CTXKIT_ASSIGN_OR_RETURN(
      PgRows rows,
      conn->Exec("SELECT name, value FROM ctxkit_meta WHERE name IN "
                 "('schema_version', 'compatible_since')"));
  for (int i = 0; i < rows.size(); ++i) {
    const int value = std::atoi(rows.Bytes(i, 1).c_str());
    if (rows.Bytes(i, 0) == "schema_version") {
      out.version = value;
    } else {
      out.compatible_since = value;
    }
  }
  if (out.compatible_since == 0) out.compatible_since = out.version;
  return out;
}

Status CheckReadable(const Stored& stored, const std::string& schema) {
  if (stored.compatible_since > kPgSchemaVersion) {
    return Status::FailedPrecondition(
        "PostgreSQL store in schema " + schema + " has version " +
        std::to_string(stored.version) +
        ", readable from ctxkit builds of "
        "schema version " +
        std::to_string(stored.compatible_since) +
        "; this build reads version " + std::to_string(kPgSchemaVersion) +
        ": upgrade ctxkit");
  }
  return Status::Ok();
}

Status CreateV1(PgConn* conn) {
  CTXKIT_RETURN_IF_ERROR(conn->Run(kSchemaV1));
  // Object ids start at a random base per store, as in the SQLite engine
  // (sqlite_schema.cc): ids of two stores practically never collide.
  std::random_device rd;
  const uint64_t low = 2176782336ull;  // 36^6
  const uint64_t span = 78364164096ull - 4294967296ull - low;
  const uint64_t base = low + ((uint64_t{rd()} << 32 | rd()) % span);
  CTXKIT_RETURN_IF_ERROR(conn->Run("CREATE SEQUENCE ctxkit_object_ids START " +
                                   std::to_string(base)));
  CTXKIT_ASSIGN_OR_RETURN(std::string secret, core::SecureRandomBytes(32));
  PgParams p;
  p.Text(std::to_string(kPgSchemaVersion)).Text(core::ToHex(secret));
  return conn
      ->Exec(
          "INSERT INTO ctxkit_meta(name, value) VALUES ('schema_version', $1), "
          "('compatible_since', $1), ('ref_secret', $2)",
          p)
      .status();
}

}  // namespace

Status CheckPgSchema(PgConn* conn) {
  CTXKIT_ASSIGN_OR_RETURN(std::string schema, CurrentSchema(conn));
  CTXKIT_ASSIGN_OR_RETURN(Stored stored, ReadStored(conn));
  if (stored.version == 0) {
    return Status::NotFound("no ctxkit store in PostgreSQL schema " + schema);
  }
  CTXKIT_RETURN_IF_ERROR(CheckReadable(stored, schema));
  if (stored.version < kPgSchemaVersion) {
    return Status::FailedPrecondition(
        "PostgreSQL store in schema " + schema + " has version " +
        std::to_string(stored.version) +
        "; open it once writable with this build to migrate it");
  }
  return Status::Ok();
}

Status EnsurePgSchema(PgConn* conn) {
  CTXKIT_ASSIGN_OR_RETURN(std::string schema, CurrentSchema(conn));
  CTXKIT_ASSIGN_OR_RETURN(Stored seen, ReadStored(conn));
  if (seen.version >= kPgSchemaVersion) return CheckReadable(seen, schema);
  // One opener migrates: the others wait on the lock, then find the schema
  // current. The lock is the session's (a lost connection releases it),
  // taken before the transaction: one begun after it sees the tables a
  // migrator that held the lock committed (a transaction begun before
  // could keep a stale catalog cache entry saying they do not exist).
  CTXKIT_RETURN_IF_ERROR(
      conn->Run("SELECT pg_advisory_lock(hashtext('ctxkit schema ' || "
                "current_schema())::bigint)"));
  Status s = conn->Run("BEGIN");
  if (s.ok()) {
    s = [&]() -> Status {
      CTXKIT_ASSIGN_OR_RETURN(Stored stored, ReadStored(conn));
      CTXKIT_RETURN_IF_ERROR(CheckReadable(stored, schema));
      if (stored.version == 0) CTXKIT_RETURN_IF_ERROR(CreateV1(conn));
      // Later versions migrate here, each step in this same transaction.
      return conn->Run("COMMIT");
    }();
    if (!s.ok()) conn->Run("ROLLBACK").IgnoreError();
  }
  conn->Run(
          "SELECT pg_advisory_unlock(hashtext('ctxkit schema ' || "
          "current_schema())::bigint)")
      .IgnoreError();
  return s;
}

}  // namespace ctxkit::storage
