#include "notes/invocation_log.h"

#include <chrono>
#include <cstdio>

#include "core/clock.h"
#include "ctxkit/notes.h"

namespace ctxkit::notes {

int RunLogged(const std::function<Store*()>& store, const std::string& command,
              const std::function<int(Invocation&)>& body) {
  auto start = std::chrono::steady_clock::now();
  Invocation inv;
  int code = body(inv);
  Store* log_store = store();
  if (log_store == nullptr) return code;
  ExecutionLogEntry e;
  e.timestamp = core::FormatIso8601(core::NowUnixNanos());
  e.agent = inv.agent;
  e.session_id = inv.session_id;
  e.command = command;
  e.status = code == 0 ? "ok" : "error";
  e.exit_code = code;
  e.duration_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::steady_clock::now() - start)
                      .count();
  e.input = inv.input;
  e.output = inv.output;
  e.context_files = inv.context_files;
  Status s = AppendExecutionLog(*log_store, e);
  if (!s.ok()) {
    std::fprintf(stderr, "ctxkit: warning: execution log not written: %s\n",
                 s.ToString().c_str());
  }
  return code;
}

}  // namespace ctxkit::notes
