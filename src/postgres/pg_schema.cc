#include "postgres/pg_schema.h"

#include <random>
#include <string>

#include "core/encoding.h"
#include "core/hmac.h"
#include "core/status_macros.h"
#include "postgres/pg_holds.h"
#include "postgres/pg_put.h"
#include "postgres/pg_records.h"

namespace ctxkit::storage {
namespace {

// Version 1. Keys, scopes and tags compare bytewise (COLLATE "C"), as in
// the SQLite engine, so listings and keyset pages have one order.
// Content is deduplicated by hash and held in fixed-size pieces stored
// uncompressed out of line (STORAGE EXTERNAL), so substring() of a piece
// reads only the TOAST chunks it covers. ctxkit_seq is the durable change
// sequence: every write transaction bumps it first (which also orders
// writers) and stamps the objects it changes with the new value.
// Version 1 also made ctxkit_put, the server-side put; version 6
// (pg_put.cc, run right after these in the same transaction on a new
// store) replaces it, so its first body is no longer kept here.
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
  p.Text(core::ToHex(secret));
  return conn
      ->Exec(
          "INSERT INTO ctxkit_meta(name, value) VALUES ('schema_version', "
          "'1'), ('compatible_since', '1'), ('ref_secret', $1)",
          p)
      .status();
}

// Version 2: a commit that advanced the change sequence notifies the
// store's channel (delivered at commit, once per transaction), the wake-up
// of other machines' listeners (pg_listener.h). Version-1 builds keep
// working: the trigger fires for their writes too.
Status MigrateToV2(PgConn* conn) {
  return conn->Run(
      std::string("CREATE FUNCTION ctxkit_notify_change() RETURNS trigger "
                  "LANGUAGE plpgsql SET search_path = pg_catalog "
                  "AS $fn$ BEGIN PERFORM pg_notify(") +
      PgChangeChannelSql("TG_TABLE_SCHEMA") +
      ", ''); RETURN NULL; END $fn$; "
      "CREATE TRIGGER ctxkit_seq_changed AFTER UPDATE ON ctxkit_seq "
      "FOR EACH STATEMENT EXECUTE FUNCTION ctxkit_notify_change(); "
      "UPDATE ctxkit_meta SET value = '2' WHERE name = 'schema_version'");
}

// Version 3: the flags a partial session load filters on, set once from
// the stored entries' own fields (as the session layer sets them on every
// write), and their indexes. Builds of version 2 would write entries
// without them: they refuse the store from here on.
Status MigrateToV3(PgConn* conn) {
  return conn->Run(
      "ALTER TABLE ctxkit_session_entries "
      "  ADD COLUMN hot boolean NOT NULL DEFAULT true, "
      "  ADD COLUMN listed boolean NOT NULL DEFAULT false; "
      "UPDATE ctxkit_session_entries SET "
      "  hot = coalesce((entry::jsonb->>'active')::boolean, false) OR "
      "        coalesce((entry::jsonb->>'pinned_version')::bigint, 0) <> 0 OR "
      "        coalesce((entry::jsonb->>'locked')::boolean, false), "
      "  listed = NOT coalesce((entry::jsonb->>'locked')::boolean, false) AND "
      "           NOT coalesce((entry::jsonb->>'from_chat')::boolean, false); "
      "CREATE INDEX ctxkit_session_entries_hot "
      "  ON ctxkit_session_entries(session) WHERE hot; "
      "CREATE INDEX ctxkit_session_entries_listed "
      "  ON ctxkit_session_entries(session, seq) WHERE listed; "
      "UPDATE ctxkit_meta SET value = '3' WHERE name = 'schema_version'; "
      "INSERT INTO ctxkit_meta(name, value) VALUES ('compatible_since', '3') "
      "  ON CONFLICT (name) DO UPDATE SET value = excluded.value");
}

// A store below version 5 lacks columns or tables this build uses (v4:
// holds, which every writer must record before gc may trust them; v5: the
// named records and logs of spawn manifests, the watch list and the
// execution log).
Status CheckMigrated(const Stored& stored, const std::string& schema) {
  if (stored.version >= 5) return Status::Ok();
  return Status::FailedPrecondition(
      "PostgreSQL store in schema " + schema + " has version " +
      std::to_string(stored.version) + "; this build needs version " +
      std::to_string(kPgSchemaVersion) +
      " (open it once writable, as the role that owns its tables, to "
      "migrate it)");
}

// Version 6: ctxkit_put in fewer statements (pg_put.h), same signature
// and effects, so version-5 builds keep working (compatible_since stays
// 5). A role that does not own the function keeps version 5's, which is
// just as correct, until the owner opens the store. A new store (`existing`
// false) has no ctxkit_put before this step: it must not fail.
Status MigrateToV6(PgConn* conn, bool existing) {
  CTXKIT_RETURN_IF_ERROR(conn->Run("SAVEPOINT ctxkit_v6"));
  Status v6 = pg_put::Migrate(conn);
  if (existing && v6.code() == StatusCode::kPermissionDenied) {
    return conn->Run("ROLLBACK TO SAVEPOINT ctxkit_v6");
  }
  return v6;
}

}  // namespace

Status CheckPgSchema(PgConn* conn) {
  CTXKIT_ASSIGN_OR_RETURN(std::string schema, CurrentSchema(conn));
  CTXKIT_ASSIGN_OR_RETURN(Stored stored, ReadStored(conn));
  if (stored.version == 0) {
    return Status::NotFound("no ctxkit store in PostgreSQL schema " + schema);
  }
  CTXKIT_RETURN_IF_ERROR(CheckReadable(stored, schema));
  return CheckMigrated(stored, schema);
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
      // Each step in this same transaction.
      if (stored.version == 0) CTXKIT_RETURN_IF_ERROR(CreateV1(conn));
      if (stored.version < 2) {
        // A role with only table privileges (docs/postgres.md) may not add
        // the trigger: its store stays at version 1, without wake-ups
        // (listeners poll), until its owner opens it once.
        CTXKIT_RETURN_IF_ERROR(conn->Run("SAVEPOINT ctxkit_v2"));
        Status v2 = MigrateToV2(conn);
        if (v2.code() == StatusCode::kPermissionDenied && stored.version == 1) {
          CTXKIT_RETURN_IF_ERROR(conn->Run("ROLLBACK TO SAVEPOINT ctxkit_v2"));
        } else {
          CTXKIT_RETURN_IF_ERROR(v2);
        }
      }
      if (stored.version < 3) {
        Status v3 = MigrateToV3(conn);
        if (v3.code() == StatusCode::kPermissionDenied) {
          return CheckMigrated(stored, schema);
        }
        CTXKIT_RETURN_IF_ERROR(v3);
      }
      if (stored.version < 4) {
        Status v4 = pg_holds::CreateSchema(conn, stored.version != 0);
        if (v4.code() == StatusCode::kPermissionDenied) {
          return CheckMigrated(stored, schema);
        }
        CTXKIT_RETURN_IF_ERROR(v4);
      }
      if (stored.version < 5) {
        Status v5 = pg_records::CreateSchema(conn);
        if (v5.code() == StatusCode::kPermissionDenied) {
          return CheckMigrated(stored, schema);
        }
        CTXKIT_RETURN_IF_ERROR(v5);
      }
      if (stored.version < 6) {
        CTXKIT_RETURN_IF_ERROR(MigrateToV6(conn, stored.version != 0));
      }
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
