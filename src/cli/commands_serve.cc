// `ctxkit serve`: the MCP server over Streamable HTTP (src/mcp/http_server.h,
// docs/mcp.md). Prints the endpoint URL on stdout once it listens (so a
// script that passed --port 0 learns the port), serves until SIGINT or
// SIGTERM, then ends open streams and exits 0. Linked only into
// ctxkit-serve (see serve_command.h).

#include <signal.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "cli/cli_app.h"
#include "cli/flags.h"
#include "cli/mcp_common.h"
#include "cli/serve_command.h"
#include "ctxkit/mcp.h"
#include "ctxkit/store.h"
#include "face/environment.h"
#include "mcp/http_security.h"
#include "mcp/http_server.h"

namespace ctxkit::cli {

namespace {

Status RunServe(Context& ctx, const ServeArgs& a) {
  mcp::HttpOptions http;
  http.bind = a.bind;
  http.port = a.port;
  http.token = a.token;
  if (http.token.empty()) http.token = env::Get("CTXKIT_TOKEN");
  http.max_request_bytes = a.max_request_bytes;
  http.max_connections = a.max_connections;
  // Four largest bodies at once, but never less than 512 MiB.
  http.max_inflight_bytes =
      std::max<uint64_t>(uint64_t{512} << 20, 4 * a.max_request_bytes);
  http.allowed_origins = a.allowed_origins;
  http.shared_session = a.shared_session;
  http.ui = !a.no_ui;
  if (!http.shared_session.empty()) {
    Status valid = ValidateScopeId(http.shared_session);
    if (!valid.ok()) return valid.WithContext("--session");
  }
  // Refuse an exposed bind before touching the store.
  if (!mcp::IsLoopbackBind(http.bind) && http.token.empty()) {
    return Status::InvalidArgument(
        "refusing to bind " + http.bind +
        ": it is not a loopback address, and without a token anyone who "
        "can reach it could read the store; set --token or CTXKIT_TOKEN, "
        "or bind 127.0.0.1");
  }

  // No other thread may take SIGINT/SIGTERM (the store's and the core's
  // threads inherit this mask, so block before they start): this thread
  // waits for them below and shuts down in order.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  Result<McpServerSetup> setup = CreateMcpServer(ctx, a.server);
  if (!setup.ok()) return setup.status();

  Result<std::unique_ptr<mcp::HttpServer>> http_server =
      mcp::HttpServer::Start(setup->server.get(), http);
  if (!http_server.ok()) return http_server.status();
  std::fprintf(stderr,
               "ctxkit serve: MCP over Streamable HTTP for %s at %s%s "
               "(Ctrl-C stops)\n",
               setup->store->home().c_str(), (*http_server)->url().c_str(),
               http.token.empty() ? "" : ", bearer token required");
  if (http.ui) {
    std::fprintf(stderr, "ctxkit serve: inspector at %s%s\n",
                 (*http_server)->ui_url().c_str(),
                 http.token.empty() ? "" : "#token=<the token>");
  }
  std::printf("%s\n", (*http_server)->url().c_str());
  std::fflush(stdout);

  int sig = 0;
  sigwait(&stop_signals, &sig);
  std::fprintf(stderr, "ctxkit serve: stopping (%s)\n",
               sig == SIGINT ? "SIGINT" : "SIGTERM");
  (*http_server)->Stop();
  return Status::Ok();
}

}  // namespace

void RegisterServeCommands(CLI::App& app, CommandTable& table) {
  auto args = std::make_shared<ServeArgs>();
  CLI::App* sub = AddServeCommand(app, args.get());
  table.Add(sub, [args](Context& ctx) { return RunServe(ctx, *args); });
}

}  // namespace ctxkit::cli
