// Session tools: the client's own session (ClientBinding::session) as a
// context manager — activate, deactivate, pin, ingest, render (and replay),
// diff, expand, fork. The session is created on first use. A client never
// changes another client's session.

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ctxkit/session.h"
#include "face/environment.h"
#include "mcp/own_session.h"
#include "mcp/result_limit.h"
#include "mcp/tool_registry.h"
#include "mcp/tool_util.h"
#include "session/render_json.h"
#include "text/json_write.h"

namespace ctxkit::mcp {

namespace {

Json ObjectSchemaWith(Json extra, std::initializer_list<const char*> req) {
  Json props = {{"object", StringProp("A key (looked up in your session "
                                      "scope, then global), a ref "
                                      "(ck:...), or \"chat\"/\"system\".",
                                      1, 1024)}};
  for (auto it = extra.begin(); it != extra.end(); ++it) {
    props[it.key()] = it.value();
  }
  return ObjectSchema(std::move(props), req);
}

Result<ToolResult> PoolResult(ClientState& c, const std::string& what,
                              const std::string& object) {
  ToolResult r;
  r.content.push_back(
      TextContent(what + " " + object + " in session " + c.binding.session));
  r.structured = {
      {"session", c.binding.session}, {"object", object}, {"done", what}};
  return r;
}

Result<ToolResult> RunActivate(ClientState& c, const Json& a,
                               const ProgressOptions&) {
  auto s = OwnSession(c);
  if (!s.ok()) return s.status();
  std::string object = StrArg(a, "object");
  Status st = (*s)->Activate(object, U64Arg(a, "version", 0));
  if (!st.ok()) return st;
  return PoolResult(c, "activated", object);
}

Result<ToolResult> RunDeactivate(ClientState& c, const Json& a,
                                 const ProgressOptions&) {
  auto s = OwnSession(c);
  if (!s.ok()) return s.status();
  std::string object = StrArg(a, "object");
  Status st = (*s)->Deactivate(object);
  if (!st.ok()) return st;
  return PoolResult(c, "deactivated", object);
}

Result<ToolResult> RunPin(ClientState& c, const Json& a,
                          const ProgressOptions&) {
  auto s = OwnSession(c);
  if (!s.ok()) return s.status();
  std::string object = StrArg(a, "object");
  Status st = BoolArg(a, "unpin", false)
                  ? (*s)->Unpin(object)
                  : (*s)->Pin(object, U64Arg(a, "version", 0));
  if (!st.ok()) return st;
  return PoolResult(c, BoolArg(a, "unpin", false) ? "unpinned" : "pinned",
                    object);
}

Result<ToolResult> RunRender(ClientState& c, const Json& a,
                             const ProgressOptions&) {
  auto s = OwnSession(c);
  if (!s.ok()) return s.status();
  const uint64_t at = U64Arg(a, "at", 0);
  RenderOptions o;
  o.budget_tokens = U64Arg(a, "budget_tokens", 0);
  if ((at == 0) == (o.budget_tokens == 0)) {
    return Status::InvalidArgument(
        "give budget_tokens (a new render) or at (a recorded one), not both");
  }
  Result<LogFormat> f = ParseLogFormat(StrArg(a, "format", "openai"));
  if (!f.ok()) return f.status();
  o.format = *f;
  o.llm = c.options.llm.value_or(env::LlmEndpointFromEnv());
  Result<RenderResult> r = at != 0 ? (*s)->Replay(at) : (*s)->Render(o);
  if (!r.ok()) return r.status();
  Json st = session::RenderToJson(c.binding.session, r->format, *r);
  return LimitedTextResult(c, std::move(r->request_json), std::move(st),
                           std::nullopt, 0);
}

Result<ToolResult> RunIngest(ClientState& c, const Json& a,
                             const ProgressOptions& progress) {
  auto s = OwnSession(c);
  if (!s.ok()) return s.status();
  Result<LogFormat> f = ParseLogFormat(StrArg(a, "format", "openai"));
  if (!f.ok()) return f.status();
  auto it = a.find("messages");
  if (it == a.end() || !it->is_array()) {
    return Status::InvalidArgument("messages must be an array");
  }
  // The log in the format's own shape: Responses items go in "input",
  // with the system prompt as its "instructions".
  const bool responses = *f == LogFormat::kOpenAIResponses;
  Json log = {{responses ? "input" : "messages", *it}};
  if (auto sys = a.find("system"); sys != a.end()) {
    log[responses ? "instructions" : "system"] = *sys;
  }
  const std::string text = log.dump();
  Result<IngestReport> rep = BoolArg(a, "append", true)
                                 ? (*s)->IngestAppend(text, *f, progress)
                                 : (*s)->Ingest(text, *f, progress);
  if (!rep.ok()) return rep.status();
  ToolResult r;
  r.content.push_back(TextContent(
      std::to_string(rep->messages_added) + " messages added to session " +
      c.binding.session + (rep->reset ? " (log rewritten: chat reset)" : "")));
  r.structured = session::IngestToJson(c.binding.session, *rep);
  return r;
}

Result<ToolResult> RunDiff(ClientState& c, const Json& a,
                           const ProgressOptions&) {
  auto s = OwnSession(c);
  if (!s.ok()) return s.status();
  Result<RenderDiff> d = (*s)->Diff(U64Arg(a, "from", 0), U64Arg(a, "to", 0));
  if (!d.ok()) return d.status();
  ToolResult r;
  r.structured = session::DiffToJson(c.binding.session, *d);
  r.content.push_back(TextContent(text::DumpJson(r.structured)));
  return r;
}

Result<ToolResult> RunExpand(ClientState& c, const Json& a,
                             const ProgressOptions&) {
  auto s = OwnSession(c);
  if (!s.ok()) return s.status();
  Result<std::string> lines = (*s)->Expand(StrArg(a, "compaction"));
  if (!lines.ok()) return lines.status();
  return LimitedTextResult(
      c, std::move(*lines),
      {{"session", c.binding.session}, {"compaction", StrArg(a, "compaction")}},
      std::nullopt, 0);
}

Result<ToolResult> RunCompact(ClientState& c, const Json& a,
                              const ProgressOptions&) {
  auto s = OwnSession(c);
  if (!s.ok()) return s.status();
  Status st = (*s)->RequestCompaction(StrArg(a, "instructions"));
  if (!st.ok()) return st;
  return PoolResult(c, "compaction requested", "older turns");
}

// A new session from a recorded render of the client's own; the client
// stays bound to its own session.
Result<ToolResult> RunFork(ClientState& c, const Json& a,
                           const ProgressOptions&) {
  auto s = OwnSession(c);
  if (!s.ok()) return s.status();
  const uint64_t at = U64Arg(a, "at", 0);
  const std::string id = StrArg(a, "new_session");
  auto child = Session::Fork(*c.store, c.binding.session, at, id);
  if (!child.ok()) return child.status();
  auto snap = (*child)->Snapshot();
  if (!snap.ok()) return snap.status();
  ToolResult r;
  r.structured = session::ForkToJson(c.binding.session, at, *snap);
  r.content.push_back(TextContent("forked session " + c.binding.session +
                                  " at render " + std::to_string(at) +
                                  " as session " + id));
  return r;
}

}  // namespace

void AddSessionTools(std::vector<ToolDef>& tools) {
  tools.push_back(
      {"session_activate", "Activate an object in your session",
       "Put a stored object into your session's active pool: its content is "
       "rendered by session_render (following its latest version). With a "
       "version it is pinned at that version instead. Your session is the "
       "one this connection is bound to; it is created on first use.",
       ObjectSchemaWith({{"version", VersionProp()}}, {"object"}), false, false,
       true, RunActivate});
  tools.push_back(
      {"session_deactivate", "Deactivate an object in your session",
       "Move an object back to your session's metadata pool: it is listed "
       "by ref (one line) instead of rendered. The chat and system prompt "
       "are locked and cannot be deactivated.",
       ObjectSchemaWith(Json::object(), {"object"}), false, false, true,
       RunDeactivate});
  tools.push_back(
      {"session_pin", "Pin (or unpin) an object at a version",
       "Show an object at one fixed version in your session's renders (a "
       "static reference), whatever later versions appear. unpin: true "
       "removes the pin.",
       ObjectSchemaWith({{"version", VersionProp()},
                         {"unpin", BoolProp("Remove the pin instead.")}},
                        {"object"}),
       false, false, true, RunPin});
  tools.push_back(
      {"session_render", "Render your session as a model request",
       "Render your session (system prompt, pinned and active objects, the "
       "chat, an index of the rest by ref) as an OpenAI or Anthropic request "
       "JSON within budget_tokens, in a stable-prefix order. Reports what "
       "was dropped to fit, with refs to get it back.",
       ObjectSchema(
           {{"budget_tokens",
             IntProp("Token budget of a new render.", 1, 10000000)},
            {"at", IntProp("Replay recorded render N (1-based) byte for "
                           "byte instead of rendering anew.",
                           1, INT64_MAX)},
            {"format", EnumProp("Request shape (default openai).",
                                {"openai", "openai-responses", "anthropic"})}},
           {}),
       false, false, false, RunRender});
  tools.push_back(
      {"session_ingest", "Add messages to your session's chat",
       "Ingest harness messages (OpenAI Chat, OpenAI Responses items or "
       "Anthropic form) into your "
       "session's chat. append (default true): the messages continue what "
       "was ingested, and tool results may answer earlier calls; false: "
       "messages is the whole log (re-sending it adds only what is new). "
       "Every tool result becomes a toolcall object the chat refers to by "
       "ref.",
       ObjectSchema(
           {{"messages", Json{{"type", "array"},
                              {"description", "Log messages, oldest first."},
                              {"items", {{"type", "object"}}},
                              {"maxItems", 100000}}},
            {"system", StringProp("Anthropic and openai-responses: the "
                                  "system prompt (whole logs only).")},
            {"append", BoolProp("The messages continue the chat (default "
                                "true).")},
            {"format", EnumProp("Log shape (default openai).",
                                {"openai", "openai-responses", "anthropic"})}},
           {"messages"}),
       false, false, false, RunIngest});
  tools.push_back(
      {"session_diff", "Compare two recorded renders",
       "What entered, left, collapsed or was compacted between two recorded "
       "renders of your session (numbers from session_render's record), "
       "with their token breakdowns.",
       ObjectSchema({{"from", IntProp("A render record.", 1, INT64_MAX)},
                     {"to", IntProp("Another render record.", 1, INT64_MAX)}},
                    {"from", "to"}),
       true, false, true, RunDiff});
  tools.push_back(
      {"session_fork", "Fork your session at a recorded render",
       "Start a new session from recorded render `at` of your session: it "
       "sees what that render showed (chat, compactions, pins, outputs "
       "shared by ref) and continues from there; your session is "
       "unchanged and stays yours.",
       ObjectSchema(
           {{"at", IntProp("A render record (1-based).", 1, INT64_MAX)},
            {"new_session", StringProp("The new session's id "
                                       "([A-Za-z0-9._-], 1-64 bytes).",
                                       1, 64)}},
           {"at", "new_session"}),
       false, false, false, RunFork});
  tools.push_back(
      {"session_expand", "Get back the messages a compaction replaced",
       "A compaction in your session's render folds older turns into a "
       "summary; this returns the messages it replaced exactly as stored "
       "(one JSON message per line), tool results by ref.",
       ObjectSchema(
           {{"compaction", StringProp("The compaction's ref (ck:...) from the "
                                      "render.",
                                      1, 1024)}},
           {"compaction"}),
       true, false, true, RunExpand});
  tools.push_back(
      {"session_compact", "Compact your session's older turns now",
       "Your session's next render folds every turn but the newest few into "
       "a compaction, whatever the budget, with a summary that keeps what "
       "`instructions` say; session_expand reads the turns back.",
       ObjectSchema(
           {{"instructions",
             StringProp("What the summary must keep (optional).", 0, 2000)}},
           {}),
       false, false, true, RunCompact});
}

}  // namespace ctxkit::mcp
