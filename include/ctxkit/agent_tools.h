// Agent tools: the tools a model calls to act on its own context, for any
// harness that speaks the OpenAI (Chat Completions or Responses) or the
// Anthropic Messages API. A render shows tool outputs behind refs; these
// tools let the model read what it needs and steer the next render:
//
//   ctxkit_read           a handle (#12), ref or key, whole (up to a cap), a
//                         line range or a byte range, with line numbers
//   ctxkit_peek           the first lines and the size of an object
//   ctxkit_search         lines matching a pattern, in one object or all
//   ctxkit_find_relevant  the passages most relevant to a question
//   ctxkit_activate       show an object whole from the next render on
//   ctxkit_pin            keep an object (at its current version) in view
//   ctxkit_expand         the messages a compaction replaced
//   ctxkit_compact        fold the older turns into a compaction at the next
//                         render, with instructions for its summary
//
// Every tool is defined once, here (name, description, JSON Schema of its
// arguments, the function it runs); AgentToolsJson writes the definitions
// in a provider's format, and CallAgentTool executes one tool call a model
// made and returns the tool-result item in that same format. The harness
// sends AgentToolsJson(format) with its request (or asks the render for
// it, RenderOptions::tools), and hands every call whose name starts with
// "ctxkit_" (IsAgentToolName) to CallAgentTool.
//
// A render that carries these tools names each hidden tool output by its
// handle, "#<chat message index>" (Session::ToolOutputRef): every tool
// that takes a ref takes a handle too.
//
// A failing tool (an unknown ref, a bad range) is not an error of the call:
// its result says what went wrong, in text the model reads ("error:
// not_found: ..."), with is_error set where the format has it (Anthropic).
// CallAgentTool fails only when the call itself is malformed.
//
// Thread safety: as Session (one thread at a time per Session).

#ifndef CTXKIT_AGENT_TOOLS_H_
#define CTXKIT_AGENT_TOOLS_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ctxkit/index.h"
#include "ctxkit/session.h"
#include "ctxkit/status.h"

namespace ctxkit {

enum class ToolFormat {
  // Chat Completions: tools [{"type":"function","function":{name,
  // description, parameters}}]; a call {"id","type":"function",
  // "function":{"name","arguments": "<json text>"}}; its result
  // {"role":"tool","tool_call_id","content"}.
  kOpenAIChat,
  // Responses: tools [{"type":"function","name","description",
  // "parameters","strict":false}]; a call {"type":"function_call",
  // "call_id","name","arguments": "<json text>"}; its result
  // {"type":"function_call_output","call_id","output"}.
  kOpenAIResponses,
  // Messages: tools [{"name","description","input_schema"}]; a call
  // {"type":"tool_use","id","name","input":{...}}; its result
  // {"type":"tool_result","tool_use_id","content"[, "is_error": true]}, a
  // content block the harness puts in the next user message.
  kAnthropic,
};

// "openai" (Chat Completions), "openai-responses", "anthropic".
std::string_view ToolFormatName(ToolFormat format);
// InvalidArgument for any other name, listing the three.
Result<ToolFormat> ParseToolFormat(std::string_view name);

// The tool format of a render in `format` (openai: Chat Completions;
// openai-responses: Responses).
ToolFormat ToolFormatOf(LogFormat format);

// True for the name of one of the tools above.
bool IsAgentToolName(std::string_view name);

// Every agent tool's definition in `format`, as a JSON array (text),
// sorted by name and byte-identical from call to call (it sits in the
// cached prefix of every request).
std::string AgentToolsJson(ToolFormat format);

// The tools a render carries (RenderOptions::tools_json): the agent tools
// in `format`, then the harness's own `extra_json` (a JSON array in the
// same format; "" for none). InvalidArgument when extra_json is not a JSON
// array.
Result<std::string> AgentToolsWith(ToolFormat format,
                                   std::string_view extra_json);

struct AgentToolOptions {
  // Largest text a read, peek or expand returns; a longer one is cut and
  // says how to read on. 256 B - 16 MiB.
  size_t max_result_bytes = 16 << 10;
  // For ctxkit_find_relevant (empty base_url: BM25 only). The library never
  // reads the environment; the faces fill this from CTXKIT_EMBEDDINGS_*.
  EmbeddingsConfig embeddings;
};

struct AgentToolCall {
  ToolFormat format = ToolFormat::kOpenAIChat;  // Read from its shape.
  std::string id;                               // The call's id.
  std::string name;
  std::string arguments_json;  // The arguments object, as JSON text.
};

// Reads one tool call in any of the three formats (its shape says which:
// a "function" object, "type":"function_call", or "type":"tool_use").
// InvalidArgument, naming the field, for anything else or for arguments
// that are not a JSON object.
Result<AgentToolCall> ParseAgentToolCall(std::string_view call_json);

// Runs `call_json` (one tool call, see ParseAgentToolCall) against
// `session` and returns its result item in the call's format (JSON text).
// InvalidArgument when the call is malformed or names no agent tool; a
// tool that fails returns a result saying why (see above). ctxkit_activate,
// ctxkit_pin and ctxkit_compact change the session (they take effect in
// its next render); the other tools only read.
Result<std::string> CallAgentTool(Session& session, std::string_view call_json,
                                  const AgentToolOptions& options = {});

}  // namespace ctxkit

#endif  // CTXKIT_AGENT_TOOLS_H_
