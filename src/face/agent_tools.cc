// The agent tools in each provider's format (ctxkit/agent_tools.h): their
// definitions as a tools array, a model's tool call read from its shape,
// and the tool-result item written back in the same format.

#include "ctxkit/agent_tools.h"

#include <string>
#include <utility>

#include "core/status_macros.h"
#include "face/agent_tool_defs.h"
#include "face/tool_schema.h"
#include "text/json_parse.h"
#include "text/json_write.h"

namespace ctxkit {

using face::Json;

namespace {

Json Definition(const face::AgentToolDef& t, ToolFormat format) {
  switch (format) {
    case ToolFormat::kOpenAIChat:
      return {{"type", "function"},
              {"function",
               {{"name", t.name},
                {"description", t.description},
                {"parameters", t.parameters}}}};
    case ToolFormat::kOpenAIResponses:
      return {{"type", "function"},
              {"name", t.name},
              {"description", t.description},
              {"parameters", t.parameters},
              {"strict", false}};
    case ToolFormat::kAnthropic:
      break;
  }
  return {{"name", t.name},
          {"description", t.description},
          {"input_schema", t.parameters}};
}

// A string field of `call`, or InvalidArgument naming it.
Result<std::string> Field(const Json& call, const char* name,
                          const char* where) {
  auto it = call.find(name);
  if (it == call.end() || !it->is_string() ||
      it->get_ref<const std::string&>().empty()) {
    return Status::InvalidArgument(std::string(where) + "." + name +
                                   ": a non-empty string is required");
  }
  return it->get<std::string>();
}

// The arguments of an OpenAI call: JSON text of an object ("" is {}).
Result<std::string> ArgumentsText(const Json& holder, const char* where) {
  auto it = holder.find("arguments");
  if (it == holder.end()) return std::string("{}");
  if (!it->is_string()) {
    return Status::InvalidArgument(std::string(where) +
                                   ".arguments: a JSON string is required");
  }
  const std::string& text = it->get_ref<const std::string&>();
  return text.empty() ? std::string("{}") : text;
}

Result<AgentToolCall> FromOpenAIChat(const Json& call) {
  AgentToolCall c{.format = ToolFormat::kOpenAIChat};
  CTXKIT_ASSIGN_OR_RETURN(c.id, Field(call, "id", "tool_call"));
  const Json& fn = call.at("function");
  if (!fn.is_object()) {
    return Status::InvalidArgument("tool_call.function: an object is required");
  }
  CTXKIT_ASSIGN_OR_RETURN(c.name, Field(fn, "name", "tool_call.function"));
  CTXKIT_ASSIGN_OR_RETURN(c.arguments_json,
                          ArgumentsText(fn, "tool_call.function"));
  return c;
}

Result<AgentToolCall> FromResponses(const Json& call) {
  AgentToolCall c{.format = ToolFormat::kOpenAIResponses};
  CTXKIT_ASSIGN_OR_RETURN(c.id, Field(call, "call_id", "function_call"));
  CTXKIT_ASSIGN_OR_RETURN(c.name, Field(call, "name", "function_call"));
  CTXKIT_ASSIGN_OR_RETURN(c.arguments_json,
                          ArgumentsText(call, "function_call"));
  return c;
}

Result<AgentToolCall> FromAnthropic(const Json& call) {
  AgentToolCall c{.format = ToolFormat::kAnthropic};
  CTXKIT_ASSIGN_OR_RETURN(c.id, Field(call, "id", "tool_use"));
  CTXKIT_ASSIGN_OR_RETURN(c.name, Field(call, "name", "tool_use"));
  auto input = call.find("input");
  if (input != call.end() && !input->is_object()) {
    return Status::InvalidArgument("tool_use.input: an object is required");
  }
  c.arguments_json = input == call.end() ? "{}" : input->dump();
  return c;
}

// The result item of `call` carrying `text`.
std::string ResultItem(const AgentToolCall& call, std::string text,
                       bool is_error) {
  Json item;
  switch (call.format) {
    case ToolFormat::kOpenAIChat:
      item = {{"role", "tool"},
              {"tool_call_id", call.id},
              {"content", std::move(text)}};
      break;
    case ToolFormat::kOpenAIResponses:
      item = {{"type", "function_call_output"},
              {"call_id", call.id},
              {"output", std::move(text)}};
      break;
    case ToolFormat::kAnthropic:
      item = {{"type", "tool_result"},
              {"tool_use_id", call.id},
              {"content", std::move(text)}};
      if (is_error) item["is_error"] = true;
      break;
  }
  return text::DumpJson(item);
}

}  // namespace

std::string_view ToolFormatName(ToolFormat format) {
  switch (format) {
    case ToolFormat::kOpenAIChat:
      return "openai";
    case ToolFormat::kOpenAIResponses:
      return "openai-responses";
    case ToolFormat::kAnthropic:
      break;
  }
  return "anthropic";
}

Result<ToolFormat> ParseToolFormat(std::string_view name) {
  for (ToolFormat f : {ToolFormat::kOpenAIChat, ToolFormat::kOpenAIResponses,
                       ToolFormat::kAnthropic}) {
    if (ToolFormatName(f) == name) return f;
  }
  return Status::InvalidArgument(
      "unknown tool format '" + std::string(name) +
      "' (expected openai, openai-responses or anthropic)");
}

ToolFormat ToolFormatOf(LogFormat format) {
  switch (format) {
    case LogFormat::kAnthropic:
      return ToolFormat::kAnthropic;
    case LogFormat::kOpenAIResponses:
      return ToolFormat::kOpenAIResponses;
    case LogFormat::kOpenAI:
      break;
  }
  return ToolFormat::kOpenAIChat;
}

Result<std::string> AgentToolsWith(ToolFormat format,
                                   std::string_view extra_json) {
  std::string tools = AgentToolsJson(format);
  if (extra_json.empty()) return tools;
  Json extra = text::ParseJsonOrDiscarded(extra_json);
  if (!extra.is_array()) {
    return Status::InvalidArgument("extra tools must be a JSON array");
  }
  if (extra.empty()) return tools;
  tools.pop_back();  // The closing ']'.
  const std::string more = text::DumpJson(extra);
  return tools + "," + more.substr(1);
}

bool IsAgentToolName(std::string_view name) {
  return face::FindAgentTool(name) != nullptr;
}

std::string AgentToolsJson(ToolFormat format) {
  Json tools = Json::array();
  for (const face::AgentToolDef& t : face::AgentTools()) {
    tools.push_back(Definition(t, format));
  }
  return tools.dump();
}

Result<AgentToolCall> ParseAgentToolCall(std::string_view call_json) {
  Json call = text::ParseJsonOrDiscarded(call_json);
  if (!call.is_object()) {
    return Status::InvalidArgument("a tool call must be a JSON object");
  }
  if (call.contains("function")) return FromOpenAIChat(call);
  const std::string type = text::StringOr(call, "type", "");
  if (type == "function_call") return FromResponses(call);
  if (type == "tool_use") return FromAnthropic(call);
  return Status::InvalidArgument(
      "not a tool call: expected an OpenAI tool call ({\"id\", \"function\"}), "
      "a Responses function_call or an Anthropic tool_use block");
}

Result<std::string> CallAgentTool(Session& session, std::string_view call_json,
                                  const AgentToolOptions& options) {
  if (options.max_result_bytes < 256 || options.max_result_bytes > (16 << 20)) {
    return Status::InvalidArgument("max_result_bytes must be 256 B - 16 MiB");
  }
  CTXKIT_ASSIGN_OR_RETURN(AgentToolCall call, ParseAgentToolCall(call_json));
  const face::AgentToolDef* tool = face::FindAgentTool(call.name);
  if (tool == nullptr) {
    return Status::InvalidArgument("'" + call.name +
                                   "' is not a ctxkit agent tool");
  }
  Json args = text::ParseJsonOrDiscarded(call.arguments_json);
  Status valid =
      args.is_object()
          ? face::CheckArguments(tool->parameters, &args)
          : Status::InvalidArgument("arguments: a JSON object is required");
  Result<std::string> text = valid.ok() ? tool->run(session, args, options)
                                        : Result<std::string>(valid);
  if (!text.ok()) {
    return ResultItem(
        call,
        "error: " + std::string(StatusCodeName(text.status().code())) + ": " +
            text.status().message(),
        true);
  }
  return ResultItem(call, *std::move(text), false);
}

}  // namespace ctxkit
