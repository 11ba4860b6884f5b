#include "cli/mcp_common.h"

#include <utility>

namespace ctxkit::cli {

Result<McpServerSetup> CreateMcpServer(Context& ctx,
                                       const McpServerFlags& flags) {
  Result<Store*> store = ctx.OpenStore();
  if (!store.ok()) return store.status();
  mcp::ServerOptions o;
  o.result_token_limit = flags.result_token_limit;
  Result<std::unique_ptr<mcp::Server>> server =
      mcp::Server::Create(*store, (*store)->home(), o);
  if (!server.ok()) return server.status();
  McpServerSetup setup;
  setup.store = *store;
  setup.server = std::move(*server);
  return setup;
}

}  // namespace ctxkit::cli
