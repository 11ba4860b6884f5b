// `ctxkit demo`, step 8: the context manager decides what the model sees.

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "cli/output.h"
#include "ctxkit/session.h"
#include "demo/demo_steps.h"

namespace ctxkit::cli {
namespace {

constexpr int kToolCalls = 7;
constexpr uint32_t kKeepActive = 3;
constexpr uint64_t kBudget = 4000;

// About `bytes` of whole lines of `corpus` starting near `offset`.
std::string Excerpt(std::string_view corpus, size_t offset, size_t bytes) {
  if (corpus.empty()) return "(empty)";
  offset %= corpus.size();
  size_t begin = corpus.rfind('\n', offset);
  begin = begin == std::string_view::npos ? 0 : begin + 1;
  size_t end = corpus.find('\n', std::min(corpus.size(), begin + bytes));
  if (end == std::string_view::npos) end = corpus.size();
  return std::string(corpus.substr(begin, end - begin));
}

// An OpenAI Chat Completions log: a system prompt, a question, then one
// grep or read call per turn with its (real) output, then an answer.
nlohmann::json BuildLog(std::string_view corpus) {
  using nlohmann::json;
  json messages = json::array();
  messages.push_back({{"role", "system"},
                      {"content",
                       "You are a careful research agent. Cite what you "
                       "read by ref."}});
  messages.push_back({{"role", "user"},
                      {"content",
                       "What do the licenses in this corpus say about "
                       "warranty?"}});
  for (int i = 0; i < kToolCalls; ++i) {
    std::string id = "call_demo_" + std::to_string(i);
    bool grep = i % 2 == 0;
    json args = grep ? json{{"pattern", "warranty"}, {"page", i}}
                     : json{{"path", "corpus"}, {"offset", i * 40000}};
    messages.push_back({{"role", "assistant"},
                        {"content", nullptr},
                        {"tool_calls",
                         {{{"id", id},
                           {"type", "function"},
                           {"function",
                            {{"name", grep ? "grep" : "read_file"},
                             {"arguments", args.dump()}}}}}}});
    messages.push_back({{"role", "tool"},
                        {"tool_call_id", id},
                        {"content", Excerpt(corpus, 40000u * (i + 1), 3000)}});
  }
  messages.push_back({{"role", "assistant"},
                      {"content",
                       "They disclaim all warranty, to the extent permitted "
                       "by law."}});
  return json{{"messages", messages}};
}

}  // namespace

Status DemoContextManager(Store& store, const std::string& session_id,
                          std::string_view corpus, const DemoSay& say) {
  SessionPolicy policy;
  policy.keep_tool_outputs = kKeepActive;
  policy.min_collapse_tokens = 0;  // Collapse at once, to show it.
  Result<std::unique_ptr<Session>> session =
      Session::Create(store, session_id, policy);
  if (!session.ok()) return session.status().WithContext("session new");
  const std::string log = BuildLog(corpus).dump();

  Result<IngestReport> ingest = (*session)->Ingest(log, LogFormat::kOpenAI);
  if (!ingest.ok()) return ingest.status().WithContext("ingest");
  say("8. The context manager: session '" + session_id + "' ingests a " +
      GroupedNumber(log.size()) + "-byte OpenAI log with " +
      std::to_string(kToolCalls) + " tool calls:");
  say("   " + std::to_string(ingest->messages_added) + " messages, " +
      std::to_string(ingest->toolcalls_recorded) +
      " toolcall objects; in the chat each output is a one-line reference");
  if (ingest->toolcalls_recorded != kToolCalls) {
    return Status::Internal("expected one toolcall object per tool result");
  }

  RenderOptions options;
  options.budget_tokens = kBudget;
  options.format = LogFormat::kAnthropic;
  Result<RenderResult> first = (*session)->Render(options);
  if (!first.ok()) return first.status().WithContext("render");
  if (first->tokens > kBudget) return Status::Internal("render over budget");
  Result<SessionSnapshot> snap = (*session)->Snapshot();
  if (!snap.ok()) return snap.status();
  int active = 0, collapsed = 0;
  std::string collapsed_ref;
  for (const PoolEntry& e : snap->entries) {
    if (e.kind != "toolcall") continue;
    if (e.active) ++active;
    if (e.collapsed) {
      ++collapsed;
      if (collapsed_ref.empty()) collapsed_ref = e.ref;
    }
  }
  if (collapsed == 0 || active < static_cast<int>(kKeepActive) ||
      static_cast<size_t>(collapsed) != first->collapsed.size()) {
    return Status::Internal("policy: expected older outputs to collapse, got " +
                            std::to_string(active) + " active");
  }
  if (first->request_json.find(collapsed_ref) == std::string::npos) {
    return Status::Internal("render does not say how to get back " +
                            collapsed_ref);
  }
  say("   render --budget " + GroupedNumber(kBudget) +
      " --format anthropic: all outputs would not fit the budget, so "
      "the oldest " +
      std::to_string(collapsed) + " collapsed to placeholders with their refs");
  say("   (e.g. " + collapsed_ref + "); the newest " + std::to_string(active) +
      " stay: " + GroupedNumber(first->tokens) + " tokens (never over)");
  Result<RenderResult> again = (*session)->Render(options);
  if (!again.ok()) return again.status();
  if (again->request_json != first->request_json) {
    return Status::Internal("two renders of one state differ");
  }
  Result<RenderResult> replay = (*session)->Replay(first->record);
  if (!replay.ok()) return replay.status().WithContext("replay");
  if (replay->request_json != first->request_json) {
    return Status::Internal("the replay of render 1 differs from it");
  }
  say("   the same state renders byte-identical (" +
      GroupedNumber(first->request_json.size()) +
      " bytes), so the provider's prompt cache keeps hitting; every render");
  say("   is recorded by refs, and `render " + session_id + " --at " +
      std::to_string(first->record) + "` replays it byte for byte");

  Status locked = (*session)->Deactivate("chat");
  if (locked.ok()) return Status::Internal("the chat was deactivated");
  say("   deactivate chat: " + locked.ToString());

  Result<IngestReport> refeed = (*session)->Ingest(log, LogFormat::kOpenAI);
  if (!refeed.ok()) return refeed.status().WithContext("ingest again");
  if (refeed->messages_added != 0 || refeed->reset) {
    return Status::Internal("re-ingesting the same log added messages");
  }
  say("   the same log ingested again adds " +
      std::to_string(refeed->messages_added) + " messages");
  return Status::Ok();
}

}  // namespace ctxkit::cli
