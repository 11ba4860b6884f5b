// The LLM summarizer: a prompt built from the value (or, for a value too
// large to send, from its structural summary), one chat-completions call,
// and the answer trimmed to the token budget.

#ifndef CTXKIT_SUMMARY_LLM_SUMMARIZER_H_
#define CTXKIT_SUMMARY_LLM_SUMMARIZER_H_

#include <cstddef>
#include <string>

#include "ctxkit/status.h"
#include "ctxkit/summary.h"
#include "ctxkit/tokenizer.h"
#include "summary/value_source.h"

namespace ctxkit::summary {

// "llm-v1:<model>".
std::string LlmIdentity(const LlmEndpoint& endpoint);

// One chat-completions request of a `system` and a `user` message (counted
// in SummarizerStats::llm_requests): the answer without the whitespace
// around it, cut to max_tokens (tok). The endpoint's error, or Corruption
// for an empty answer.
Result<std::string> LlmComplete(const LlmEndpoint& endpoint,
                                const std::string& system,
                                const std::string& user, size_t max_tokens,
                                const Tokenizer& tok);

// The summary text (tok.Count <= max_tokens), or the error that makes the
// caller fall back. Sets *partial_input when only a digest was sent.
Result<std::string> LlmSummarize(const LlmEndpoint& endpoint,
                                 const PinnedValue& target, const Material& m,
                                 size_t max_tokens, size_t input_tokens,
                                 const Tokenizer& tok, bool* partial_input);

}  // namespace ctxkit::summary

#endif  // CTXKIT_SUMMARY_LLM_SUMMARIZER_H_
