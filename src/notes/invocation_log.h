// Runs one CLI invocation and records it in the execution log: the glue
// the `notes` and `tools` verbs share (include/ctxkit/notes.h has the log
// format).

#ifndef CTXKIT_NOTES_INVOCATION_LOG_H_
#define CTXKIT_NOTES_INVOCATION_LOG_H_

#include <functional>
#include <string>
#include <vector>

namespace ctxkit::notes {

// What the verb reports about itself for its log line.
struct Invocation {
  std::string agent;
  std::string session_id;
  std::string input;   // A short description of what it was given.
  std::string output;  // What it printed (a path, a pointer...).
  std::vector<std::string> context_files;  // Notes written.
};

// Runs `body` and appends one line to `log_path` (skipped when empty) with
// its exit code and duration. A failure to log is reported on stderr and
// never changes the exit code: the work is done either way.
int RunLogged(const std::string& log_path, const std::string& command,
              const std::function<int(Invocation&)>& body);

}  // namespace ctxkit::notes

#endif  // CTXKIT_NOTES_INVOCATION_LOG_H_
