// Runs one CLI invocation and records it in the execution log: the glue
// the `notes` and `tools` verbs share (include/ctxkit/notes.h has the log
// format).

#ifndef CTXKIT_NOTES_INVOCATION_LOG_H_
#define CTXKIT_NOTES_INVOCATION_LOG_H_

#include <functional>
#include <string>
#include <vector>

#include "ctxkit/store.h"

namespace ctxkit::notes {

// What the verb reports about itself for its log line.
struct Invocation {
  std::string agent;
  std::string session_id;
  std::string input;   // A short description of what it was given.
  std::string output;  // What it printed (a path, a pointer...).
  std::vector<std::string> context_files;  // Notes written.
};

// Runs `body`, then appends one entry with its exit code and duration to
// the execution log of the store `store()` returns (skipped when it returns
// nullptr: no store could be opened, and the verb said so). Asked after the
// body, so the verb opens the store first. A failure to log is reported on
// stderr and never changes the exit code: the work is done either way.
int RunLogged(const std::function<Store*()>& store, const std::string& command,
              const std::function<int(Invocation&)>& body);

}  // namespace ctxkit::notes

#endif  // CTXKIT_NOTES_INVOCATION_LOG_H_
