#include "cli/mcp_common.h"

#include <utility>

namespace ctxkit::cli {

Result<McpServerSetup> CreateMcpServer(Context& ctx,
                                       const McpServerFlags& flags) {
  Result<Store*> store = ctx.OpenStore();
  if (!store.ok()) return store.status();
  mcp::ServerOptions o;
  o.result_token_limit = flags.result_token_limit;
  // The spec directories follow an explicit --home; when they cannot be
  // resolved now, the server resolves them (and reports why) on first use.
  if (Result<std::string> root = ctx.NotesRoot(""); root.ok()) {
    o.notes_root = *root;
  }
  if (Result<std::string> dir = ctx.ToolOutputDir(""); dir.ok()) {
    o.capture_root = *dir;
  }
  Result<std::unique_ptr<mcp::Server>> server =
      mcp::Server::Create(*store, (*store)->home(), o);
  if (!server.ok()) return server.status();
  McpServerSetup setup;
  setup.store = *store;
  setup.server = std::move(*server);
  return setup;
}

}  // namespace ctxkit::cli
