#include "mcp/prompts.h"

#include <optional>
#include <string>
#include <utility>

#include "ctxkit/externalize.h"
#include "mcp/extension.h"
#include "mcp/own_session.h"

namespace ctxkit::mcp {

namespace {

Json RootPromptEntry() {
  return {
      {"name", kRootPromptName},
      {"title", "Root prompt (context as variables)"},
      {"description",
       "The SPEC-25 root prompt for a task: the query, a one-line summary of "
       "each context variable of the session (conversation, files, tool "
       "outputs, working memory) and the helpers to explore them by ref — "
       "never the content itself."},
      {"arguments",
       Json::array({{{"name", "query"},
                     {"description", "The task for the model."},
                     {"required", true}},
                    {{"name", "session"},
                     {"description",
                      "The session to externalize; only this connection's "
                      "own session (the default)."},
                     {"required", false}}})}};
}

RpcOutcome GetRootPrompt(ClientState& c, const Json& args) {
  auto q = args.find("query");
  if (q == args.end() || !q->is_string() ||
      q->get_ref<const std::string&>().empty()) {
    return RpcOutcome::Fail(kInvalidParams,
                            "missing required argument 'query' (a non-empty "
                            "string)");
  }
  std::string session;
  if (auto s = args.find("session"); s != args.end()) {
    if (!s->is_string()) {
      return RpcOutcome::Fail(kInvalidParams,
                              "argument 'session' must be a string");
    }
    session = s->get<std::string>();
  }
  Status own = CheckOwnSession(c, session);
  if (!own.ok()) return RpcOutcome::Fail(kInvalidParams, own.message());
  Result<std::unique_ptr<Session>> opened = OwnSession(c);
  if (!opened.ok()) {
    return RpcOutcome::Fail(kInternalError, opened.status().ToString());
  }
  Result<ExternalizedContext> ctx = ExternalizedContext::FromSession(
      c.view, "", c.binding.session, q->get<std::string>());
  if (!ctx.ok()) {
    return RpcOutcome::Fail(
        ctx.status().IsInvalidArgument() ? kInvalidParams : kInternalError,
        ctx.status().ToString());
  }
  Result<RootPrompt> prompt = BuildRootPrompt(*ctx);
  if (!prompt.ok()) {
    return RpcOutcome::Fail(kInternalError, prompt.status().ToString());
  }
  return RpcOutcome::Ok(
      {{"description", "SPEC-25 root prompt for session " + c.binding.session +
                           " (" + std::to_string(prompt->tokens) + " tokens)"},
       {"messages",
        Json::array(
            {{{"role", "user"},
              {"content", {{"type", "text"}, {"text", prompt->text}}}}})}});
}

}  // namespace

RpcOutcome ListPrompts(ClientState& c) {
  Json prompts = Json::array({RootPromptEntry()});
  for (const Json& p : ExtensionPrompts(c.options)) prompts.push_back(p);
  return RpcOutcome::Ok({{"prompts", std::move(prompts)}});
}

RpcOutcome GetPrompt(ClientState& c, const Json& params) {
  NamedCallParams call;
  if (std::optional<RpcError> e = ParseNamedCallParams(params, &call)) {
    return {Json(), std::move(*e)};
  }
  const std::string& name = call.name;
  const Json& args = call.arguments;
  if (name == kRootPromptName) return GetRootPrompt(c, args);
  if (std::optional<RpcOutcome> r = GetExtensionPrompt(c.options, name, args)) {
    return std::move(*r);
  }
  return RpcOutcome::Fail(kInvalidParams,
                          "unknown prompt '" + name + "' (see prompts/list)");
}

}  // namespace ctxkit::mcp
