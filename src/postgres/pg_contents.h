// Contents in the PostgreSQL engine (docs/postgres.md): stored once per
// distinct SHA-256 in ctxkit_contents, as kPgPieceBytes pieces in
// ctxkit_pieces kept uncompressed out of line, so a range read fetches
// only the pieces, and of each only the bytes, it covers.
//
// Every function runs statements on `conn`; the caller holds the lock of
// the engine's connection.

#ifndef CTXKIT_POSTGRES_PG_CONTENTS_H_
#define CTXKIT_POSTGRES_PG_CONTENTS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "ctxkit/status.h"
#include "postgres/pg_conn.h"
#include "storage/backend.h"

namespace ctxkit::storage {

// Stores a content larger than one piece in a transaction of its own (no
// transaction may be open), before the write that references it: a large
// upload then does not hold other writers up. Smaller contents: nothing to
// do (PgContentId stores them inside the write).
Status PgUploadContent(PgConn* conn, std::string_view hash,
                       std::string_view content);

// The id of the content with `hash`, storing it (and its pieces) when
// missing. Inside a write transaction, which a collection cannot overlap.
Result<int64_t> PgContentId(PgConn* conn, std::string_view hash,
                            std::string_view content);

// [offset, offset + length) of a present version, which the caller has
// clipped to the content. The whole content's version, or a stream's run
// of chunks. Corruption when the stored pieces do not cover the range.
Result<std::string> PgReadRange(PgConn* conn, const VersionRecord& v,
                                uint64_t offset, uint64_t length);

// Deletes content `id` and its pieces when no version or chunk references
// it any more; the bytes freed (0 when it is still referenced).
Result<uint64_t> PgDropContentIfUnused(PgConn* conn, int64_t id);

// Deletes contents nothing references that were stored over an hour ago:
// uploads whose write then failed or never came (a crash, a refused
// conditional write). An upload is referenced within moments, so the hour
// never catches one in flight. Returns (contents, bytes) freed.
Result<std::pair<uint64_t, uint64_t>> PgDropOrphanContents(PgConn* conn);

}  // namespace ctxkit::storage

#endif  // CTXKIT_POSTGRES_PG_CONTENTS_H_
