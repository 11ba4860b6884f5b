// An OpenAI-compatible /chat/completions server on 127.0.0.1 for tests, with
// canned replies or a reply computed from each request.
//
//   FakeChatServer server(FakeChatServer::Mode::kOk, "A summary.");
//   setenv("CTXKIT_LLM_BASE_URL", server.base_url().c_str(), 1);

#ifndef CTXKIT_TESTS_COMMON_FAKE_CHAT_SERVER_H_
#define CTXKIT_TESTS_COMMON_FAKE_CHAT_SERVER_H_

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "common/loopback_http_server.h"

namespace ctxkit::testing {

class FakeChatServer {
 public:
  enum class Mode {
    kOk,         // 200 with a chat.completion whose content is the reply.
    kStatus500,  // 500 with an error body.
    kGarbage,    // 200 with a body that is not JSON.
    kNoChoices,  // 200 with JSON that is not a chat completion.
    kHang,       // Never answers (until the client gives up).
  };
  using Request = LoopbackHttpServer::Request;
  // Computes the assistant's content from the parsed request body (a
  // discarded value when the body is not JSON).
  using Responder = std::function<std::string(const nlohmann::json& request)>;

  explicit FakeChatServer(Mode mode, std::string content = "A summary.")
      : FakeChatServer(mode, [content = std::move(content)](
                                 const nlohmann::json&) { return content; }) {}
  explicit FakeChatServer(Responder responder)
      : FakeChatServer(Mode::kOk, std::move(responder)) {}

  int port() const { return server_.port(); }
  std::string base_url() const { return server_.base_url(); }
  std::vector<Request> requests() { return server_.requests(); }
  size_t hits() { return server_.hits(); }

 private:
  FakeChatServer(Mode mode, Responder responder)
      : mode_(mode),
        responder_(std::move(responder)),
        server_([this](const Request& r) { return Answer(r); }) {}

  LoopbackHttpServer::Reply Answer(const Request& r) const {
    LoopbackHttpServer::Reply reply;
    switch (mode_) {
      case Mode::kOk: {
        nlohmann::json request = nlohmann::json::parse(r.body, nullptr, false);
        reply.body =
            nlohmann::json{
                {"id", "chatcmpl-test"},
                {"object", "chat.completion"},
                {"model", "test-model"},
                {"choices",
                 {{{"index", 0},
                   {"message",
                    {{"role", "assistant"}, {"content", responder_(request)}}},
                   {"finish_reason", "stop"}}}}}
                .dump();
        break;
      }
      case Mode::kStatus500:
        reply.status = "500 Internal Server Error";
        reply.body = R"({"error":{"message":"boom","type":"server_error"}})";
        break;
      case Mode::kGarbage:
        reply.body = "<html>this is not json";
        break;
      case Mode::kNoChoices:
        reply.body = R"({"object":"chat.completion","choices":[]})";
        break;
      case Mode::kHang:
        reply.hang = true;
        break;
    }
    return reply;
  }

  Mode mode_;
  Responder responder_;
  LoopbackHttpServer server_;  // Last: its thread calls Answer.
};

}  // namespace ctxkit::testing

#endif  // CTXKIT_TESTS_COMMON_FAKE_CHAT_SERVER_H_
