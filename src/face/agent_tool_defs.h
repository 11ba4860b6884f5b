// The agent tools' definitions (ctxkit/agent_tools.h): each one a name, a
// description the model reads, the JSON Schema of its arguments and the
// function it runs against a session. agent_tools.cc writes them in each
// provider's format and dispatches calls to them.

#ifndef CTXKIT_FACE_AGENT_TOOL_DEFS_H_
#define CTXKIT_FACE_AGENT_TOOL_DEFS_H_

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "ctxkit/agent_tools.h"
#include "ctxkit/session.h"
#include "ctxkit/status.h"
#include "face/tool_schema.h"

namespace ctxkit::face {

// Runs a tool whose arguments passed its schema; returns the text the
// model reads. A failed Status is shown to the model as an error result.
using AgentToolFn = std::function<Result<std::string>(
    Session&, const Json& args, const AgentToolOptions&)>;

struct AgentToolDef {
  std::string name;
  std::string description;
  Json parameters;  // JSON Schema of the arguments object.
  AgentToolFn run;
};

// Every agent tool, sorted by name.
const std::vector<AgentToolDef>& AgentTools();
// nullptr when there is no such tool.
const AgentToolDef* FindAgentTool(std::string_view name);

}  // namespace ctxkit::face

#endif  // CTXKIT_FACE_AGENT_TOOL_DEFS_H_
