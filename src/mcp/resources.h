// MCP resources: every object the client's view sees (global, its agent
// scope, its session scope) as a ctxkit:// resource (resource_uri.h), the
// key@version template, reads of text and binary values, and what the
// subscription watcher needs to notice new versions.

#ifndef CTXKIT_MCP_RESOURCES_H_
#define CTXKIT_MCP_RESOURCES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "mcp/client_state.h"
#include "mcp/json_rpc.h"

namespace ctxkit::mcp {

// MCP's "resource not found" error code.
inline constexpr int kResourceNotFound = -32002;

// Resources per resources/list page.
inline constexpr size_t kResourcePageSize = 100;

// resources/list (params may hold "cursor"), resources/read ("uri"),
// resources/templates/list.
RpcOutcome ListResources(ClientState& c, const Json& params);
RpcOutcome ReadResource(ClientState& c, const Json& params);
RpcOutcome ListResourceTemplates(ClientState& c);

// Checks a URI a client subscribes to: a ctxkit:// URI that parses, or a
// fixture URI when fixtures are on.
RpcOutcome CheckSubscribable(ClientState& c, const std::string& uri);

// The version a subscription to `uri` compares: the latest version of the
// object a latest-version URI names (0 while there is none: removed or not
// yet set). nullopt for URIs that never change (a pinned version, a static
// ref, fixtures).
std::optional<uint64_t> WatchedVersion(ClientState& c, const std::string& uri);

// Keys visible to the client that start with `prefix` (completion).
Json CompleteKeys(ClientState& c, const std::string& prefix);
// Versions of `key` whose decimal form starts with `prefix`.
Json CompleteVersions(ClientState& c, const std::string& scope,
                      const std::string& key, const std::string& prefix);

}  // namespace ctxkit::mcp

#endif  // CTXKIT_MCP_RESOURCES_H_
