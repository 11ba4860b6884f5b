#include "postgres/pg_put.h"

namespace ctxkit::storage::pg_put {
namespace {

// What version 1's ctxkit_put does (pg_schema.cc), in four statements for
// a put of a new content (version 1: up to ten):
//  1. takes the change sequence's row and a stamp (its lock, held to
//     commit, orders writers, so stamps follow commit order);
//  2. finds the live or latest object at (scope, key) with its tags;
//     when p_expected is not 0 and the latest version is not it, writes
//     nothing but the stamp and returns r_id NULL and r_at, the version
//     found;
//  3. finds or stores the content, in one statement: the content row and
//     its one piece are inserted unless the hash is stored (p_data: the
//     content when it is one piece or less; NULL when it was uploaded
//     before). Every other writer of a content of one piece or less holds
//     the sequence's row too, so none is in flight here; the fallback
//     SELECT (a statement of its own, hence a newer snapshot) is for
//     safety only;
//  4. appends the version and creates or updates the object, in one
//     statement (a new object gets its final record at once; its id comes
//     from the sequence first);
// then, only when needed, the chunk of an appendable type (a new run of
// appends) and the tags (p_tags: sorted, unique, joined by newlines; the
// table is touched only when they change).
constexpr const char* kPutV6 = R"sql(
CREATE OR REPLACE FUNCTION ctxkit_put(p_scope text, p_key text,
    p_type integer, p_hash bytea, p_size bigint, p_data bytea,
    p_producer text, p_now bigint, p_tokens bigint, p_expected bigint,
    p_tags text, p_appendable boolean)
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
    r_stamp := v_stamp;
    r_at := coalesce(v_latest, 0);
    RETURN NEXT;
    RETURN;
  END IF;
  IF p_data IS NOT NULL THEN
    WITH ins AS (
      INSERT INTO ctxkit_contents(hash, size) VALUES (p_hash, p_size)
        ON CONFLICT (hash) DO NOTHING RETURNING id),
    piece AS (
      INSERT INTO ctxkit_pieces(content_id, off, data)
        SELECT id, 0, p_data FROM ins WHERE p_size > 0)
    SELECT id INTO v_content FROM ins
      UNION ALL SELECT id FROM ctxkit_contents WHERE hash = p_hash;
  END IF;
  IF v_content IS NULL THEN
    SELECT id INTO v_content FROM ctxkit_contents WHERE hash = p_hash;
    IF v_content IS NULL THEN
      RAISE EXCEPTION 'a content uploaded for this write was collected'
        USING ERRCODE = 'CK001';
    END IF;
  END IF;
  v_version := coalesce(v_latest, 0) + 1;
  IF v_id IS NULL THEN
    v_id := nextval('ctxkit_object_ids');
    v_created := p_now;
    WITH o AS (
      INSERT INTO ctxkit_objects(id, scope, key, type, latest_version,
                                 deleted, size, created_ns, updated_ns,
                                 changed)
        VALUES (v_id, p_scope, p_key, p_type, v_version, false, p_size,
                p_now, p_now, v_stamp))
    INSERT INTO ctxkit_versions(object_id, version, state, type, hash, size,
                                created_ns, producer, stream_base,
                                content_id, tokens)
      VALUES (v_id, v_version, 0, p_type, p_hash, p_size, p_now, p_producer,
              CASE WHEN p_appendable THEN v_version ELSE 0 END,
              CASE WHEN p_appendable THEN NULL ELSE v_content END, p_tokens);
  ELSE
    WITH v AS (
      INSERT INTO ctxkit_versions(object_id, version, state, type, hash,
                                  size, created_ns, producer, stream_base,
                                  content_id, tokens)
        VALUES (v_id, v_version, 0, p_type, p_hash, p_size, p_now,
                p_producer, CASE WHEN p_appendable THEN v_version ELSE 0 END,
                CASE WHEN p_appendable THEN NULL ELSE v_content END,
                p_tokens))
    UPDATE ctxkit_objects SET type = p_type, latest_version = v_version,
           deleted = false, size = p_size, updated_ns = p_now,
           changed = v_stamp
      WHERE id = v_id;
  END IF;
  IF p_appendable THEN
    INSERT INTO ctxkit_chunks(object_id, version, stream_base, off, size,
                              hash, content_id)
      VALUES (v_id, v_version, v_version, 0, p_size, p_hash, v_content);
  END IF;
  IF coalesce(v_tags, '') <> p_tags THEN
    DELETE FROM ctxkit_tags WHERE object_id = v_id;
    INSERT INTO ctxkit_tags(object_id, tag)
      SELECT v_id, t FROM unnest(string_to_array(p_tags, E'\n')) AS t
      WHERE t <> '';
  END IF;
  r_stamp := v_stamp;
  r_id := v_id;
  r_version := v_version;
  r_created := v_created;
  r_at := v_version;
  RETURN NEXT;
END
$fn$;
UPDATE ctxkit_meta SET value = '6' WHERE name = 'schema_version';
)sql";

}  // namespace

Status Migrate(PgConn* conn) { return conn->Run(kPutV6); }

}  // namespace ctxkit::storage::pg_put
