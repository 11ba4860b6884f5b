// The per-result token limit (ServerOptions::result_token_limit): a value
// larger than the limit is never returned whole. The tool returns its head
// and its tail (each at most 45% of the limit, cut on UTF-8 boundaries)
// in one text that says how to page through the rest by handle (get with a
// byte or line range, peek, search) and names the whole object's resource,
// plus a resource_link item when ServerOptions::resource_links is set.

#ifndef CTXKIT_MCP_RESULT_LIMIT_H_
#define CTXKIT_MCP_RESULT_LIMIT_H_

#include <cstdint>
#include <optional>
#include <string>

#include "ctxkit/ref.h"
#include "ctxkit/status.h"
#include "mcp/client_state.h"
#include "mcp/tool_registry.h"

namespace ctxkit::mcp {

// The o200k_base tokens of `text`.
Result<uint64_t> CountTokens(std::string_view text);

// The result for the whole version `ref` names: the value itself when it
// fits the limit, else head + tail (+ resource_link, see above), read by range
// (never the whole value). `structured` is returned as structuredContent, with
// a "truncated" member added when the value was cut.
Result<ToolResult> WholeValueResult(ClientState& c, const Ref& ref,
                                    Json structured);

// The same for a text already read: `text` is bytes [offset, offset +
// size) of the version `source` names (nullopt: text not backed by one
// object, e.g. a rendered session: no resource named, and the text says
// to narrow the request).
Result<ToolResult> LimitedTextResult(ClientState& c, std::string text,
                                     Json structured,
                                     const std::optional<Ref>& source,
                                     uint64_t offset);

// The resource_link content item for `ref` (the URI of its scope and
// version when the client's view sees that scope, else ctxkit://ref/...).
Json ResourceLink(ClientState& c, const Ref& ref);

}  // namespace ctxkit::mcp

#endif  // CTXKIT_MCP_RESULT_LIMIT_H_
