// Tool-output tools: save a large tool output and keep only its pointer;
// later select the outputs relevant to a question (include/ctxkit/
// capture.h). Each client has its own capture manager, bound to its
// session, so in-memory outputs live as long as the connection.

#include <string>
#include <utility>
#include <vector>

#include "ctxkit/capture.h"
#include "mcp/environment.h"
#include "mcp/result_limit.h"
#include "mcp/tool_registry.h"
#include "mcp/tool_util.h"

namespace ctxkit::mcp {

namespace {

Json PointerJson(const ContextPointer& p) {
  Json j = {{"pointer", p.filepath},
            {"tool_name", p.tool_name},
            {"timestamp_ms", p.timestamp},
            {"size_bytes", p.size_bytes},
            {"in_memory", p.in_memory}};
  if (!p.query_id.empty()) j["query_id"] = p.query_id;
  return j;
}

Json LoadedJson(const LoadedContext& l) {
  Json j = {{"tool_name", l.tool_name},
            {"args", Json::parse(l.args_json, nullptr, false)},
            {"result", Json::parse(l.result_json, nullptr, false)},
            {"timestamp", l.timestamp},
            {"session_id", l.session_id}};
  if (!l.query_id.empty()) j["query_id"] = l.query_id;
  if (!l.task_id.empty()) j["task_id"] = l.task_id;
  return j;
}

Result<ToolResult> RunSave(ClientState& c, const Json& a) {
  Result<ContextManager*> cm = c.Capture();
  if (!cm.ok()) return cm.status();
  std::string args = a.contains("args") ? Serialize(a["args"]) : "{}";
  std::string result = Serialize(a["result"]);
  Result<std::string> p =
      (*cm)->SaveContext(StrArg(a, "tool_name"), args, result,
                         StrArg(a, "task_id"), StrArg(a, "query_id"));
  if (!p.ok()) return p.status();
  bool in_memory = p->starts_with("ck:");
  ToolResult r;
  r.content.push_back(TextContent(
      *p + (in_memory ? "\n(in memory for this session; read it back with "
                        "tool_output_load, or with get/peek/search by ref)"
                      : "\n(saved as a file; read it back with "
                        "tool_output_load or select it with "
                        "tool_output_select)")));
  r.structured = {
      {"pointer", *p}, {"in_memory", in_memory}, {"size_bytes", result.size()}};
  return r;
}

// The toolcall object holding a saved output's content: the pointer itself
// for in-memory outputs, "toolcall:ctx-<hash>" (session scope) for files
// named session-<sid>-<tool>-<hash>.json.
std::optional<Ref> OutputRef(ClientState& c, const std::string& pointer) {
  if (Result<Ref> ref = ParseRef(pointer); ref.ok()) return *ref;
  size_t dot = pointer.rfind(".json");
  size_t dash = pointer.rfind('-');
  if (dot == std::string::npos || dash == std::string::npos || dash > dot) {
    return std::nullopt;
  }
  std::string key = "toolcall:ctx-" + pointer.substr(dash + 1, dot - dash - 1);
  Result<Ref> pinned = c.view.Pin(key, {.scope = "session"});
  if (!pinned.ok()) return std::nullopt;
  return *pinned;
}

Result<ToolResult> RunLoad(ClientState& c, const Json& a) {
  Result<ContextManager*> cm = c.Capture();
  if (!cm.ok()) return cm.status();
  std::string pointer = StrArg(a, "pointer");
  Result<LoadedContext> l = (*cm)->LoadContext(pointer);
  if (!l.ok()) return l.status();
  // Files of every session share one directory; a client reads its own.
  if (l->session_id != c.binding.session) {
    return Status::PermissionDenied("that output was saved by another session");
  }
  Json s = LoadedJson(*l);
  Json result = s["result"];
  s.erase("result");
  s["pointer"] = pointer;
  // The toolcall object stores a string result as its text, anything else
  // as compact JSON: return the same bytes, so byte ranges in a truncated
  // answer are ranges of that object.
  std::string text =
      result.is_string() ? result.get<std::string>() : Serialize(result);
  std::optional<Ref> source = OutputRef(c, pointer);
  if (source) s["ref"] = FormatRef(*source);
  return LimitedTextResult(c, std::move(text), std::move(s), source, 0);
}

Result<ToolResult> RunSelect(ClientState& c, const Json& a) {
  Result<ContextManager*> cm = c.Capture();
  if (!cm.ok()) return cm.status();
  Result<std::vector<ContextPointer>> all =
      (*cm)->ListContexts((*cm)->session_id());
  if (!all.ok()) return all.status();
  SelectOptions o;
  o.max_selected = U64Arg(a, "max_selected", 3);
  o.use_llm = BoolArg(a, "use_llm", true);
  o.llm = c.options.llm.value_or(env::LlmEndpointFromEnv());
  Result<Selection> sel = (*cm)->Select(StrArg(a, "question"), *all, o);
  if (!sel.ok()) return sel.status();
  Json chosen = Json::array();
  std::string text;
  for (size_t i = 0; i < sel->selected.size(); ++i) {
    Json j = PointerJson(sel->selected[i]);
    if (i < sel->loaded.size()) j["output"] = LoadedJson(sel->loaded[i]);
    text += "## " + sel->selected[i].tool_name + " (" +
            sel->selected[i].filepath + ")\n";
    if (i < sel->loaded.size()) text += sel->loaded[i].result_json + "\n";
    chosen.push_back(std::move(j));
  }
  if (sel->selected.empty()) text = "(no saved output matches)\n";
  Json s = {{"method", sel->method},
            {"candidates", all->size()},
            {"selected", std::move(chosen)},
            {"notes", sel->notes}};
  return LimitedTextResult(c, std::move(text), std::move(s), std::nullopt, 0);
}

}  // namespace

void AddCaptureTools(std::vector<ToolDef>& tools) {
  tools.push_back(
      {"tool_output_save", "Save a tool output, keep a pointer",
       "Save one tool output (with the tool's name and arguments) for this "
       "session and get back a short pointer instead of keeping the output "
       "in your context: small outputs (< 32 KiB) stay in memory as a ref, "
       "larger ones become a JSON file. Later, tool_output_select picks the "
       "outputs relevant to a question and tool_output_load reads one back.",
       ObjectSchema(
           {{"tool_name",
             StringProp("The tool that produced the output.", 1, 128)},
            {"args",
             {{"type", "object"},
              {"description",
               "The tool's arguments (a JSON "
               "object)."}}},
            {"result",
             {{"description",
               "The output: any JSON value (a "
               "string for plain text)."}}},
            {"task_id", StringProp("Optional task label.", 1, 128)},
            {"query_id",
             StringProp("Optional query label (see HashQuery).", 1, 128)}},
           {"tool_name", "result"}),
       false, false, true, RunSave});
  tools.push_back(
      {"tool_output_load", "Read a saved tool output",
       "Read back the output a pointer from tool_output_save (or "
       "tool_output_select) names. Outputs over the result limit come back "
       "as head and tail with instructions to page.",
       ObjectSchema({{"pointer", StringProp("A pointer: a ck: ref or a "
                                            "file path.",
                                            1, 4096)}},
                    {"pointer"}),
       true, false, true, RunLoad});
  tools.push_back(
      {"tool_output_select", "Pick the saved outputs relevant to a question",
       "Choose, among this session's saved tool outputs, the ones relevant "
       "to a question (an LLM when configured, else BM25) and return them, "
       "most relevant first. Use it in the answer phase instead of "
       "re-reading every output.",
       ObjectSchema(
           {{"question", StringProp("The question to answer.", 1, 8192)},
            {"max_selected", IntProp("At most this many (default 3).", 1, 50)},
            {"use_llm", BoolProp("Allow the configured LLM to choose "
                                 "(default true).")}},
           {"question"}),
       true, false, true, RunSelect});
}

}  // namespace ctxkit::mcp
