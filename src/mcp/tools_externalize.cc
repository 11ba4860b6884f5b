// The externalize tool (SPEC-25): the client's session as variables with
// summaries, and the root prompt that names them instead of holding them.

#include <string>
#include <utility>
#include <vector>

#include "ctxkit/externalize.h"
#include "mcp/own_session.h"
#include "mcp/result_limit.h"
#include "mcp/tool_registry.h"
#include "mcp/tool_util.h"

namespace ctxkit::mcp {

namespace {

Result<ToolResult> RunExternalize(ClientState& c, const Json& a,
                                  const ProgressOptions&) {
  // FromSession needs the session to exist; an empty one is fine.
  Result<std::unique_ptr<Session>> own = OwnSession(c);
  if (!own.ok()) return own.status();
  Result<ExternalizedContext> ctx = ExternalizedContext::FromSession(
      c.view, "", c.binding.session, StrArg(a, "query"));
  if (!ctx.ok()) return ctx.status();
  SizeConfig config;
  if (BoolArg(a, "auto_chunk", false)) {
    Status s = ctx->AutoChunk(c.view, config);
    if (!s.ok()) return s;
  }
  Result<RootPrompt> prompt = BuildRootPrompt(*ctx);
  if (!prompt.ok()) return prompt.status();
  Json s =
      ctx->ToJson(config, &*prompt, false, BoolArg(a, "with_members", false));
  std::string text = prompt->text;
  for (const SizeWarning& w : ctx->CheckSizeLimits(config)) {
    text += "\n[size warning] " + w.message;
  }
  return LimitedTextResult(c, std::move(text), std::move(s), std::nullopt, 0);
}

}  // namespace

void AddExternalizeTools(std::vector<ToolDef>& tools) {
  tools.push_back(
      {"externalize", "Your session as variables + root prompt",
       "Externalize your session (SPEC-25): the conversation, files, tool "
       "outputs and working memory become variables held by ref, each with "
       "a short summary, and the root prompt lists them with the helpers "
       "(peek, search, summarize, find_relevant, len) instead of their "
       "content. Returns that prompt (text) and the variables with refs "
       "and size warnings (structuredContent). Explore a variable with "
       "peek/search/get on its ref.",
       ObjectSchema(
           {{"query", StringProp("The task the root prompt states.", 1, 16384)},
            {"auto_chunk", BoolProp("Split variables over 1 MiB into "
                                    "token-bounded chunks (refs to byte "
                                    "ranges).")},
            {"with_members", BoolProp("Also list each collection's members "
                                      "with their refs.")}},
           {"query"}),
       false, false, true, RunExternalize});
}

}  // namespace ctxkit::mcp
