// Tool-output tools: save a large tool output and keep only its pointer;
// later select the outputs relevant to a question (include/ctxkit/
// capture.h). Each client has its own tool-output capture, bound to its
// session, so in-memory outputs live as long as the connection.

#include <string>
#include <utility>
#include <vector>

#include "capture/json_forms.h"
#include "ctxkit/capture.h"
#include "face/environment.h"
#include "mcp/result_limit.h"
#include "mcp/tool_registry.h"
#include "mcp/tool_util.h"
#include "text/json_parse.h"

namespace ctxkit::mcp {

namespace {

Result<ToolResult> RunSave(ClientState& c, const Json& a,
                           const ProgressOptions&) {
  Result<ToolOutputCapture*> cm = c.Capture();
  if (!cm.ok()) return cm.status();
  std::string args = a.contains("args") ? Serialize(a["args"]) : "{}";
  std::string result = Serialize(a["result"]);
  Result<std::string> p =
      (*cm)->SaveContext(StrArg(a, "tool_name"), args, result,
                         StrArg(a, "task_id"), StrArg(a, "query_id"));
  if (!p.ok()) return p.status();
  bool in_memory = Target::IsRefText(*p);
  ToolResult r;
  r.content.push_back(TextContent(
      *p + (in_memory ? "\n(in memory for this session; read it back with "
                        "tool_output_load, or with get/peek/search by ref)"
                      : "\n(saved as a file; read it back with "
                        "tool_output_load or select it with "
                        "tool_output_select)")));
  r.structured =
      capture::SavedToJson(*p, result.size(), capture::OutputRef(c.view, *p));
  return r;
}

Result<ToolResult> RunLoad(ClientState& c, const Json& a,
                           const ProgressOptions&) {
  Result<ToolOutputCapture*> cm = c.Capture();
  if (!cm.ok()) return cm.status();
  std::string pointer = StrArg(a, "pointer");
  Result<LoadedContext> l = (*cm)->LoadContext(pointer);
  if (!l.ok()) return l.status();
  std::optional<Ref> source = capture::OutputRef(c.view, pointer);
  Json s = capture::LoadedToJson(*l, pointer, source);
  // The result is the text content, not part of the form. The toolcall
  // object stores a string result as its text, anything else as compact
  // JSON: return the same bytes, so byte ranges in a truncated answer are
  // ranges of that object.
  Json result = ctxkit::text::ParseJsonOrDiscarded(l->result_json);
  std::string text =
      result.is_string() ? result.get<std::string>() : Serialize(result);
  return LimitedTextResult(c, std::move(text), std::move(s), source, 0);
}

Result<ToolResult> RunSelect(ClientState& c, const Json& a,
                             const ProgressOptions&) {
  Result<ToolOutputCapture*> cm = c.Capture();
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
  std::string text;
  for (size_t i = 0; i < sel->selected.size(); ++i) {
    text += "## " + sel->selected[i].tool_name + " (" +
            sel->selected[i].filepath + ")\n";
    if (i < sel->loaded.size()) text += sel->loaded[i].result_json + "\n";
  }
  if (sel->selected.empty()) text = "(no saved output matches)\n";
  Json s = capture::SelectionToJson(c.view, *sel, all->size());
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
