// The PostgreSQL engine's CommitListener (backend.h): a connection of its
// own that LISTENs on the store's change channel (pg_schema.h), which every
// commit advancing the change sequence notifies.

#ifndef CTXKIT_POSTGRES_PG_LISTENER_H_
#define CTXKIT_POSTGRES_PG_LISTENER_H_

#include <memory>
#include <string>

#include "ctxkit/status.h"
#include "storage/backend.h"

namespace ctxkit::storage {

// Connects to `url` (as OpenPostgresBackend does) and starts listening.
// Unavailable when the server cannot be reached.
Result<std::unique_ptr<CommitListener>> OpenPgCommitListener(
    const std::string& url);

}  // namespace ctxkit::storage

#endif  // CTXKIT_POSTGRES_PG_LISTENER_H_
