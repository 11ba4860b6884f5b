// `ctxkit demo`: context as variables (SPEC-25) on the context-manager
// step's session — the root prompt holds summaries, the helpers reach the
// content by name.

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>

#include "cli/output.h"
#include "ctxkit/externalize.h"
#include "demo/demo_steps.h"
#include "face/environment.h"

namespace ctxkit::cli {

Status DemoExternalize(Store& store, const std::string& session_id,
                       std::string_view corpus, const DemoSay& say) {
  Result<View> view = store.OpenView("", session_id);
  if (!view.ok()) return view.status();
  Result<ExternalizedContext> ctx = ExternalizedContext::FromSession(
      *view, "", session_id,
      "What do the licenses in this corpus say about warranty?");
  if (!ctx.ok()) return ctx.status().WithContext("externalize");
  Result<RootPrompt> prompt = BuildRootPrompt(*ctx);
  if (!prompt.ok()) return prompt.status();
  Result<uint64_t> inlined = InlinedPromptTokens(*view, *ctx);
  if (!inlined.ok()) return inlined.status();
  if (prompt->tokens >= *inlined) {
    return Status::Internal("the root prompt is not smaller than inlining");
  }
  // The claim "no content": no tool output's first line is in the prompt.
  Result<const ContextVariable*> outputs = ctx->Find("tool_outputs");
  if (!outputs.ok()) return outputs.status();
  for (const VariableMember& m : (*outputs)->members) {
    Result<std::string> head = view->ReadRange(m.ref, 0, 64);
    if (!head.ok()) return head.status();
    std::string line = head->substr(0, head->find('\n'));
    if (line.size() >= 24 && prompt->text.find(line) != std::string::npos) {
      return Status::Internal("the root prompt quotes " + m.name);
    }
  }
  const uint64_t pct = 100 - (prompt->tokens * 100 + *inlined - 1) /
                                 std::max<uint64_t>(*inlined, 1);
  say("11. Context as variables (SPEC-25): session '" + session_id + "' as " +
      std::to_string(ctx->variables().size()) +
      " variables (conversation, files, tool_outputs, working_memory):");
  say("    root prompt " + GroupedNumber(prompt->tokens) +
      " tokens (query, summaries, helpers) vs " + GroupedNumber(*inlined) +
      " with the context inlined: " + std::to_string(pct) + "% less");

  Result<VariableSearch> hits =
      ctx->Search(*view, "tool_outputs", "warrant(y|ies)",
                  {.regex = true, .max_results = 1000});
  if (!hits.ok()) return hits.status();
  if (hits->matches.empty()) return Status::Internal("search found nothing");
  Result<VariablePeek> peek =
      ctx->Peek(*view, "conversation", {.start = 0, .end = 2});
  if (!peek.ok()) return peek.status();
  if (peek->items.size() != 2) return Status::Internal("peek: expected 2");
  Result<VariableLen> len = ctx->Len("tool_outputs");
  if (!len.ok()) return len.status();
  say("    search(tool_outputs, r'warrant(y|ies)', regex=True): " +
      std::to_string(hits->matches.size()) +
      (hits->matches.size() == 1 ? " line, in " : " lines, first in ") +
      hits->matches[0].key + " line " + std::to_string(hits->matches[0].line) +
      "; peek(conversation, 0, 2): " + std::to_string(peek->items.size()) +
      " messages");
  Result<DeferredVariableSummary> sum =
      ctx->Summarize(*view, "tool_outputs", 200, env::LlmEndpointFromEnv());
  if (!sum.ok()) return sum.status();
  Result<Summary> resolved = sum->Get();  // The orchestrator resolves it.
  if (!resolved.ok()) return resolved.status();
  if (resolved->tokens > 200) return Status::Internal("summary over budget");
  say("    len(tool_outputs) = " + std::to_string(len->items.value_or(0)) +
      " (" + GroupedNumber(len->bytes) +
      " bytes, from metadata); summarize(tool_outputs) deferred, resolved "
      "in " +
      std::to_string(resolved->tokens) + " tokens");
  (void)corpus;  // The session already holds excerpts of it.
  return Status::Ok();
}

}  // namespace ctxkit::cli
