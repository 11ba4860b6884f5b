// Session tools: the client's own session (ClientBinding::session) as a
// context manager — activate, deactivate, pin, render. The session is
// created on first use. A client never changes another client's session.

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ctxkit/session.h"
#include "mcp/own_session.h"
#include "mcp/result_limit.h"
#include "mcp/tool_registry.h"
#include "mcp/tool_util.h"
#include "session/render_json.h"

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

Result<ToolResult> RunActivate(ClientState& c, const Json& a) {
  auto s = OwnSession(c);
  if (!s.ok()) return s.status();
  std::string object = StrArg(a, "object");
  Status st = (*s)->Activate(object, U64Arg(a, "version", 0));
  if (!st.ok()) return st;
  return PoolResult(c, "activated", object);
}

Result<ToolResult> RunDeactivate(ClientState& c, const Json& a) {
  auto s = OwnSession(c);
  if (!s.ok()) return s.status();
  std::string object = StrArg(a, "object");
  Status st = (*s)->Deactivate(object);
  if (!st.ok()) return st;
  return PoolResult(c, "deactivated", object);
}

Result<ToolResult> RunPin(ClientState& c, const Json& a) {
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

Result<ToolResult> RunRender(ClientState& c, const Json& a) {
  auto s = OwnSession(c);
  if (!s.ok()) return s.status();
  RenderOptions o;
  o.budget_tokens = U64Arg(a, "budget_tokens", 0);
  Result<LogFormat> f = ParseLogFormat(StrArg(a, "format", "openai"));
  if (!f.ok()) return f.status();
  o.format = *f;
  Result<RenderResult> r = (*s)->Render(o);
  if (!r.ok()) return r.status();
  Json st = session::RenderToJson(c.binding.session, o.format, *r);
  return LimitedTextResult(c, std::move(r->request_json), std::move(st),
                           std::nullopt, 0);
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
       ObjectSchema({{"budget_tokens",
                      IntProp("Token budget of the request.", 1, 10000000)},
                     {"format", EnumProp("Request shape (default openai).",
                                         {"openai", "anthropic"})}},
                    {"budget_tokens"}),
       true, false, true, RunRender});
}

}  // namespace ctxkit::mcp
