// A compaction's summary (relief.cc): structural (one line per turn), or
// written by a chat-completions endpoint when the render was given one,
// with the structural summary standing in whenever the endpoint fails.

#ifndef CTXKIT_SESSION_COMPACTION_SUMMARY_H_
#define CTXKIT_SESSION_COMPACTION_SUMMARY_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ctxkit/summary.h"
#include "session/session_state.h"

namespace ctxkit::session {

// Summarizer identity of the structural summary.
inline constexpr char kStructuralSummarizer[] = "structural-v1";
// Largest transcript (tokens) sent to the endpoint: a larger one is sent as
// its structural summary of this size instead.
inline constexpr uint64_t kLlmInputTokens = 12000;

// One line per turn of chat messages [first, end) (what the user asked, the
// tools called, the last answer).
std::vector<std::string> TurnLines(const std::vector<ChatMessage>& chat,
                                   size_t first, size_t end);

// The structural summary of chat messages [first, end): a header and the
// turn lines, the middle elided to fit `max_tokens`.
std::string SummarizeTurns(const std::vector<ChatMessage>& chat, size_t first,
                           size_t end, uint64_t max_tokens);

struct CompactionSummary {
  std::string text;        // At most the cap's tokens.
  std::string summarizer;  // kStructuralSummarizer or "llm-v1:<model>".
  // Why the structural summary stands in for the endpoint's; empty
  // otherwise.
  std::string notes;
};

// What the endpoint is asked to summarize: `earlier` (the summaries of the
// compactions a merge replaces, oldest first) and then chat messages
// [from, end), one entry per message, each text cut to a few hundred
// tokens; tool outputs appear as their reference line and one-line
// summary (the output stays behind its ref). Longer than kLlmInputTokens:
// the messages go as structural turn lines, after the earlier summaries
// when those take at most half of it (else turn lines of [first, end)).
std::string CompactionTranscript(const std::vector<ChatMessage>& chat,
                                 size_t first, size_t from, size_t end,
                                 const std::vector<std::string>& earlier);

// The summary of `transcript` by `llm` in at most `max_tokens`, or the
// endpoint's error.
Result<std::string> LlmCompactionSummary(const LlmEndpoint& llm,
                                         const std::string& transcript,
                                         uint64_t max_tokens);

}  // namespace ctxkit::session

#endif  // CTXKIT_SESSION_COMPACTION_SUMMARY_H_
