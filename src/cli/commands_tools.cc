// The tools verbs: tool-output capture (include/ctxkit/capture.h). Output
// is saved by `tools save` (result on stdin), found again by pointer, and
// selected for the answer phase by `tools select`.

#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "capture/json_forms.h"
#include "cli/cli_app.h"
#include "cli/flags.h"
#include "cli/io.h"
#include "cli/output.h"
#include "ctxkit/capture.h"
#include "ctxkit/environment.h"
#include "ctxkit/notes.h"
#include "ctxkit/store.h"
#include "face/environment.h"
#include "notes/invocation_log.h"
#include "text/json_parse.h"
#include "text/json_write.h"

namespace ctxkit::cli {

namespace {

// The session of tool outputs saved without --session or CTXKIT_SESSION, so
// that `rg ... | ctxkit tools save --tool grep` works in a plain shell and a
// later `tools ls` / `load` / `select` there finds what it saved.
constexpr char kDefaultToolsSession[] = "default";

struct ToolsArgs {
  std::string root;
  uint64_t threshold = 32 << 10;
  std::string tool;
  std::string args;
  std::string task;
  std::string query_id;
  std::string pointer;
  std::string session;
  std::string text;
  uint64_t max = 5;
  bool no_llm = false;
};

Result<std::unique_ptr<ToolOutputCapture>> OpenCapture(Context& ctx,
                                                       const ToolsArgs& a) {
  Result<View*> view = ctx.OpenView();
  if (!view.ok()) return view.status();
  CaptureOptions o;
  Result<std::string> root = ctx.ToolOutputDir(a.root);
  if (!root.ok()) return root.status();
  o.root = *root;
  o.memory_threshold_bytes = a.threshold;
  return ToolOutputCapture::Open(**view, o);
}

// The toolcall object a pointer names, as this command's view sees it.
std::optional<Ref> OutputRef(Context& ctx, const std::string& pointer) {
  Result<View*> view = ctx.OpenView();
  if (!view.ok()) return std::nullopt;
  return capture::OutputRef(**view, pointer);
}

// A result as people read it: a JSON string's text, else the JSON.
std::string ResultText(const std::string& result_json) {
  nlohmann::json j = ctxkit::text::ParseJsonOrDiscarded(result_json);
  std::string s = j.is_string() ? j.get<std::string>() : result_json;
  if (s.empty() || s.back() != '\n') s += '\n';
  return s;
}

Status Print(const std::string& text) { return WriteStdout(text); }

Status RunSave(Context& ctx, const ToolsArgs& a, notes::Invocation& inv) {
  inv.agent = ctx.options().agent;
  inv.session_id = ctx.session();
  inv.input = "tool=" + a.tool + " args=" + a.args;
  Result<std::string> in = ReadStdin();
  if (!in.ok()) return in.status();
  // JSON results are kept as JSON; anything else is a JSON string. The test
  // is nlohmann's lenient accept(), not text::CheckJson: input that looks
  // like JSON but breaks ctxkit's rules (nested past 512 levels, a raw NUL
  // byte) goes on as JSON, so SaveContext's check refuses it as a usage
  // error instead of saving it as a string.
  std::string result =
      nlohmann::json::accept(*in) ? *in : text::DumpJson(nlohmann::json(*in));
  Result<std::unique_ptr<ToolOutputCapture>> cm = OpenCapture(ctx, a);
  if (!cm.ok()) return cm.status();
  Result<std::string> p =
      (*cm)->SaveContext(a.tool, a.args, result, a.task, a.query_id);
  if (!p.ok()) return p.status();
  inv.output = *p;
  if (ctx.json()) {
    PrintJson(capture::SavedToJson(*p, result.size(), OutputRef(ctx, *p)));
    return Status::Ok();
  }
  return Print(*p + "\n");
}

Status RunLoad(Context& ctx, const ToolsArgs& a, notes::Invocation& inv) {
  inv.agent = ctx.options().agent;
  inv.session_id = ctx.session();
  inv.input = a.pointer;
  Result<std::unique_ptr<ToolOutputCapture>> cm = OpenCapture(ctx, a);
  if (!cm.ok()) return cm.status();
  Result<LoadedContext> c = (*cm)->LoadContext(a.pointer);
  if (!c.ok()) return c.status();
  inv.output = c->tool_name;
  if (ctx.json()) {
    // The loaded form, and the result around it.
    PrintJson(capture::LoadedWithResultToJson(*c, a.pointer,
                                              OutputRef(ctx, a.pointer)));
    return Status::Ok();
  }
  return Print(ResultText(c->result_json));
}

Status RunLs(Context& ctx, const ToolsArgs& a, notes::Invocation& inv) {
  inv.agent = ctx.options().agent;
  inv.session_id = ctx.session();
  Result<std::unique_ptr<ToolOutputCapture>> cm = OpenCapture(ctx, a);
  if (!cm.ok()) return cm.status();
  std::string session = a.session.empty() ? (*cm)->session_id() : a.session;
  inv.input = "session=" + session;
  Result<std::vector<ContextPointer>> list = (*cm)->ListContexts(session);
  if (!list.ok()) return list.status();
  inv.output = std::to_string(list->size()) + " outputs";
  if (ctx.json()) {
    nlohmann::json arr = nlohmann::json::array();
    for (const ContextPointer& p : *list) {
      arr.push_back(capture::PointerToJson(p, OutputRef(ctx, p.filepath)));
    }
    PrintJson(arr);
    return Status::Ok();
  }
  Table t({"TOOL", "SIZE", "TIME", "QUERY", "POINTER"}, {1});
  for (const ContextPointer& p : *list) {
    t.AddRow({p.tool_name, HumanBytes(p.size_bytes),
              HumanTime(p.timestamp * 1'000'000),
              p.query_id.empty() ? "-" : p.query_id, p.filepath});
  }
  return Print(t.Render());
}

Status RunClear(Context& ctx, const ToolsArgs& a, notes::Invocation& inv) {
  inv.agent = ctx.options().agent;
  inv.session_id = ctx.session();
  Result<std::unique_ptr<ToolOutputCapture>> cm = OpenCapture(ctx, a);
  if (!cm.ok()) return cm.status();
  Result<uint64_t> n = (*cm)->ClearContexts();
  if (!n.ok()) return n.status();
  inv.output = std::to_string(*n) + " files removed";
  if (ctx.json()) {
    PrintJson({{"files_removed", *n}, {"session_id", (*cm)->session_id()}});
    return Status::Ok();
  }
  return Print(std::to_string(*n) + " context files of session " +
               (*cm)->session_id() + " removed\n");
}

Status RunSelect(Context& ctx, const ToolsArgs& a, notes::Invocation& inv) {
  inv.agent = ctx.options().agent;
  inv.session_id = ctx.session();
  inv.input = a.text;
  Result<std::unique_ptr<ToolOutputCapture>> cm = OpenCapture(ctx, a);
  if (!cm.ok()) return cm.status();
  Result<std::vector<ContextPointer>> list =
      (*cm)->ListContexts((*cm)->session_id());
  if (!list.ok()) return list.status();
  SelectOptions o;
  o.max_selected = a.max;
  o.use_llm = !a.no_llm;
  o.llm = env::LlmEndpointFromEnv();
  Result<Selection> sel = (*cm)->Select(a.text, *list, o);
  if (!sel.ok()) return sel.status();
  inv.output = sel->method + ": " + std::to_string(sel->selected.size()) +
               " of " + std::to_string(list->size());
  if (ctx.json()) {
    Result<View*> view = ctx.OpenView();
    if (!view.ok()) return view.status();
    PrintJson(capture::SelectionToJson(**view, *sel, list->size()));
    return Status::Ok();
  }
  for (const std::string& n : sel->notes) {
    std::fprintf(stderr, "ctxkit: note: %s\n", n.c_str());
  }
  std::string out = "Available contexts:\n" + sel->prompt_list + "Selected (" +
                    sel->method + "):";
  for (const ContextPointer& p : sel->selected) out += " " + p.filepath;
  out += "\n";
  for (size_t i = 0; i < sel->selected.size(); ++i) {
    out += "\n== " + sel->selected[i].tool_name + " " +
           sel->selected[i].filepath + "\n" +
           ResultText(sel->loaded[i].result_json);
  }
  return Print(out);
}

void AddLogged(CommandTable& table, CLI::App* sub, const std::string& name,
               std::shared_ptr<ToolsArgs> a,
               Status (*fn)(Context&, const ToolsArgs&, notes::Invocation&)) {
  table.Add(sub, [a, name, fn](Context& ctx) {
    ctx.SetDefaultSession(kDefaultToolsSession);
    Status result;
    // Logs the exit code Main exits with; Main reports the failure.
    notes::RunLogged([&ctx] { return LogStore(ctx); }, name,
                     [&](notes::Invocation& inv) {
                       result = fn(ctx, *a, inv);
                       return ExitCodeFor(result);
                     });
    return result;
  });
}

}  // namespace

void RegisterToolsCommands(CLI::App& app, CommandTable& table) {
  auto a = std::make_shared<ToolsArgs>();
  CLI::App* tools = app.add_subcommand(
      "tools",
      "Tool-output capture for the session (--session, default 'default'): "
      "small outputs in "
      "the store, large ones as JSON files under $CTXKIT_TOOL_CONTEXT_DIR "
      "(else <home>/tool-outputs with an explicit --home or $CTXKIT_HOME, "
      "else ~/.agent/context)");
  tools->require_subcommand(1);
  tools->add_option("--root", a->root, "Context file directory")
      ->type_name("DIR");
  tools
      ->add_option("--threshold", a->threshold,
                   "Results from this many bytes on go to files (default "
                   "32768)")
      ->type_name("BYTES")
      ->check(UnsignedNumber());

  CLI::App* save = tools->add_subcommand(
      "save", "Save a tool's output (stdin; JSON or text); prints a pointer");
  save->add_option("--tool", a->tool, "Tool name")
      ->required()
      ->type_name("NAME");
  save->add_option("--args", a->args, "Arguments as a JSON object")
      ->type_name("JSON");
  save->add_option("--task", a->task, "Task id")->type_name("ID");
  save->add_option("--query-id", a->query_id, "Query id (see hash-query)")
      ->type_name("Q");
  AddLogged(table, save, "tools save", a, RunSave);

  CLI::App* load = tools->add_subcommand("load", "Print a saved output");
  load->add_option("POINTER", a->pointer, "File path or ck: ref")->required();
  AddLogged(table, load, "tools load", a, RunLoad);

  CLI::App* ls = tools->add_subcommand("ls", "List a session's outputs");
  ls->add_option("--session", a->session, "Session (default: --session)")
      ->type_name("S");
  AddLogged(table, ls, "tools ls", a, RunLs);

  CLI::App* clear = tools->add_subcommand(
      "clear", "Remove this session's context files (session end)");
  AddLogged(table, clear, "tools clear", a, RunClear);

  CLI::App* hash =
      tools->add_subcommand("hash-query", "The deterministic query id of TEXT");
  hash->add_option("TEXT", a->text, "Query text")->required();
  table.Add(hash, [a](Context&) { return Print(HashQuery(a->text) + "\n"); });

  CLI::App* select = tools->add_subcommand(
      "select",
      "Choose the outputs relevant to QUESTION (LLM when CTXKIT_LLM_* is "
      "set, else BM25) and print only those");
  select->add_option("QUESTION", a->text, "The question")->required();
  select->add_option("--max", a->max, "At most N outputs (default 5)")
      ->type_name("N")
      ->check(UnsignedNumber());
  select->add_flag("--no-llm", a->no_llm, "Rank with BM25 only");
  AddLogged(table, select, "tools select", a, RunSelect);
}

}  // namespace ctxkit::cli
