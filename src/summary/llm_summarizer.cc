#include "summary/llm_summarizer.h"

#include <algorithm>
#include <string>
#include <string_view>

#include "llm/chat_client.h"
#include "summary/stats.h"
#include "text/summarize_budget.h"
#include "text/summarize_structural.h"

namespace ctxkit::summary {

std::string LlmIdentity(const LlmEndpoint& endpoint) {
  return "llm-v1:" + endpoint.model;
}

Result<std::string> LlmSummarize(const LlmEndpoint& endpoint,
                                 const PinnedValue& target, const Material& m,
                                 size_t max_tokens, size_t input_tokens,
                                 const Tokenizer& tok, bool* partial_input) {
  const text::StructuralInput& in = m.input;
  std::string body;
  std::string about;
  if (!in.sampled && in.counts.tokens <= input_tokens &&
      text::LooksLikeText(in.head)) {
    body = m.head;
    about = "The complete value follows.";
    *partial_input = false;
  } else {
    // Too large (or not text): send what the structural summarizer sees.
    body = text::SummarizeStructural(tok, in, input_tokens).text;
    about =
        "The value is too large to send whole; a structural digest of it "
        "(counts, outline, head, key lines, tail) follows.";
    *partial_input = true;
  }

  const std::string system =
      "You summarize values stored in a context store for an AI agent, "
      "which reads your summary instead of the value and decides from it "
      "whether and where to look closer. Be factual and dense: what the "
      "value is, its structure, the key facts, names and numbers. Reply "
      "with the summary only, no preamble. Hard limit: " +
      std::to_string(max_tokens) + " tokens.";
  const std::string user =
      "Value type: " + std::string(ValueTypeName(target.type)) +
      ". Size: " + std::to_string(target.size) + " bytes, " +
      (in.counts.tokens_exact ? "" : "about ") +
      std::to_string(in.counts.tokens) + " tokens. " + about +
      "\n<<<BEGIN VALUE>>>\n" + body + "\n<<<END VALUE>>>";
  return LlmComplete(endpoint, system, user, max_tokens, tok);
}

Result<std::string> LlmComplete(const LlmEndpoint& endpoint,
                                const std::string& system,
                                const std::string& user, size_t max_tokens,
                                const Tokenizer& tok) {
  llm::ChatConfig config;
  config.base_url = endpoint.base_url;
  config.model = endpoint.model;
  config.api_key = endpoint.api_key;
  config.timeout_ms = endpoint.timeout_ms;
  config.connect_timeout_ms = endpoint.connect_timeout_ms;

  llm::ChatRequest request;
  request.max_tokens = static_cast<int>(std::min<size_t>(max_tokens, 1 << 20));
  request.messages.push_back({"system", system});
  request.messages.push_back({"user", user});

  GlobalCounters().llm_requests.fetch_add(1, std::memory_order_relaxed);
  Result<llm::ChatResponse> reply = llm::ChatComplete(config, request);
  if (!reply.ok()) return reply.status();
  // Trim the whitespace models like to add, then enforce the budget.
  const std::string& content = reply->content;
  size_t b = content.find_first_not_of(" \t\r\n");
  size_t e = content.find_last_not_of(" \t\r\n");
  std::string text =
      b == std::string::npos
          ? ""
          : text::FitToTokens(tok,
                              std::string_view(content).substr(b, e - b + 1),
                              max_tokens);
  if (text.empty()) {
    return Status::Corruption("chat-completions reply was empty");
  }
  return text;
}

}  // namespace ctxkit::summary
