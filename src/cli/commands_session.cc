// Session verbs: session new/ls/show/rm/fork/ingest/activate/deactivate/
// pin/unpin/track/diff/expand (tools/call/compact: commands_agent_tools.cc),
// and render (include/ctxkit/session.h,
// docs/sessions.md).

#include <CLI/CLI.hpp>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <string>

#include "cli/cli_app.h"
#include "cli/flags.h"
#include "cli/io.h"
#include "cli/output.h"
#include "core/encoding.h"
#include "core/status_macros.h"
#include "ctxkit/agent_tools.h"
#include "ctxkit/session.h"
#include "face/environment.h"
#include "session/render_json.h"
#include "session/session_state.h"
#include "text/json_write.h"

namespace ctxkit::cli {
namespace {

struct SessionArgs {
  std::string id;
  std::string object;
  std::vector<std::string> objects;
  std::string file;
  std::string format = "openai";
  uint64_t version = 0;
  uint64_t budget = 0;
  uint64_t at = 0;     // render --at: a recorded render.
  uint64_t to = 0;     // session diff: the second record.
  std::string new_id;  // session fork: the new session.
  bool append = false;
  bool no_record = false;
  bool request_only = false;
  bool tools = false;  // render --tools: the agent tools in the request.
  SessionPolicy policy;
};

Result<std::unique_ptr<Session>> OpenSession(Context& ctx,
                                             const std::string& id) {
  Result<Store*> store = ctx.OpenStore();
  if (!store.ok()) return store.status();
  return Session::Open(**store, id);
}

// A new id when none is given: "s-" + base-36 of 48 random bits.
std::string NewSessionId() {
  std::random_device rd;
  uint64_t bits = (uint64_t{rd()} << 32 | rd()) & ((uint64_t{1} << 48) - 1);
  return "s-" + core::ToBase36(bits);
}

Status RunNew(Context& ctx, const SessionArgs& a) {
  std::string id = a.id.empty() ? NewSessionId() : a.id;
  Result<Store*> store = ctx.OpenStore();
  if (!store.ok()) return store.status();
  auto s = Session::Create(**store, id, a.policy);
  if (!s.ok()) return s.status();
  if (ctx.json()) {
    PrintJson({{"session", id}, {"policy", session::PolicyToJson(a.policy)}});
    return Status::Ok();
  }
  return WriteStdout(id + "\n");
}

Status RunLs(Context& ctx) {
  Result<Store*> store = ctx.OpenStore();
  if (!store.ok()) return store.status();
  auto ids = Session::List(**store);
  if (!ids.ok()) return ids.status();
  if (ctx.json()) {
    PrintJson({{"sessions", *ids}});
    return Status::Ok();
  }
  std::string out;
  for (const auto& id : *ids) out += id + "\n";
  return WriteStdout(out);
}

Status RunRm(Context& ctx, const SessionArgs& a) {
  Result<Store*> store = ctx.OpenStore();
  if (!store.ok()) return store.status();
  Result<uint64_t> removed = Session::Remove(**store, a.id);
  if (!removed.ok()) return removed.status();
  if (ctx.json()) {
    PrintJson({{"session", a.id}, {"removed_objects", *removed}});
    return Status::Ok();
  }
  return WriteStdout("removed session " + a.id + " (" +
                     std::to_string(*removed) +
                     " objects; their history stays until gc)\n");
}

Status RunFork(Context& ctx, const SessionArgs& a) {
  Result<Store*> store = ctx.OpenStore();
  if (!store.ok()) return store.status();
  auto child = Session::Fork(**store, a.id, a.at, a.new_id);
  if (!child.ok()) return child.status();
  auto snap = (*child)->Snapshot();
  if (!snap.ok()) return snap.status();
  if (ctx.json()) {
    PrintJson(session::ForkToJson(a.id, a.at, *snap));
    return Status::Ok();
  }
  return WriteStdout(a.new_id + "\n");
}

Status RunShow(Context& ctx, const SessionArgs& a) {
  auto s = OpenSession(ctx, a.id);
  if (!s.ok()) return s.status();
  auto snap = (*s)->Snapshot();
  if (!snap.ok()) return snap.status();
  if (ctx.json()) {
    PrintJson(session::SnapshotToJson(*snap));
    return Status::Ok();
  }
  std::string out = "session " + snap->id + ": " +
                    std::to_string(snap->chat_messages) + " chat messages, " +
                    std::to_string(snap->entries.size()) + " objects\n";
  out += "locked: system, chat\n";
  for (const auto& c : snap->compactions) {
    out += "compacted\tmessages " + std::to_string(c.first_message) + "-" +
           std::to_string(c.end_message - 1) + " (" + std::to_string(c.turns) +
           " turns)\t" + c.ref + "\n";
  }
  if (snap->renders != 0) {
    const RenderBreakdown& b = snap->last_render_breakdown;
    auto n = [](uint64_t v) { return std::to_string(v); };
    out += "renders recorded: " + n(snap->renders) + " (render " + snap->id +
           " --at N replays one); the last used " +
           n(snap->last_render_tokens) + " of " + n(snap->last_render_budget) +
           " tokens: system " + n(b.system) + ", pinned " + n(b.pinned) +
           ", index " + n(b.index) + ", compactions " + n(b.compactions) +
           ", chat " + n(b.chat) + ", active outputs " + n(b.active_outputs) +
           ", placeholders " + n(b.placeholders) + "\n";
  }
  for (const auto& e : snap->entries) {
    std::string state = e.active ? "active" : "metadata";
    if (e.collapsed) state = "collapsed";
    if (e.pinned_version != 0) {
      state += " pinned@v" + std::to_string(e.pinned_version);
    }
    out += state + "\t" + e.key + "\tv" + std::to_string(e.version) + "\t" +
           std::to_string(e.tokens) + " tokens\t" + e.title + "\n";
  }
  return WriteStdout(out);
}

Status RunIngest(Context& ctx, const SessionArgs& a) {
  Result<LogFormat> format = ParseLogFormat(a.format);
  if (!format.ok()) return format.status().WithContext("--format");
  Result<std::string> log = a.file == "-" ? ReadStdin() : ReadFile(a.file);
  if (!log.ok()) return log.status();
  auto s = OpenSession(ctx, a.id);
  if (!s.ok()) return s.status();
  const ProgressOptions progress = ctx.Progress();
  auto report = a.append ? (*s)->IngestAppend(*log, *format, progress)
                         : (*s)->Ingest(*log, *format, progress);
  if (!report.ok()) return report.status();
  if (ctx.json()) {
    PrintJson(session::IngestToJson(a.id, *report));
    return Status::Ok();
  }
  std::string out =
      std::string(report->reset ? "log rewritten: chat reset; " : "") +
      std::to_string(report->messages_added) + " messages added, " +
      std::to_string(report->toolcalls_recorded) + " tool outputs recorded";
  return WriteStdout(out + "\n");
}

enum class PoolVerb { kActivate, kDeactivate, kPin, kUnpin, kTrack };

Status RunPool(Context& ctx, const SessionArgs& a, PoolVerb verb) {
  auto s = OpenSession(ctx, a.id);
  if (!s.ok()) return s.status();
  Status st;
  const char* done = "";
  switch (verb) {
    case PoolVerb::kActivate:
      st = (*s)->Activate(a.object, a.version);
      done = a.version != 0 ? "pinned" : "activated";
      break;
    case PoolVerb::kDeactivate:
      st = (*s)->Deactivate(a.object);
      done = "deactivated";
      break;
    case PoolVerb::kPin:
      st = (*s)->Pin(a.object, a.version);
      done = "pinned";
      break;
    case PoolVerb::kUnpin:
      st = (*s)->Unpin(a.object);
      done = "unpinned";
      break;
    case PoolVerb::kTrack:
      st = (*s)->TrackMany(a.objects);
      done = "tracked";
      break;
  }
  CTXKIT_RETURN_IF_ERROR(st);
  if (ctx.json()) {
    nlohmann::json j = {{"session", a.id}, {"done", done}};
    if (verb == PoolVerb::kTrack) {
      j["objects"] = a.objects;
    } else {
      j["object"] = a.object;
    }
    PrintJson(j);
    return Status::Ok();
  }
  return WriteStdout(std::string(done) + "\n");
}

Status RunRender(Context& ctx, const SessionArgs& a) {
  Result<LogFormat> format = ParseLogFormat(a.format);
  if (!format.ok()) return format.status().WithContext("--format");
  auto s = OpenSession(ctx, a.id);
  if (!s.ok()) return s.status();
  if (a.at == 0 && a.budget == 0) {
    return Status::InvalidArgument(
        "render needs --budget N (or --at N to replay a recorded render)");
  }
  RenderOptions options{
      .budget_tokens = a.budget, .format = *format, .record = !a.no_record};
  options.llm = env::LlmEndpointFromEnv();  // Compaction summaries.
  if (a.tools) {
    CTXKIT_ASSIGN_OR_RETURN(options.tools_json,
                            AgentToolsWith(ToolFormatOf(*format), ""));
  }
  Result<RenderResult> r =
      a.at != 0 ? (*s)->Replay(a.at) : (*s)->Render(options);
  if (!r.ok()) return r.status();
  // The body to send, byte for byte (what the record replays), and nothing
  // else: no newline, no report.
  if (a.request_only) return WriteStdout(r->request_json);
  // The render form, and the request around it.
  nlohmann::json out = session::RenderToJson(a.id, r->format, *r);
  out["request"] = nlohmann::json::parse(r->request_json);
  // Shown only: a byte that is not UTF-8 would print as U+FFFD (the
  // request and report are UTF-8 already, docs/sessions.md).
  return WriteStdout(text::DumpJson(out) + "\n");
}

Status RunDiff(Context& ctx, const SessionArgs& a) {
  auto s = OpenSession(ctx, a.id);
  if (!s.ok()) return s.status();
  auto d = (*s)->Diff(a.at, a.to);
  if (!d.ok()) return d.status();
  if (ctx.json()) {
    PrintJson(session::DiffToJson(a.id, *d));
    return Status::Ok();
  }
  std::string out = "render " + std::to_string(d->from) + " -> " +
                    std::to_string(d->to) + ": " +
                    std::to_string(d->from_tokens) + " -> " +
                    std::to_string(d->to_tokens) + " tokens\n";
  auto list = [&out](const char* what, const std::vector<std::string>& keys) {
    for (const std::string& k : keys)
      out += std::string(what) + "\t" + k + "\n";
  };
  list("entered", d->entered);
  list("left", d->left);
  list("collapsed", d->collapsed);
  for (const CompactionInfo& c : d->compacted) {
    out += "compacted\tmessages " + std::to_string(c.first_message) + "-" +
           std::to_string(c.end_message - 1) + "\t" + c.ref + "\n";
  }
  return WriteStdout(out);
}

Status RunExpand(Context& ctx, const SessionArgs& a) {
  auto s = OpenSession(ctx, a.id);
  if (!s.ok()) return s.status();
  auto lines = (*s)->Expand(a.object);
  if (!lines.ok()) return lines.status();
  return WriteStdout(*lines);
}

CLI::App* WithId(CLI::App* sub, SessionArgs* a) {
  sub->add_option("ID", a->id, "The session id")->required();
  return sub;
}

CLI::App* WithObject(CLI::App* sub, SessionArgs* a, bool version) {
  WithId(sub, a);
  sub->add_option("OBJECT", a->object,
                  "A key, a ref (ck:...), or chat / system")
      ->required();
  if (version) {
    sub->add_option("--version,-V", a->version,
                    "A version (pins it: a static reference)")
        ->type_name("N")
        ->check(UnsignedNumber());
  }
  return sub;
}

}  // namespace

void RegisterSessionCommands(CLI::App& app, CommandTable& table) {
  CLI::App* session = app.add_subcommand(
      "session",
      "Context-manager sessions: pools of objects, harness-log ingestion "
      "(see docs/sessions.md)");
  session->require_subcommand(1);
  RegisterAgentToolCommands(session, table);
  {
    auto a = std::make_shared<SessionArgs>();
    CLI::App* sub = session->add_subcommand(
        "new", "Create a session (a random id when ID is omitted)");
    sub->add_option("ID", a->id, "1-64 bytes of [A-Za-z0-9._-]");
    sub->add_option("--keep", a->policy.keep_tool_outputs,
                    "Tool outputs kept active (default 5)")
        ->type_name("N")
        ->check(UnsignedNumber());
    sub->add_option("--min-collapse-tokens", a->policy.min_collapse_tokens,
                    "Collapse older outputs only when at least this many "
                    "tokens, or --min-collapse-percent of the budget if "
                    "fewer, are freed at once (default 8000)")
        ->type_name("N")
        ->check(UnsignedNumber());
    sub->add_option("--min-collapse-percent", a->policy.min_collapse_percent,
                    "... that share of the render's budget (default 8)")
        ->type_name("PCT")
        ->check(UnsignedNumber());
    sub->add_option("--index-max-tokens", a->policy.index_max_tokens,
                    "Token cap of the metadata index (default 4000)")
        ->type_name("N")
        ->check(UnsignedNumber());
    sub->add_option("--index-max-percent", a->policy.index_max_percent,
                    "... and its cap as a share of the render's budget "
                    "(default 10)")
        ->type_name("PCT")
        ->check(UnsignedNumber());
    sub->add_option("--compact-trigger", a->policy.compact_trigger_percent,
                    "Free tokens when a render would use more than this % "
                    "of its budget (default 100: when it would not fit)")
        ->type_name("PCT")
        ->check(UnsignedNumber());
    sub->add_option("--compact-target", a->policy.compact_target_percent,
                    "... down to this % of the budget (default 50)")
        ->type_name("PCT")
        ->check(UnsignedNumber());
    sub->add_option("--keep-turns", a->policy.keep_turns,
                    "Newest turns never compacted (default 2)")
        ->type_name("N")
        ->check(UnsignedNumber());
    sub->add_option("--summary-tokens", a->policy.compaction_summary_tokens,
                    "Token cap of a compaction's summary (default 300)")
        ->type_name("N")
        ->check(UnsignedNumber());
    sub->add_flag("--collapse-at-ingestion", a->policy.collapse_at_ingestion,
                  "Each ingestion collapses outputs older than the newest "
                  "--keep, whatever the budget");
    sub->add_option("--cache-ttl", a->policy.cache_ttl_seconds,
                    "The provider's cache lifetime in seconds: once the last "
                    "render is older, a render over --compact-target relieves "
                    "(0: never; default 300)")
        ->type_name("SECONDS")
        ->check(UnsignedNumber());
    table.Add(sub, [a](Context& ctx) { return RunNew(ctx, *a); });
  }
  {
    CLI::App* sub = session->add_subcommand("ls", "List sessions");
    table.Add(sub, [](Context& ctx) { return RunLs(ctx); });
  }
  {
    auto a = std::make_shared<SessionArgs>();
    CLI::App* sub = WithId(
        session->add_subcommand("show", "Show a session's pools"), a.get());
    table.Add(sub, [a](Context& ctx) { return RunShow(ctx, *a); });
  }
  {
    auto a = std::make_shared<SessionArgs>();
    CLI::App* sub = WithId(
        session->add_subcommand(
            "rm",
            "Remove a session: its state, and its session-scoped objects "
            "(tombstoned; history stays until gc)"),
        a.get());
    table.Add(sub, [a](Context& ctx) { return RunRm(ctx, *a); });
  }
  {
    auto a = std::make_shared<SessionArgs>();
    CLI::App* sub = WithId(
        session->add_subcommand(
            "fork",
            "Start session NEW from recorded render N of session ID: what "
            "that render showed the model, the parent unchanged"),
        a.get());
    sub->add_option("--at", a->at, "The render record to fork at (1-based)")
        ->type_name("N")
        ->required()
        ->check(UnsignedNumber());
    sub->add_option("NEW", a->new_id, "The new session's id")->required();
    table.Add(sub, [a](Context& ctx) { return RunFork(ctx, *a); });
  }
  {
    auto a = std::make_shared<SessionArgs>();
    CLI::App* sub = WithId(
        session->add_subcommand(
            "ingest",
            "Ingest a harness message log (JSON); incremental and idempotent"),
        a.get());
    sub->add_option("FILE", a->file, "The log file, or - for stdin")
        ->required();
    sub->add_option("--format,-f", a->format,
                    "openai (default), openai-responses or anthropic")
        ->type_name("F");
    sub->add_flag("--append", a->append,
                  "FILE holds only new messages, continuing what was "
                  "ingested (tool results may answer earlier calls)");
    table.Add(sub, [a](Context& ctx) { return RunIngest(ctx, *a); });
  }
  struct Verb {
    const char* name;
    const char* help;
    PoolVerb verb;
    bool version;
  };
  for (const Verb& v : {
           Verb{"activate",
                "Load an object's content into the context (follows its "
                "latest version; with --version, pins that version)",
                PoolVerb::kActivate, true},
           Verb{"deactivate",
                "Back to metadata only (chat and system are locked)",
                PoolVerb::kDeactivate, false},
           Verb{"pin", "Show an object at a fixed version (default: latest)",
                PoolVerb::kPin, true},
           Verb{"unpin", "Stop pinning an object", PoolVerb::kUnpin, false},
       }) {
    auto a = std::make_shared<SessionArgs>();
    CLI::App* sub =
        WithObject(session->add_subcommand(v.name, v.help), a.get(), v.version);
    PoolVerb verb = v.verb;
    table.Add(sub, [a, verb](Context& ctx) { return RunPool(ctx, *a, verb); });
  }
  {
    auto a = std::make_shared<SessionArgs>();
    CLI::App* sub = WithId(
        session->add_subcommand(
            "track", "Add objects to the metadata pool (content not loaded)"),
        a.get());
    sub->add_option("OBJECT", a->objects, "Keys or refs")->required();
    table.Add(sub,
              [a](Context& ctx) { return RunPool(ctx, *a, PoolVerb::kTrack); });
  }
  {
    auto a = std::make_shared<SessionArgs>();
    CLI::App* sub = WithId(
        session->add_subcommand("diff",
                                "What entered, left, collapsed or was "
                                "compacted between recorded renders N and M"),
        a.get());
    sub->add_option("N", a->at, "A render record")
        ->required()
        ->check(UnsignedNumber());
    sub->add_option("M", a->to, "A later (or earlier) render record")
        ->required()
        ->check(UnsignedNumber());
    table.Add(sub, [a](Context& ctx) { return RunDiff(ctx, *a); });
  }
  {
    auto a = std::make_shared<SessionArgs>();
    CLI::App* sub =
        WithId(session->add_subcommand("expand",
                                       "Print the chat messages a compaction "
                                       "replaced, exactly as stored (NDJSON)"),
               a.get());
    sub->add_option("COMPACTION", a->object,
                    "The compaction's ref (ck:...) or key")
        ->required();
    table.Add(sub, [a](Context& ctx) { return RunExpand(ctx, *a); });
  }
  {
    auto a = std::make_shared<SessionArgs>();
    CLI::App* sub =
        WithId(app.add_subcommand(
                   "render",
                   "Print the render report of session ID within --budget "
                   "tokens, the request the model sees as its "
                   "\"request\" (JSON; --request-only: the request "
                   "alone)"),
               a.get());
    auto* budget = sub->add_option("--budget,-b", a->budget, "Token budget")
                       ->type_name("N")
                       ->check(UnsignedNumber());
    sub->add_option("--format,-f", a->format,
                    "openai (default), openai-responses or anthropic")
        ->type_name("F");
    sub->add_option("--at", a->at,
                    "Replay recorded render N byte for byte (see session "
                    "show for how many there are)")
        ->type_name("N")
        ->check(UnsignedNumber())
        ->excludes(budget);
    sub->add_flag("--no-record", a->no_record,
                  "Do not record this render (see --at)");
    sub->add_flag("--tools", a->tools,
                  "Add the agent tools (session tools) to the request, in "
                  "its format; placeholders then name ctxkit_read")
        ->excludes("--at");
    sub->add_flag("--request-only", a->request_only,
                  "Print only the request body to send, byte for byte (no "
                  "report, no trailing newline)");
    table.Add(sub, [a](Context& ctx) { return RunRender(ctx, *a); });
  }
}

}  // namespace ctxkit::cli
