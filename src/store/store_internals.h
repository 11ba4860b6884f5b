// For ctxkit's own layers above store/ that keep durable state of their
// own (the context manager's session state): the storage engine behind a
// Store, so that state goes through the Backend interface like objects do
// and follows the store to whichever engine holds it. Not for users; the
// public API is include/ctxkit/store.h.

#ifndef CTXKIT_STORE_STORE_INTERNALS_H_
#define CTXKIT_STORE_STORE_INTERNALS_H_

#include "ctxkit/store.h"
#include "storage/backend.h"

namespace ctxkit {

class StoreInternals {
 public:
  // The Backend `store` writes to. Valid while `store` is open.
  static storage::Backend& BackendOf(Store& store);
};

}  // namespace ctxkit

#endif  // CTXKIT_STORE_STORE_INTERNALS_H_
