#include "llm/http_post.h"

#include <memory>

#include "core/status_macros.h"
#include "llm/curl_api.h"
#include "text/json_parse.h"
#include "text/json_write.h"

namespace ctxkit::llm {
namespace {

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

struct CurlDeleter {
  const CurlApi* api;
  void operator()(CURL* c) const { api->easy_cleanup(c); }
};
struct SlistDeleter {
  const CurlApi* api;
  void operator()(curl_slist* l) const { api->slist_free_all(l); }
};

}  // namespace

std::string Snippet(const std::string& body) {
  std::string s = body.substr(0, 200);
  for (char& c : s) {
    if (static_cast<unsigned char>(c) < 0x20) c = ' ';
  }
  return s;
}

std::string EndpointUrl(const std::string& base_url,
                        std::string_view endpoint) {
  std::string url = base_url;
  while (!url.empty() && url.back() == '/') url.pop_back();
  std::string suffix = "/" + std::string(endpoint);
  if (url.ends_with(suffix)) return url;
  return url + suffix;
}

Result<std::string> PostJson(const std::string& url, const std::string& body,
                             const PostOptions& options,
                             std::string_view what) {
  CTXKIT_ASSIGN_OR_RETURN(const CurlApi* api, Curl());
  std::unique_ptr<CURL, CurlDeleter> curl(api->easy_init(), CurlDeleter{api});
  if (!curl) return Status::ResourceExhausted("curl_easy_init failed");
  CURL* c = curl.get();

  std::unique_ptr<curl_slist, SlistDeleter> headers(nullptr, SlistDeleter{api});
  bool header_failed = false;
  auto add_header = [&](const std::string& h) {
    curl_slist* grown = api->slist_append(headers.get(), h.c_str());
    if (grown == nullptr) {
      header_failed = true;
      return;
    }
    headers.release();
    headers.reset(grown);
  };
  add_header("Content-Type: application/json");
  add_header("Accept: application/json");
  if (!options.api_key.empty()) {
    add_header("Authorization: Bearer " + options.api_key);
  }
  // No "Expect: 100-continue" round trip for large bodies.
  add_header("Expect:");
  if (!headers || header_failed) {
    return Status::ResourceExhausted("curl_slist_append failed");
  }

  Sink sink;
  sink.limit = options.max_response_bytes;
  char error[CURL_ERROR_SIZE] = {0};
  api->easy_setopt(c, CURLOPT_URL, url.c_str());
  api->easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  api->easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  api->easy_setopt(c, CURLOPT_HTTPHEADER, headers.get());
  api->easy_setopt(c, CURLOPT_POST, 1L);
  api->easy_setopt(c, CURLOPT_POSTFIELDS, body.data());
  api->easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE,
                   static_cast<curl_off_t>(body.size()));
  api->easy_setopt(c, CURLOPT_TIMEOUT_MS,
                   static_cast<long>(options.timeout_ms));
  api->easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS,
                   static_cast<long>(options.connect_timeout_ms));
  api->easy_setopt(c, CURLOPT_WRITEFUNCTION, OnWrite);
  api->easy_setopt(c, CURLOPT_WRITEDATA, &sink);
  api->easy_setopt(c, CURLOPT_ERRORBUFFER, error);
  api->easy_setopt(c, CURLOPT_USERAGENT, "ctxkit");

  const std::string name(what);
  CURLcode rc = api->easy_perform(c);
  if (rc != CURLE_OK) {
    if (sink.overflow) {
      return Status::ResourceExhausted(
          name + " reply larger than " +
          std::to_string(options.max_response_bytes) + " bytes");
    }
    std::string why = error[0] ? error : api->easy_strerror(rc);
    return Status::Unavailable(name + " request to " + url + " failed: " + why);
  }
  long status = 0;
  api->easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
  if (status < 200 || status >= 300) {
    return Status::IoError(name + " request to " + url + " returned HTTP " +
                           std::to_string(status) + ": " + Snippet(sink.body));
  }
  return std::move(sink.body);
}

std::string ErrorText(const nlohmann::json& error) {
  if (error.is_object() && error.contains("message") &&
      error["message"].is_string()) {
    return error["message"].get<std::string>();
  }
  return text::DumpJson(error);
}

Result<nlohmann::json> ParseReplyObject(const std::string& body,
                                        std::string_view what) {
  nlohmann::json j = text::ParseJsonOrDiscarded(body);
  if (j.is_discarded() || !j.is_object()) {
    return Status::Corruption(std::string(what) +
                              " reply is not a JSON object: " + Snippet(body));
  }
  if (auto error = j.find("error"); error != j.end()) {
    return Status::Unavailable(std::string(what) +
                               " error: " + Snippet(ErrorText(*error)));
  }
  return j;
}

}  // namespace ctxkit::llm
