#include "postgres/pg_schema.h"

#include <random>
#include <string>

#include "core/encoding.h"
#include "core/hmac.h"
#include "core/status_macros.h"
#include "postgres/pg_holds.h"
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
-- A whole put in one round trip (pg_backend.cc PutLocked): takes the
-- change sequence's row and a stamp, finds or creates the object, stores
-- the content unless its hash is stored (p_data: the content when it is
-- one piece or less; NULL when it was uploaded before), appends the
-- version (a new run of appends for an appendable type) and replaces the
-- tags (p_tags: sorted, unique, joined by newlines). When p_expected is
-- not 0 and the latest version is not it, writes nothing but the stamp and
-- returns r_id NULL and r_at, the version found.
CREATE FUNCTION ctxkit_put(p_scope text, p_key text, p_type integer,
    p_hash bytea, p_size bigint, p_data bytea, p_producer text,
    p_now bigint, p_tokens bigint, p_expected bigint, p_tags text,
    p_appendable boolean)
  RETURNS TABLE(r_stamp bigint, r_id bigint, r_version bigint,
                r_created bigint, r_at bigint)
  LANGUAGE plpgsql AS $fn$
DECLARE
  v_stamp bigint;
  v_id bigint;
  v_latest bigint;
  v_created bigint;
  v_tags text;
  v_content bigint;
  v_version bigint;
BEGIN
  UPDATE ctxkit_seq SET seq = seq + 1 RETURNING seq INTO v_stamp;
  SELECT o.id, o.latest_version, o.created_ns,
         (SELECT string_agg(t.tag, E'\n' ORDER BY t.tag) FROM ctxkit_tags t
          WHERE t.object_id = o.id)
    INTO v_id, v_latest, v_created, v_tags
    FROM ctxkit_objects o WHERE o.scope = p_scope AND o.key = p_key
    ORDER BY o.deleted, o.updated_ns DESC LIMIT 1;
  IF p_expected <> 0 AND coalesce(v_latest, 0) <> p_expected THEN
    RETURN QUERY SELECT v_stamp, NULL::bigint, NULL::bigint, NULL::bigint,
                        coalesce(v_latest, 0);
    RETURN;
  END IF;
  IF v_id IS NULL THEN
    INSERT INTO ctxkit_objects(id, scope, key, type, latest_version, deleted,
                               size, created_ns, updated_ns, changed)
      VALUES (nextval('ctxkit_object_ids'), p_scope, p_key, p_type, 0, false,
              0, p_now, p_now, v_stamp)
      RETURNING id INTO v_id;
    v_latest := 0;
    v_created := p_now;
  END IF;
  SELECT id INTO v_content FROM ctxkit_contents WHERE hash = p_hash;
  IF v_content IS NULL THEN
    IF p_data IS NULL THEN
      RAISE EXCEPTION 'a content uploaded for this write was collected'
        USING ERRCODE = 'CK001';
    END IF;
    INSERT INTO ctxkit_contents(hash, size) VALUES (p_hash, p_size)
      ON CONFLICT (hash) DO NOTHING RETURNING id INTO v_content;
    IF v_content IS NULL THEN
      SELECT id INTO v_content FROM ctxkit_contents WHERE hash = p_hash;
    ELSIF p_size > 0 THEN
      INSERT INTO ctxkit_pieces(content_id, off, data)
        VALUES (v_content, 0, p_data);
    END IF;
  END IF;
  v_version := v_latest + 1;
  IF p_appendable THEN
    INSERT INTO ctxkit_chunks(object_id, version, stream_base, off, size,
                              hash, content_id)
      VALUES (v_id, v_version, v_version, 0, p_size, p_hash, v_content);
  END IF;
  INSERT INTO ctxkit_versions(object_id, version, state, type, hash, size,
                              created_ns, producer, stream_base, content_id,
                              tokens)
    VALUES (v_id, v_version, 0, p_type, p_hash, p_size, p_now, p_producer,
            CASE WHEN p_appendable THEN v_version ELSE 0 END,
            CASE WHEN p_appendable THEN NULL ELSE v_content END, p_tokens);
  UPDATE ctxkit_objects SET type = p_type, latest_version = v_version,
         deleted = false, size = p_size, updated_ns = p_now,
         changed = v_stamp
    WHERE id = v_id;
  IF coalesce(v_tags, '') <> p_tags THEN
    DELETE FROM ctxkit_tags WHERE object_id = v_id;
    INSERT INTO ctxkit_tags(object_id, tag)
      SELECT v_id, t FROM unnest(string_to_array(p_tags, E'\n')) AS t
      WHERE t <> '';
  END IF;
  RETURN QUERY SELECT v_stamp, v_id, v_version, v_created, v_version;
END
$fn$;
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
