// ServerOptions::extension as the protocol core uses it: its JSON texts
// parsed, and nothing at all when a server has no extension.

#ifndef CTXKIT_MCP_EXTENSION_H_
#define CTXKIT_MCP_EXTENSION_H_

#include <optional>
#include <string_view>

#include "ctxkit/mcp.h"
#include "ctxkit/status.h"
#include "mcp/json_rpc.h"

namespace ctxkit::mcp {

// InvalidArgument unless each list of `extension` is a JSON array of
// objects. Server::Create checks this once, so the lists below parse.
Status CheckExtension(const ServerExtension& extension);

// The extension's entries of each list; an empty array without one.
Json ExtensionResources(const ServerOptions& options);
Json ExtensionResourceTemplates(const ServerOptions& options);
Json ExtensionPrompts(const ServerOptions& options);

// True when an extension answers `uri`.
bool ExtensionOwnsUri(const ServerOptions& options, std::string_view uri);
// True when `name` is one of the extension's prompts.
bool IsExtensionPrompt(const ServerOptions& options, std::string_view name);

// resources/read of an owned URI: {"contents": [...]}, or -32002 when the
// extension has no such resource.
RpcOutcome ReadExtensionResource(const ServerOptions& options,
                                 std::string_view uri);
// prompts/get of an extension prompt; nullopt when `name` is not one.
std::optional<RpcOutcome> GetExtensionPrompt(const ServerOptions& options,
                                             std::string_view name,
                                             const Json& arguments);

}  // namespace ctxkit::mcp

#endif  // CTXKIT_MCP_EXTENSION_H_
