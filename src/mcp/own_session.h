// The client's own session (ClientBinding::session), created on first use.

#ifndef CTXKIT_MCP_OWN_SESSION_H_
#define CTXKIT_MCP_OWN_SESSION_H_

#include <memory>

#include "ctxkit/session.h"
#include "ctxkit/status.h"
#include "mcp/client_state.h"

namespace ctxkit::mcp {

// Opens (creating with the default policy when missing) the session the
// client is bound to. A Session is not thread-safe: one per call.
Result<std::unique_ptr<Session>> OwnSession(ClientState& c);

// OK when `session` is empty or the client's own session; otherwise
// PermissionDenied: a client never reads another client's session.
Status CheckOwnSession(const ClientState& c, std::string_view session);

}  // namespace ctxkit::mcp

#endif  // CTXKIT_MCP_OWN_SESSION_H_
