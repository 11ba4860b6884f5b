// What `ctxkit mcp` (stdio) and `ctxkit serve` (Streamable HTTP) share:
// the server options both take and the store-backed mcp::Server both
// serve, so the two transports cannot drift apart in how they set it up.

#ifndef CTXKIT_CLI_MCP_COMMON_H_
#define CTXKIT_CLI_MCP_COMMON_H_

#include <CLI/CLI.hpp>
#include <cstdint>
#include <memory>

#include "cli/cli_app.h"
#include "ctxkit/mcp.h"
#include "ctxkit/status.h"
#include "ctxkit/store.h"

namespace ctxkit::cli {

// The mcp::ServerOptions that both commands expose as flags.
struct McpServerFlags {
  uint64_t result_token_limit = 8000;
  bool resource_links = false;
};

// Adds the flags of McpServerFlags to `sub` (both commands take them).
void AddMcpServerFlags(CLI::App* sub, McpServerFlags* flags);

// The server and the store it serves (owned by the Context; the callers
// print its home).
struct McpServerSetup {
  Store* store = nullptr;
  std::unique_ptr<mcp::Server> server;
};

// Opens ctx's store and creates an mcp::Server over it with `flags`.
Result<McpServerSetup> CreateMcpServer(Context& ctx,
                                       const McpServerFlags& flags);

}  // namespace ctxkit::cli

#endif  // CTXKIT_CLI_MCP_COMMON_H_
