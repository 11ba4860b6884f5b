// `ctxkit mcp`: the MCP server over stdio (include/ctxkit/mcp.h,
// docs/mcp.md). Newline-delimited JSON-RPC on stdin/stdout; logs go to
// stderr only; exits 0 when stdin closes.

#include <CLI/CLI.hpp>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <random>
#include <string>

#include "cli/cli_app.h"
#include "cli/flags.h"
#include "cli/mcp_common.h"
#include "core/encoding.h"
#include "core/status_macros.h"
#include "ctxkit/mcp.h"
#include "ctxkit/store.h"
#include "mcp/stdio_transport.h"

namespace ctxkit::cli {

namespace {

struct McpArgs {
  McpServerFlags server;
};

// "mcp-<16 hex digits>": a session of its own for each server process.
std::string FreshSessionId() {
  std::random_device rd;
  uint64_t n = (static_cast<uint64_t>(rd()) << 32) ^ rd();
  std::string bytes(8, '\0');
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>(n >> (8 * i));
  return "mcp-" + core::ToHex(bytes);
}

Status RunMcp(Context& ctx, const McpArgs& a) {
  Result<McpServerSetup> setup = CreateMcpServer(ctx, a.server);
  if (!setup.ok()) return setup.status();
  mcp::ClientBinding binding;
  binding.agent = ctx.options().agent.empty() ? "mcp" : ctx.options().agent;
  binding.session =
      ctx.options().session.empty() ? FreshSessionId() : ctx.options().session;
  std::fprintf(stderr,
               "ctxkit mcp: serving %s on stdio as agent '%s', "
               "session '%s'\n",
               setup->store->home().c_str(), binding.agent.c_str(),
               binding.session.c_str());
  CTXKIT_RETURN_IF_ERROR(
      mcp::ServeStdio(*setup->server, binding, stdin, stdout));
  return Status::Ok();
}

}  // namespace

void RegisterMcpCommands(CLI::App& app, CommandTable& table) {
  auto args = std::make_shared<McpArgs>();
  CLI::App* sub = app.add_subcommand(
      "mcp",
      "Serve the store to an MCP client over stdio (newline-delimited "
      "JSON-RPC). The client acts as --agent (default \"mcp\") in --session "
      "(default: a fresh mcp-<hex> id per process). See docs/mcp.md.");
  AddMcpServerFlags(sub, &args->server);
  table.Add(sub, [args](Context& ctx) { return RunMcp(ctx, *args); });
}

}  // namespace ctxkit::cli
