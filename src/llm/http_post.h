// JSON-over-HTTP POST with libcurl (loaded on first use: curl_api.h),
// shared by the chat-completions and embeddings clients. Only http and
// https; no signals; bounded replies.

#ifndef CTXKIT_LLM_HTTP_POST_H_
#define CTXKIT_LLM_HTTP_POST_H_

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "ctxkit/status.h"

namespace ctxkit::llm {

struct PostOptions {
  std::string api_key;  // Sent as "Authorization: Bearer <key>" when set.
  int timeout_ms = 60000;
  int connect_timeout_ms = 5000;
  size_t max_response_bytes = 4u << 20;
};

// POSTs `body` (JSON) to `url` and returns the 2xx reply body. `what` names
// the request in error messages ("chat-completions", "embeddings").
// Unavailable when the transfer fails (refused, timeout, DNS),
// ResourceExhausted for a reply over max_response_bytes, IoError for a
// non-2xx status (with the start of the reply).
Result<std::string> PostJson(const std::string& url, const std::string& body,
                             const PostOptions& options, std::string_view what);

// `base_url` without trailing slashes, plus "/<endpoint>" unless it already
// ends with it.
std::string EndpointUrl(const std::string& base_url, std::string_view endpoint);

// The first 200 bytes of a reply with control characters blanked, for
// error messages.
std::string Snippet(const std::string& body);

// The text of a reply's "error" member: its "message" string, else the
// member itself as JSON.
std::string ErrorText(const nlohmann::json& error);

// A 2xx reply of the `what` endpoint ("chat-completions", "embeddings") as
// the JSON object it must be, parsed as outside JSON (text/json_parse.h:
// depth-bounded, no NUL bytes). Corruption "<what> reply is not a JSON
// object: <snippet>" when it is not one; Unavailable "<what> error:
// <message>" when it carries an "error" member.
Result<nlohmann::json> ParseReplyObject(const std::string& body,
                                        std::string_view what);

// The transfer options of a client's config (ChatConfig, EmbedConfig: the
// api_key, timeout_ms, connect_timeout_ms and max_response_bytes fields).
template <typename Config>
PostOptions PostOptionsOf(const Config& config) {
  PostOptions post;
  post.api_key = config.api_key;
  post.timeout_ms = config.timeout_ms;
  post.connect_timeout_ms = config.connect_timeout_ms;
  post.max_response_bytes = config.max_response_bytes;
  return post;
}

}  // namespace ctxkit::llm

#endif  // CTXKIT_LLM_HTTP_POST_H_
