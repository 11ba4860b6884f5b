// The MCP tools: each one a name, an LLM-facing description, a JSON Schema
// for its arguments and a function. The tools_*.cc files define them by
// area; Tools() lists them all, sorted by name, so tools/list is
// byte-identical from call to call (prompt-cache friendly).

#ifndef CTXKIT_MCP_TOOL_REGISTRY_H_
#define CTXKIT_MCP_TOOL_REGISTRY_H_

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "ctxkit/progress.h"
#include "ctxkit/status.h"
#include "mcp/client_state.h"
#include "mcp/json_rpc.h"

namespace ctxkit::mcp {

// A successful tool result: MCP content items (text, resource_link, ...)
// and, when useful, structuredContent (a JSON object).
struct ToolResult {
  Json content = Json::array();
  Json structured;  // null: none.
};

// Runs a tool whose arguments already passed the schema check. A failed
// Status becomes an isError result the LLM reads. A tool doing long work
// hands `progress` to the library call: it sends notifications/progress
// when the request carried a progress token (params._meta.progressToken),
// and reports nothing otherwise.
using ToolFn = std::function<Result<ToolResult>(ClientState&, const Json&,
                                                const ProgressOptions&)>;

struct ToolDef {
  std::string name;
  std::string title;
  std::string description;
  Json input_schema;
  bool read_only = true;
  bool destructive = false;
  bool idempotent = true;
  ToolFn run;
};

// Every tool, sorted by name.
const std::vector<ToolDef>& Tools();
// nullptr when there is no such tool.
const ToolDef* FindTool(std::string_view name);

// Per-area definitions, collected by Tools().
void AddValueTools(std::vector<ToolDef>& tools);    // set get ref ...
void AddExploreTools(std::vector<ToolDef>& tools);  // peek search ...
void AddSessionTools(std::vector<ToolDef>& tools);  // session_*
void AddCaptureTools(std::vector<ToolDef>& tools);  // tool_output_*
void AddNotesTools(std::vector<ToolDef>& tools);    // notes_*
void AddExternalizeTools(std::vector<ToolDef>& tools);

}  // namespace ctxkit::mcp

#endif  // CTXKIT_MCP_TOOL_REGISTRY_H_
