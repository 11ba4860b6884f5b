// The ctxkit:// URI scheme for MCP resources (docs/mcp.md):
//
//   ctxkit://<scope>/<key>             the latest version
//   ctxkit://<scope>/<key>@<version>   one version (1, 2, ...)
//   ctxkit://ref/<ref>                 what a ref names (a capability)
//
// <scope> is global, agent or session: the connection's own scopes (a
// client never names another client's). <key> is percent-encoded (RFC
// 3986): bytes outside [A-Za-z0-9-._~/:] become %XX, so '@' in a key is
// %40 and a literal '@' always starts the version; '/' may be literal or
// %2F. <ref> is the ref's wire form (ck:...), percent-encoded likewise.

#ifndef CTXKIT_MCP_RESOURCE_URI_H_
#define CTXKIT_MCP_RESOURCE_URI_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "ctxkit/ref.h"
#include "ctxkit/status.h"

namespace ctxkit::mcp {

inline constexpr std::string_view kUriPrefix = "ctxkit://";

struct ResourceUri {
  bool is_ref = false;
  Ref ref;            // When is_ref.
  std::string scope;  // "global", "agent" or "session" (a ScopeName).
  std::string key;
  uint64_t version = 0;  // 0: the latest.
};

std::string PercentEncode(std::string_view bytes);
// InvalidArgument for a '%' not followed by two hex digits.
Result<std::string> PercentDecode(std::string_view text);

// InvalidArgument saying what is wrong with `uri`.
Result<ResourceUri> ParseResourceUri(std::string_view uri);

// "ctxkit://<scope>/<key>[@<version>]".
std::string ScopedUri(std::string_view scope, std::string_view key,
                      uint64_t version = 0);
// "ctxkit://ref/<ref>".
std::string RefUri(const Ref& ref);

// The view-relative scope word ("global", "agent", "session") of `scope`
// as a view bound to (agent, session) sees it; nullopt for another
// client's scope.
std::optional<std::string> ScopeWord(const Scope& scope, std::string_view agent,
                                     std::string_view session);

}  // namespace ctxkit::mcp

#endif  // CTXKIT_MCP_RESOURCE_URI_H_
