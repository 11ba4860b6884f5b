// Compaction summaries (compaction_summary.h).

#include "session/compaction_summary.h"

#include <string>
#include <vector>

#include "ctxkit/tokenizer.h"
#include "session/object_info.h"
#include "session/render_layout.h"
#include "summary/llm_summarizer.h"
#include "text/summarize_budget.h"

namespace ctxkit::session {
namespace {

const Tokenizer& Tok() {
  static const Tokenizer* tok = *Tokenizer::Get(kDefaultEncoding);
  return *tok;
}

// Tokens of one message's text in a transcript.
constexpr size_t kMessageTokens = 400;
// Tokens of one tool call's arguments in a transcript.
constexpr size_t kArgumentTokens = 100;

std::string JoinTurns(const std::string& head,
                      const std::vector<std::string>& lines, size_t keep) {
  std::string out = head;
  if (keep >= lines.size()) {
    for (const std::string& l : lines) out += "\n" + l;
    return out;
  }
  const size_t front = (keep + 1) / 2;
  const size_t back = keep - front;
  for (size_t i = 0; i < front; ++i) out += "\n" + lines[i];
  out += "\n- ... " + std::to_string(lines.size() - keep) + " more turns ...";
  for (size_t i = lines.size() - back; i < lines.size(); ++i) {
    out += "\n" + lines[i];
  }
  return out;
}

}  // namespace

std::vector<std::string> TurnLines(const std::vector<ChatMessage>& chat,
                                   size_t first, size_t end) {
  std::vector<std::string> lines;
  size_t i = first;
  while (i < end) {
    std::string asked, answered;
    std::vector<std::string> tools;
    size_t j = i;
    for (; j < end; ++j) {
      const ChatMessage& m = chat[j];
      if (j > i && m.role == "user" && chat[j - 1].role != "user") break;
      if (m.role == "user" && asked.empty()) asked = OneLineSummary(m.text);
      if (m.role == "assistant" && !m.text.empty()) {
        answered = OneLineSummary(m.text);
      }
      for (const ToolCallRef& c : m.tool_calls) tools.push_back(c.name);
    }
    std::string line = "- ";
    line += asked.empty() ? "(no user message)" : "user: " + asked;
    if (!tools.empty()) {
      line += " | tools:";
      for (const std::string& t : tools) line += " " + t;
    }
    if (!answered.empty()) line += " | assistant: " + answered;
    lines.push_back(std::move(line));
    i = j;
  }
  return lines;
}

std::string SummarizeTurns(const std::vector<ChatMessage>& chat, size_t first,
                           size_t end, uint64_t max_tokens) {
  const std::vector<std::string> lines = TurnLines(chat, first, end);
  const std::string head = "Earlier conversation (" +
                           std::to_string(lines.size()) +
                           " turns, summarized; the messages are kept):";
  auto fits = [&](size_t k) {
    return CountTokens(JoinTurns(head, lines, k)) <= max_tokens;
  };
  if (fits(lines.size())) return JoinTurns(head, lines, lines.size());
  size_t lo = 0, hi = lines.size();  // The most lines that fit.
  while (lo < hi) {
    const size_t mid = (lo + hi + 1) / 2;
    if (fits(mid)) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  // A head too long for the cap (a tiny cap): cut it.
  return text::FitToTokens(Tok(), JoinTurns(head, lines, lo), max_tokens);
}

std::string CompactionTranscript(const std::vector<ChatMessage>& chat,
                                 size_t first, size_t from, size_t end,
                                 const std::vector<std::string>& earlier) {
  const Tokenizer& tok = Tok();
  std::string head;
  for (const std::string& e : earlier) {
    head += "[earlier summary]\n" + e + "\n\n";
  }
  std::string messages = "[messages " + std::to_string(from) + "-" +
                         std::to_string(end == 0 ? 0 : end - 1) + "]\n";
  for (size_t i = from; i < end; ++i) {
    const ChatMessage& m = chat[i];
    if (m.role == "tool") {
      messages += "tool result: " + RefLine(m) + "\n";
      continue;
    }
    if (m.role == kItemRole) continue;  // Reasoning and the like.
    messages +=
        m.role + ": " + text::FitToTokens(tok, m.text, kMessageTokens) + "\n";
    for (const ToolCallRef& c : m.tool_calls) {
      messages += "  calls " + c.name + " " +
                  text::FitToTokens(tok, c.arguments, kArgumentTokens) + "\n";
    }
  }
  const uint64_t head_tokens = tok.Count(head);
  if (head_tokens + tok.Count(messages) <= kLlmInputTokens) {
    return head + messages;
  }
  // Too long: the earlier summaries stay when they leave room, and the
  // messages go as turn lines.
  if (head_tokens * 2 > kLlmInputTokens) head.clear();
  const uint64_t room = kLlmInputTokens - (head.empty() ? 0 : head_tokens);
  const size_t lines_from = head.empty() ? first : from;
  return head + "[too long to send whole: one line per turn]\n" +
         SummarizeTurns(chat, lines_from, end, room - 16);
}

Result<std::string> LlmCompactionSummary(const LlmEndpoint& llm,
                                         const std::string& transcript,
                                         uint64_t max_tokens) {
  const std::string system =
      "You compact the oldest part of an AI agent's conversation. The agent "
      "will see your summary instead of these messages (each message stays "
      "retrievable by reference), so keep what it needs to continue: the "
      "user's goals and constraints, decisions made and why, facts and "
      "numbers learned, files and objects touched (keep refs such as ck:... "
      "exactly), tool results that mattered, errors, and what is still open. "
      "Drop pleasantries and repetition. Reply with the summary only, no "
      "preamble. Hard limit: " +
      std::to_string(max_tokens) + " tokens.";
  return summary::LlmComplete(llm, system, transcript, max_tokens, Tok());
}

}  // namespace ctxkit::session
