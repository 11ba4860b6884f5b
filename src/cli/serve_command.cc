#include "cli/serve_command.h"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "cli/cli_app.h"
#include "cli/flags.h"
#include "cli/subprocess.h"

namespace ctxkit::cli {

namespace {

// Where ctxkit-serve is for the ctxkit at `self`: beside it (build tree),
// else at CTXKIT_SERVE_RELATIVE from its directory (installed).
Result<std::string> FindServeProgram(const std::string& self) {
  std::filesystem::path dir = std::filesystem::path(self).parent_path();
  std::vector<std::filesystem::path> places = {dir / kServeProgram};
#ifdef CTXKIT_SERVE_RELATIVE
  places.push_back(
      (dir / CTXKIT_SERVE_RELATIVE / kServeProgram).lexically_normal());
#endif
  std::string looked;
  for (const std::filesystem::path& p : places) {
    if (::access(p.c_str(), X_OK) == 0) return p.string();
    looked += (looked.empty() ? "" : " or ") + p.string();
  }
  return Status::IoError(
      "ctxkit serve runs the HTTP server in " + std::string(kServeProgram) +
      ", which is not installed with this ctxkit (looked for " + looked +
      "); install ctxkit again (make install)");
}

Status LaunchServe(const Context& ctx) {
  Result<std::string> self = SelfExecutable();
  if (!self.ok()) return self.status();
  Result<std::string> program = FindServeProgram(*self);
  if (!program.ok()) return program.status();
  return ExecProgram(*program, ctx.options().argv);
}

}  // namespace

CLI::App* AddServeCommand(CLI::App& app, ServeArgs* args) {
  CLI::App* sub = app.add_subcommand(
      "serve",
      "Serve the store to MCP clients over Streamable HTTP at "
      "http://BIND:PORT/mcp. Each client session acts as its own agent and "
      "session (mcp-<hex>). Also serves the read-only web inspector at "
      "/ui/. Prints the URL on stdout; stops on SIGINT or SIGTERM. See "
      "docs/mcp.md and docs/inspector.md.");
  sub->add_option("--port", args->port,
                  "TCP port (default 8765; 0 picks a free one)")
      ->type_name("N")
      ->check(CLI::Range(0, 65535));
  sub->add_option("--bind", args->bind,
                  "Address to listen on (default 127.0.0.1). Anything but "
                  "loopback needs a token")
      ->type_name("ADDR");
  sub->add_option("--token", args->token,
                  "Require 'Authorization: Bearer TOKEN' on every request "
                  "(default: $CTXKIT_TOKEN)")
      ->type_name("TOKEN");
  sub->add_option("--max-request-bytes", args->max_request_bytes,
                  "Largest request body (default 134217728 = 128 MiB, "
                  "enough for a 64 MiB value); larger ones get HTTP 413")
      ->type_name("N")
      ->check(UnsignedNumber());
  sub->add_option("--max-connections", args->max_connections,
                  "Connections served at once (default 1024; each holds a "
                  "thread); more wait their turn")
      ->type_name("N")
      ->check(CLI::Range(uint64_t{1}, uint64_t{65536}));
  AddMcpServerFlags(sub, &args->server);
  sub->add_option("--session", args->shared_session,
                  "Every client acts in this ctxkit session, sharing its "
                  "session-scoped values and context (each still its own "
                  "agent); default: a session of its own per client")
      ->type_name("ID");
  sub->add_flag("--no-ui", args->no_ui,
                "Do not serve the web inspector (/ui/ and its API /api/; "
                "docs/inspector.md)");
  AddRepeatableOption(sub, "--allowed-origin", &args->allowed_origins,
                      "A browser origin allowed besides loopback ones, e.g. "
                      "https://app.example:8443 (repeatable)")
      ->type_name("ORIGIN");
  return sub;
}

void RegisterServeLauncher(CLI::App& app, CommandTable& table) {
  auto args = std::make_shared<ServeArgs>();
  CLI::App* sub = AddServeCommand(app, args.get());
  table.Add(sub, [args](Context& ctx) { return LaunchServe(ctx); });
}

}  // namespace ctxkit::cli
