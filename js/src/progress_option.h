// options.onProgress of the long calls (findRelevant, session.ingest): a
// function called on the JavaScript thread with {task, unit, done, total,
// elapsedSeconds, finished} for each report of the work running on a
// worker thread (ctxkit/progress.h), through a thread-safe function.
#ifndef CTXKIT_JS_PROGRESS_OPTION_H_
#define CTXKIT_JS_PROGRESS_OPTION_H_

#include <napi.h>

#include "ctxkit/progress.h"

namespace ctxkit::node {

// No reports when options.onProgress is undefined; a TypeError when it is
// not a function. Reports come at most every $CTXKIT_PROGRESS_INTERVAL_MS;
// they are queued to the JavaScript thread, so the last ones may run just
// after the call's Promise settles. An exception the function throws is
// reported as an uncaught exception, as for any callback.
ProgressOptions ProgressOption(const Napi::Object& options);

}  // namespace ctxkit::node

#endif  // CTXKIT_JS_PROGRESS_OPTION_H_
