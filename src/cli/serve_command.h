// `ctxkit serve`'s command line, shared by the two programs that accept it.
//
// The HTTP server links cpp-httplib with OpenSSL, zlib and Brotli, whose
// loading would cost every CLI process milliseconds at start. So `ctxkit`
// itself does not link it: its `serve` verb (RegisterServeLauncher) checks
// the flags, then replaces the process with `ctxkit-serve`, the same CLI
// with the server linked in (RegisterServeCommands, src/cli/
// commands_serve.cc, library ctxkit_cli_serve), which parses the same
// argv and serves. Both define the verb through AddServeCommand, so the
// flags, help and errors are the same in both.

#ifndef CTXKIT_CLI_SERVE_COMMAND_H_
#define CTXKIT_CLI_SERVE_COMMAND_H_

#include <cstdint>
#include <string>
#include <vector>

#include "cli/cli_app.h"
#include "cli/mcp_common.h"
#include "ctxkit/status.h"

namespace CLI {
class App;
}  // namespace CLI

namespace ctxkit::cli {

struct ServeArgs {
  int port = 8765;
  std::string bind = "127.0.0.1";
  std::string token;
  uint64_t max_request_bytes = uint64_t{128} << 20;
  uint64_t max_connections = 1024;
  std::vector<std::string> allowed_origins;
  std::string shared_session;
  bool no_ui = false;
  McpServerFlags server;
};

// Adds the `serve` subcommand to `app`, parsing its flags into *args (which
// must outlive parsing).
CLI::App* AddServeCommand(CLI::App& app, ServeArgs* args);

// `serve` that runs the server in this process (links the HTTP stack).
void RegisterServeCommands(CLI::App& app, CommandTable& table);

// `serve` that execs ctxkit-serve with this process's command line: the
// program next to this one (the build tree), else the one in the install's
// libexec directory (CTXKIT_SERVE_RELATIVE, from the bin directory). A clear
// error names both places when neither exists.
void RegisterServeLauncher(CLI::App& app, CommandTable& table);

// The name of the program RegisterServeLauncher runs.
inline constexpr char kServeProgram[] = "ctxkit-serve";

}  // namespace ctxkit::cli

#endif  // CTXKIT_CLI_SERVE_COMMAND_H_
