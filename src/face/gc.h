// Garbage collection as every face starts it (`ctxkit gc`, Python's
// Store.collect_garbage, the Node package): Store::CollectGarbage, which
// keeps everything sessions, externalized contexts and spawn manifests
// hold, after recording once what a store's older state names.
#ifndef CTXKIT_FACE_GC_H_
#define CTXKIT_FACE_GC_H_

#include "ctxkit/status.h"
#include "ctxkit/store.h"

namespace ctxkit::face {

// Store::CollectGarbage(options). On a store whose sessions or spawn
// manifests were written by a build that did not record holds, first
// holds what they name (pins, activations, compactions, every render
// record's refs, externalized contexts, the spawn manifests the store
// keeps, those of this home's <home>/spawn imported first), then marks
// the store recorded. A version such state names
// that is already gone is skipped. Fails, collecting nothing, when that
// state cannot be read: what it names is unknown.
Result<GarbageReport> CollectGarbage(Store& store,
                                     const GarbageOptions& options);

// The recording step alone (a no-op on a store with nothing pending).
Status RecordEarlierHolds(Store& store);

}  // namespace ctxkit::face

#endif  // CTXKIT_FACE_GC_H_
