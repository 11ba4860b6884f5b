// Harness message logs (OpenAI Chat Completions and Responses, Anthropic
// Messages) parsed
// into the neutral chat model, with a canonical form of each log message
// for the ingestion cursor's prefix hash.

#ifndef CTXKIT_SESSION_LOG_PARSE_H_
#define CTXKIT_SESSION_LOG_PARSE_H_

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ctxkit/session.h"
#include "ctxkit/status.h"
#include "session/session_state.h"

namespace ctxkit::session {

struct ParsedMessage {
  ChatMessage message;
  // role "tool": the arguments of the matching call (valid JSON text) and
  // the tool's output.
  std::string arguments;
  std::string output;
};

// One message of the log: its canonical JSON and what it became.
struct ParsedItem {
  std::string canonical;
  std::vector<ParsedMessage> messages;
};

struct ParsedLog {
  std::string system;  // System/developer text, in order, "\n\n"-joined.
  std::vector<ParsedItem> items;
};

// Tool calls by id: (tool name, arguments as JSON text).
using KnownCalls = std::map<std::string, std::pair<std::string, std::string>>;

// Accepts {"messages": [...]} (Anthropic: plus "system"; Responses:
// {"input": [...]}, plus "instructions") or a bare array of messages.
// InvalidArgument naming the JSON path of the first problem. Tool results may
// answer the calls in `earlier` (calls ingested before, when the log continues
// a chat) as well as calls of the log itself.
Result<ParsedLog> ParseLog(std::string_view json, LogFormat format,
                           const KnownCalls& earlier = {});

}  // namespace ctxkit::session

#endif  // CTXKIT_SESSION_LOG_PARSE_H_
