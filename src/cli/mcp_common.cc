#include "cli/mcp_common.h"

#include <CLI/CLI.hpp>
#include <utility>

#include "cli/flags.h"

namespace ctxkit::cli {

void AddMcpServerFlags(CLI::App* sub, McpServerFlags* flags) {
  sub->add_option("--result-token-limit", flags->result_token_limit,
                  "Largest tool result returned whole, in o200k tokens "
                  "(16-10000000; default 8000); larger values come back as "
                  "head + tail and the call that reads on")
      ->type_name("N")
      ->check(UnsignedNumber());
  sub->add_flag("--resource-links", flags->resource_links,
                "Also give a result over the limit a resource_link to the "
                "whole value (for clients that read resources)");
}

Result<McpServerSetup> CreateMcpServer(Context& ctx,
                                       const McpServerFlags& flags) {
  Result<Store*> store = ctx.OpenStore();
  if (!store.ok()) return store.status();
  mcp::ServerOptions o;
  o.result_token_limit = flags.result_token_limit;
  o.resource_links = flags.resource_links;
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
