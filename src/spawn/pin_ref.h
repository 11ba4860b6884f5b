// Turning a ref the parent passes into the static ref a manifest records.

#ifndef CTXKIT_SPAWN_PIN_REF_H_
#define CTXKIT_SPAWN_PIN_REF_H_

#include "ctxkit/ref.h"
#include "ctxkit/status.h"
#include "ctxkit/store.h"

namespace ctxkit::spawn {

// A static ref to the version `ref` names for `parent`: the latest version
// of a dynamic ref, the pinned one of a static ref, with metadata taken
// from the store (never from the ref, which may be stale or forged).
// Reads metadata and at most one byte of content, through the parent's view
// (so only what the parent can resolve passes).
//
// NotFound: the object is gone, the key now names another object, or the
// ref belongs to another store. InvalidArgument: a static ref whose type or
// size disagrees with its version. FailedPrecondition: a session-only ref.
Result<Ref> PinForChild(View& parent, const Ref& ref);

}  // namespace ctxkit::spawn

#endif  // CTXKIT_SPAWN_PIN_REF_H_
