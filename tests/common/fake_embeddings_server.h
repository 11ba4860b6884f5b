// An OpenAI-compatible /embeddings server on 127.0.0.1 for tests. Each
// input's vector is a hashed bag of its lower-cased words (kDim buckets), so
// texts sharing words are similar, and a test can make two different words
// "synonyms" by mapping them to one bucket. Records every request.

#ifndef CTXKIT_TESTS_COMMON_FAKE_EMBEDDINGS_SERVER_H_
#define CTXKIT_TESTS_COMMON_FAKE_EMBEDDINGS_SERVER_H_

#include <cctype>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "common/loopback_http_server.h"

namespace ctxkit::testing {

class FakeEmbeddingsServer {
 public:
  enum class Mode { kOk, kStatus500, kGarbage };
  static constexpr size_t kDim = 64;

  explicit FakeEmbeddingsServer(
      Mode mode, std::map<std::string, std::string> synonyms = {})
      : mode_(mode),
        synonyms_(std::move(synonyms)),
        server_([this](const LoopbackHttpServer::Request& r) {
          return Answer(r);
        }) {}

  std::string base_url() const { return server_.base_url(); }
  std::vector<std::string> bodies() {
    std::vector<std::string> out;
    for (const auto& r : server_.requests()) out.push_back(r.body);
    return out;
  }
  std::vector<std::string> request_lines() {
    std::vector<std::string> out;
    for (const auto& r : server_.requests()) out.push_back(r.request_line);
    return out;
  }

  std::vector<float> Vector(const std::string& text) const {
    std::vector<float> v(kDim, 0.0f);
    std::string w;
    auto flush = [&] {
      if (w.empty()) return;
      auto s = synonyms_.find(w);
      const std::string& key = s == synonyms_.end() ? w : s->second;
      v[std::hash<std::string>{}(key) % kDim] += 1.0f;
      w.clear();
    };
    for (char c : text) {
      if (std::isalnum(static_cast<unsigned char>(c))) {
        w += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      } else {
        flush();
      }
    }
    flush();
    v[0] += 0.01f;  // Never all zero.
    return v;
  }

 private:
  LoopbackHttpServer::Reply Answer(const LoopbackHttpServer::Request& r) const {
    LoopbackHttpServer::Reply reply;
    if (mode_ == Mode::kStatus500) {
      reply.status = "500 Internal Server Error";
      reply.body = R"({"error":{"message":"boom"}})";
      return reply;
    }
    if (mode_ == Mode::kGarbage) {
      reply.body = "<html>not json";
      return reply;
    }
    nlohmann::json req = nlohmann::json::parse(r.body, nullptr, false);
    nlohmann::json data = nlohmann::json::array();
    if (req.is_object() && req["input"].is_array()) {
      for (size_t i = 0; i < req["input"].size(); ++i) {
        data.push_back(
            {{"object", "embedding"},
             {"index", i},
             {"embedding", Vector(req["input"][i].get<std::string>())}});
      }
    }
    reply.body = nlohmann::json{{"object", "list"}, {"data", data}}.dump();
    return reply;
  }

  Mode mode_;
  std::map<std::string, std::string> synonyms_;
  LoopbackHttpServer server_;  // Last: its thread calls Answer.
};

}  // namespace ctxkit::testing

#endif  // CTXKIT_TESTS_COMMON_FAKE_EMBEDDINGS_SERVER_H_
