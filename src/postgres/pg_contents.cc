#include "postgres/pg_contents.h"

#include "core/status_macros.h"
#include "postgres/pg_schema.h"

namespace ctxkit::storage {
namespace {

Result<int64_t> InsertContent(PgConn* conn, std::string_view hash,
                              std::string_view content) {
  CTXKIT_ASSIGN_OR_RETURN(
      PgRows inserted,
      conn->Exec(
          "INSERT INTO ctxkit_contents(hash, size) VALUES ($1, $2) "
          "ON CONFLICT (hash) DO NOTHING RETURNING id",
          PgParams().Bytes(hash).Int(static_cast<int64_t>(content.size()))));
  if (inserted.empty()) {
    // Another writer stored it first (its insert has committed).
    CTXKIT_ASSIGN_OR_RETURN(
        PgRows rows,
        conn->Exec("SELECT id FROM ctxkit_contents WHERE hash = $1",
                   PgParams().Bytes(hash)));
    if (rows.empty()) {
      return Status::Unavailable(
          "PostgreSQL store: a content being stored was removed meanwhile; "
          "try again");
    }
    return rows.Int(0, 0);
  }
  const int64_t id = inserted.Int(0, 0);
  for (uint64_t off = 0; off < content.size(); off += kPgPieceBytes) {
    PgParams p;
    p.Int(id)
        .Int(static_cast<int64_t>(off))
        .Bytes(content.substr(off, kPgPieceBytes));
    CTXKIT_RETURN_IF_ERROR(
        conn->Exec("INSERT INTO ctxkit_pieces(content_id, off, data) "
                   "VALUES ($1, $2, $3)",
                   p)
            .status());
  }
  return id;
}

// The bytes of rows (absolute offset, bytes), which must come to `length`.
Result<std::string> Assemble(const PgRows& rows, uint64_t length) {
  std::string out;
  out.reserve(length);
  for (int r = 0; r < rows.size(); ++r) out += rows.Bytes(r, 1);
  if (out.size() != length) {
    return Status::Corruption(
        "PostgreSQL store: stored pieces do not cover the range read");
  }
  return out;
}

}  // namespace

Status PgUploadContent(PgConn* conn, std::string_view hash,
                       std::string_view content) {
  if (content.size() <= kPgPieceBytes) return Status::Ok();
  // Its commit need not wait for the WAL flush: the write that references
  // the content commits later, synchronously, and WAL is flushed in order,
  // so that flush makes this upload durable too (and nothing references
  // an upload lost in a crash before it).
  CTXKIT_RETURN_IF_ERROR(
      conn->Run("BEGIN; SET LOCAL synchronous_commit = off"));
  Status s = InsertContent(conn, hash, content).status();
  if (s.ok()) s = conn->Run("COMMIT");
  if (!s.ok() && !conn->Broken()) conn->Run("ROLLBACK").IgnoreError();
  return s;
}

Result<int64_t> PgContentId(PgConn* conn, std::string_view hash,
                            std::string_view content) {
  if (content.size() <= kPgPieceBytes) {
    // One round trip: insert content and piece unless the hash is stored,
    // and return the id either way (the final SELECT does not see the
    // statement's own insert, which `ins` returns).
    CTXKIT_ASSIGN_OR_RETURN(
        PgRows rows,
        conn->Exec("WITH ins AS (INSERT INTO ctxkit_contents(hash, size) "
                   "VALUES ($1, $2) ON CONFLICT (hash) DO NOTHING RETURNING "
                   "id), piece AS (INSERT INTO ctxkit_pieces(content_id, off, "
                   "data) SELECT id, 0, $3 FROM ins WHERE $2 > 0) "
                   "SELECT id FROM ins UNION ALL "
                   "SELECT id FROM ctxkit_contents WHERE hash = $1",
                   PgParams()
                       .Bytes(hash)
                       .Int(static_cast<int64_t>(content.size()))
                       .Bytes(content)));
    if (rows.empty()) {
      return Status::Unavailable(
          "PostgreSQL store: a content being stored was removed meanwhile; "
          "try again");
    }
    return rows.Int(0, 0);
  }
  CTXKIT_ASSIGN_OR_RETURN(
      PgRows rows, conn->Exec("SELECT id FROM ctxkit_contents WHERE hash = $1",
                              PgParams().Bytes(hash)));
  if (!rows.empty()) return rows.Int(0, 0);
  return InsertContent(conn, hash, content);
}

Result<std::string> PgReadRange(PgConn* conn, const VersionRecord& v,
                                uint64_t offset, uint64_t length) {
  // Only the pieces overlapping [offset, end), and of each only that part:
  // substring of an uncompressed out-of-line value fetches just the TOAST
  // chunks it covers.
  static const std::string kWhole =
      "SELECT p.off, substring(p.data FROM (greatest($3, p.off) - p.off + "
      "1)::int FOR (least($4, p.off + length(p.data)) - greatest($3, "
      "p.off))::int) FROM ctxkit_versions v JOIN ctxkit_pieces p ON "
      "p.content_id = v.content_id WHERE v.object_id = $1 AND v.version = "
      "$2 AND p.off > $3 - $5 AND p.off < $4 ORDER BY p.off";
  // A stream: the chunk holding `offset` starts at the greatest chunk
  // offset not after it; the walk covers only the chunks, and of each only
  // the pieces, that overlap the range.
  static const std::string kStream =
      "SELECT s.off + p.off, substring(p.data FROM (greatest($3, s.off + "
      "p.off) - (s.off + p.off) + 1)::int FOR (least($4, s.off + p.off + "
      "length(p.data)) - greatest($3, s.off + p.off))::int) "
      "FROM ctxkit_chunks s JOIN ctxkit_pieces p ON p.content_id = "
      "s.content_id WHERE s.object_id = $1 AND s.stream_base = $6 AND "
      "s.version <= $2 AND s.off >= (SELECT coalesce(max(c.off), 0) FROM "
      "ctxkit_chunks c WHERE c.object_id = $1 AND c.stream_base = $6 AND "
      "c.off <= $3) AND s.off < $4 AND p.off > $3 - s.off - $5 AND p.off < "
      "$4 - s.off ORDER BY s.off, p.off";
  PgParams p;
  p.Int(v.object_id)
      .Int(static_cast<int64_t>(v.version))
      .Int(static_cast<int64_t>(offset))
      .Int(static_cast<int64_t>(offset + length))
      .Int(static_cast<int64_t>(kPgPieceBytes));
  if (v.stream_base != 0) p.Int(static_cast<int64_t>(v.stream_base));
  CTXKIT_ASSIGN_OR_RETURN(PgRows rows,
                          conn->Exec(v.stream_base == 0 ? kWhole : kStream, p));
  return Assemble(rows, length);
}

Result<uint64_t> PgDropContentIfUnused(PgConn* conn, int64_t id) {
  CTXKIT_ASSIGN_OR_RETURN(
      PgRows freed,
      conn->Exec("DELETE FROM ctxkit_contents k WHERE k.id = $1 AND NOT "
                 "EXISTS (SELECT 1 FROM ctxkit_versions WHERE content_id = "
                 "$1) AND NOT EXISTS (SELECT 1 FROM ctxkit_chunks WHERE "
                 "content_id = $1) RETURNING k.size",
                 PgParams().Int(id)));
  if (freed.empty()) return uint64_t{0};
  CTXKIT_RETURN_IF_ERROR(
      conn->Exec("DELETE FROM ctxkit_pieces WHERE content_id = $1",
                 PgParams().Int(id))
          .status());
  return static_cast<uint64_t>(freed.Int(0, 0));
}

Result<std::pair<uint64_t, uint64_t>> PgDropOrphanContents(PgConn* conn) {
  CTXKIT_ASSIGN_OR_RETURN(
      PgRows freed,
      conn->Exec("WITH gone AS (DELETE FROM ctxkit_contents k WHERE "
                 "k.created_at < now() - interval '1 hour' AND NOT EXISTS "
                 "(SELECT 1 FROM ctxkit_versions v WHERE v.content_id = k.id) "
                 "AND NOT EXISTS (SELECT 1 FROM ctxkit_chunks c WHERE "
                 "c.content_id = k.id) RETURNING k.id, k.size), pieces AS "
                 "(DELETE FROM ctxkit_pieces p USING gone WHERE p.content_id "
                 "= gone.id) SELECT count(*), coalesce(sum(size), 0)::bigint "
                 "FROM gone"));
  return std::make_pair(static_cast<uint64_t>(freed.Int(0, 0)),
                        static_cast<uint64_t>(freed.Int(0, 1)));
}

}  // namespace ctxkit::storage
