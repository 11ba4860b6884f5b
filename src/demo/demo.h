// `ctxkit demo`: a guided tour of the store, sessions, watchers, capture,
// notes, externalization and sub-agents on a real document. It sits above
// the CLI (it uses the CLI's context and output helpers); the ctxkit binary
// adds it to the CLI's verbs (src/main.cc).

#ifndef CTXKIT_DEMO_DEMO_H_
#define CTXKIT_DEMO_DEMO_H_

#include "cli/cli_app.h"

namespace ctxkit::cli {

// Registers the `demo` verb.
void RegisterDemoCommand(CLI::App& app, CommandTable& table);

}  // namespace ctxkit::cli

#endif  // CTXKIT_DEMO_DEMO_H_
