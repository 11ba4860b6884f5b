// MCP prompts: the SPEC-25 root prompt ("root_prompt": the query plus a
// summary of every variable of the client's session, never their content)
// and those of ServerOptions::extension.

#ifndef CTXKIT_MCP_PROMPTS_H_
#define CTXKIT_MCP_PROMPTS_H_

#include "mcp/client_state.h"
#include "mcp/json_rpc.h"

namespace ctxkit::mcp {

inline constexpr char kRootPromptName[] = "root_prompt";

// prompts/list (params may hold a cursor: there is one page).
RpcOutcome ListPrompts(ClientState& c);
// prompts/get: -32602 for an unknown prompt or a missing required
// argument.
RpcOutcome GetPrompt(ClientState& c, const Json& params);

}  // namespace ctxkit::mcp

#endif  // CTXKIT_MCP_PROMPTS_H_
