// A minimal OpenAI-compatible chat-completions client over libcurl.
//
// One blocking POST <base>/chat/completions per call, with a connect
// timeout and a whole-request timeout, a bounded response size, and the
// reply parsed with nlohmann/json. Every failure is a Status, never an
// exception: Unavailable for connection failures and timeouts, IoError for
// an HTTP error status, Corruption for a reply that is not a
// chat-completions object.
//
// Thread safety: ChatComplete may be called from any number of threads at
// once (one curl easy handle per call; global init happens once).

#ifndef CTXKIT_LLM_CHAT_CLIENT_H_
#define CTXKIT_LLM_CHAT_CLIENT_H_

#include <cstddef>
#include <string>
#include <vector>

#include "ctxkit/status.h"

namespace ctxkit::llm {

struct ChatConfig {
  std::string base_url;  // e.g. "http://127.0.0.1:8000/v1".
  std::string model;
  std::string api_key;  // Optional bearer token.
  int timeout_ms = 60000;
  int connect_timeout_ms = 5000;
  size_t max_response_bytes = 4u << 20;
};

struct ChatMessage {
  std::string role;  // "system", "user", "assistant".
  std::string content;
};

struct ChatRequest {
  std::vector<ChatMessage> messages;
  int max_tokens = 0;  // 0: not sent.
  double temperature = 0.0;
};

struct ChatResponse {
  std::string content;  // choices[0].message.content
  std::string model;
  std::string finish_reason;
};

// <base_url>/chat/completions, unless base_url already ends with it.
std::string ChatCompletionsUrl(const std::string& base_url);

// The JSON body sent for `request`.
std::string ChatRequestBody(const ChatConfig& config,
                            const ChatRequest& request);

// Parses a chat-completions reply body. Corruption when it is not one.
Result<ChatResponse> ParseChatResponse(const std::string& body);

Result<ChatResponse> ChatComplete(const ChatConfig& config,
                                  const ChatRequest& request);

}  // namespace ctxkit::llm

#endif  // CTXKIT_LLM_CHAT_CLIENT_H_
