#include "llm/chat_client.h"

#include <cstdlib>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>

#include "core/status_macros.h"
#include "llm/http_post.h"
#include "text/json_write.h"

namespace ctxkit::llm {

std::string ChatCompletionsUrl(const std::string& base_url) {
  return EndpointUrl(base_url, "chat/completions");
}

std::string ChatRequestBody(const ChatConfig& config,
                            const ChatRequest& request) {
  nlohmann::json messages = nlohmann::json::array();
  for (const ChatMessage& m : request.messages) {
    messages.push_back({{"role", m.role}, {"content", m.content}});
  }
  nlohmann::json body = {{"model", config.model},
                         {"messages", std::move(messages)},
                         {"temperature", request.temperature},
                         {"stream", false}};
  if (request.max_tokens > 0) body["max_tokens"] = request.max_tokens;
  // Invalid UTF-8 replaced: inputs may hold binary, and one bad byte must
  // not fail a whole request.
  return text::DumpJson(body);
}

Result<ChatResponse> ParseChatResponse(const std::string& body) {
  CTXKIT_ASSIGN_OR_RETURN(nlohmann::json j,
                          ParseReplyObject(body, "chat-completions"));
  auto choices = j.find("choices");
  if (choices == j.end() || !choices->is_array() || choices->empty() ||
      !(*choices)[0].is_object()) {
    return Status::Corruption("chat-completions reply has no choices");
  }
  const nlohmann::json& choice = (*choices)[0];
  auto message = choice.find("message");
  if (message == choice.end() || !message->is_object()) {
    return Status::Corruption("chat-completions reply has no message");
  }
  auto content = message->find("content");
  if (content == message->end() || !content->is_string()) {
    return Status::Corruption(
        "chat-completions reply has no string message.content");
  }
  ChatResponse r;
  r.content = content->get<std::string>();
  if (auto m = j.find("model"); m != j.end() && m->is_string()) {
    r.model = m->get<std::string>();
  }
  if (auto f = choice.find("finish_reason");
      f != choice.end() && f->is_string()) {
    r.finish_reason = f->get<std::string>();
  }
  return r;
}

Result<ChatResponse> ChatComplete(const ChatConfig& config,
                                  const ChatRequest& request) {
  if (config.base_url.empty() || config.model.empty()) {
    return Status::FailedPrecondition(
        "no LLM endpoint configured (CTXKIT_LLM_BASE_URL, CTXKIT_LLM_MODEL)");
  }
  Result<std::string> reply = PostJson(
      ChatCompletionsUrl(config.base_url), ChatRequestBody(config, request),
      PostOptionsOf(config), "chat-completions");
  if (!reply.ok()) return reply.status();
  Result<ChatResponse> parsed = ParseChatResponse(*reply);
  if (!parsed.ok()) return parsed.status();
  return parsed;
}

}  // namespace ctxkit::llm
