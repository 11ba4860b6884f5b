// The one error every write refuses with when the store is open read-only:
// each engine's writes (storage/backend.h) and a read-only SQLite handle's
// (os/sqlite_db.h) give the same message.

#ifndef CTXKIT_OS_READ_ONLY_ERROR_H_
#define CTXKIT_OS_READ_ONLY_ERROR_H_

#include <string_view>

#include "ctxkit/status.h"

namespace ctxkit::storage {

// PermissionDenied naming `what` ("set", "gc", ...) as refused because the
// store is open read-only.
Status ReadOnlyError(std::string_view what);

}  // namespace ctxkit::storage

#endif  // CTXKIT_OS_READ_ONLY_ERROR_H_
