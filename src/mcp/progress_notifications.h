// notifications/progress for a tools/call that asked for them: the request's
// params._meta.progressToken (a string or an integer) names the call in
// each notification, as MCP's progress utility describes.

#ifndef CTXKIT_MCP_PROGRESS_NOTIFICATIONS_H_
#define CTXKIT_MCP_PROGRESS_NOTIFICATIONS_H_

#include <optional>

#include "ctxkit/progress.h"
#include "mcp/client_state.h"
#include "mcp/json_rpc.h"

namespace ctxkit::mcp {

// kInvalidParams when params._meta is not an object or its progressToken
// is neither a string nor an integer; nothing when they are well formed
// (or absent).
std::optional<RpcError> CheckProgressToken(const Json& params);

// Options for the library call behind a tools/call with `params` (checked
// by CheckProgressToken): no reports without a progress token; with one,
// each report becomes notifications/progress to `client` with the token,
// "progress" (strictly increasing over the call, continuing across the
// call's tasks), "total" when known and "message" (core::ProgressText), at
// most every $CTXKIT_PROGRESS_INTERVAL_MS. `client` must outlive the call.
ProgressOptions ProgressNotifications(ClientState& client, const Json& params);

}  // namespace ctxkit::mcp

#endif  // CTXKIT_MCP_PROGRESS_NOTIFICATIONS_H_
