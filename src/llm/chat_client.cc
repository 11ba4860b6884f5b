#include "llm/chat_client.h"

#include <curl/curl.h>

#include <cstdlib>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>

namespace ctxkit::llm {

namespace {

constexpr nlohmann::json::error_handler_t kReplace =
    nlohmann::json::error_handler_t::replace;

struct Sink {
  std::string body;
  size_t limit = 0;
  bool overflow = false;
};

size_t OnWrite(char* data, size_t size, size_t n, void* user) {
  Sink* sink = static_cast<Sink*>(user);
  size_t bytes = size * n;
  if (sink->body.size() + bytes > sink->limit) {
    sink->overflow = true;
    return 0;  // Aborts the transfer with CURLE_WRITE_ERROR.
  }
  sink->body.append(data, bytes);
  return bytes;
}

void GlobalInit() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

struct CurlDeleter {
  void operator()(CURL* c) const { curl_easy_cleanup(c); }
};
struct SlistDeleter {
  void operator()(curl_slist* l) const { curl_slist_free_all(l); }
};

std::string Snippet(const std::string& body) {
  std::string s = body.substr(0, 200);
  for (char& c : s) {
    if (static_cast<unsigned char>(c) < 0x20) c = ' ';
  }
  return s;
}

}  // namespace

std::string ChatCompletionsUrl(const std::string& base_url) {
  std::string url = base_url;
  while (!url.empty() && url.back() == '/') url.pop_back();
  if (url.ends_with("/chat/completions")) return url;
  return url + "/chat/completions";
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
  return body.dump(-1, ' ', false, kReplace);
}

Result<ChatResponse> ParseChatResponse(const std::string& body) {
  nlohmann::json j = nlohmann::json::parse(body, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    return Status::Corruption("chat-completions reply is not a JSON object: " +
                              Snippet(body));
  }
  if (j.contains("error")) {
    const nlohmann::json& e = j["error"];
    std::string msg =
        e.is_object() && e.contains("message") && e["message"].is_string()
            ? e["message"].get<std::string>()
            : e.dump(-1, ' ', false, kReplace);
    return Status::Unavailable("chat-completions error: " + Snippet(msg));
  }
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
  GlobalInit();
  std::unique_ptr<CURL, CurlDeleter> curl(curl_easy_init());
  if (!curl) return Status::ResourceExhausted("curl_easy_init failed");
  CURL* c = curl.get();

  const std::string url = ChatCompletionsUrl(config.base_url);
  const std::string body = ChatRequestBody(config, request);
  std::unique_ptr<curl_slist, SlistDeleter> headers;
  bool header_failed = false;
  auto add_header = [&](const std::string& h) {
    curl_slist* grown = curl_slist_append(headers.get(), h.c_str());
    if (grown == nullptr) {
      header_failed = true;
      return;
    }
    headers.release();
    headers.reset(grown);
  };
  add_header("Content-Type: application/json");
  add_header("Accept: application/json");
  if (!config.api_key.empty()) {
    add_header("Authorization: Bearer " + config.api_key);
  }
  // No "Expect: 100-continue" round trip for large prompts.
  add_header("Expect:");
  if (!headers || header_failed)
    return Status::ResourceExhausted("curl_slist_append failed");

  Sink sink;
  sink.limit = config.max_response_bytes;
  char error[CURL_ERROR_SIZE] = {0};
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(c, CURLOPT_POST, 1L);
  curl_easy_setopt(c, CURLOPT_POSTFIELDS, body.data());
  curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE,
                   static_cast<curl_off_t>(body.size()));
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, static_cast<long>(config.timeout_ms));
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS,
                   static_cast<long>(config.connect_timeout_ms));
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, OnWrite);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &sink);
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, error);
  curl_easy_setopt(c, CURLOPT_USERAGENT, "ctxkit");

  CURLcode rc = curl_easy_perform(c);
  if (rc != CURLE_OK) {
    if (sink.overflow) {
      return Status::ResourceExhausted(
          "chat-completions reply larger than " +
          std::to_string(config.max_response_bytes) + " bytes");
    }
    std::string what = error[0] ? error : curl_easy_strerror(rc);
    return Status::Unavailable("chat-completions request to " + url +
                               " failed: " + what);
  }
  long status = 0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
  if (status < 200 || status >= 300) {
    return Status::IoError("chat-completions request to " + url +
                           " returned HTTP " + std::to_string(status) + ": " +
                           Snippet(sink.body));
  }
  Result<ChatResponse> parsed = ParseChatResponse(sink.body);
  if (!parsed.ok()) return parsed.status();
  parsed->http_status = status;
  return parsed;
}

}  // namespace ctxkit::llm
