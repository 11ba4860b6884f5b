// The storage engine behind a Store, for the store layer's own files and
// for tests that reach under a Store (an engine's counters, a damaged
// row). The layers above the store may not include this header
// (cmake/layers.cmake seals it with storage/ and the engines): they go
// through Store, StoreInternals (store/store_internals.h) and
// StoredSessions (store/stored_sessions.h).

#ifndef CTXKIT_STORE_STORE_BACKEND_H_
#define CTXKIT_STORE_STORE_BACKEND_H_

#include "ctxkit/store.h"
#include "storage/backend.h"
#include "store/store_internals.h"

namespace ctxkit {

// The Backend `store` writes to. Valid while `store` is open.
storage::Backend& BackendOf(Store& store);

}  // namespace ctxkit

#endif  // CTXKIT_STORE_STORE_BACKEND_H_
