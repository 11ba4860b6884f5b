// The LLM summarizer against a real HTTP server on 127.0.0.1: the request
// shape, a good reply, trimming to the budget, and the structural fallback
// on an error status, a malformed reply, a timeout and a refused connection.

#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>

#include "common/fake_chat_server.h"
#include "ctxkit/summary.h"
#include "ctxkit/tokenizer.h"
#include "llm/chat_client.h"
#include "summary_test_util.h"

namespace ctxkit {
namespace {

using testing::FakeChatServer;

class LlmSummaryTest : public testing::StoreFixture {
 protected:
  SummarizeOptions LlmOptions(const FakeChatServer& server, size_t max = 100) {
    SummarizeOptions o;
    o.summarizer = SummarizerKind::kLlm;
    o.max_tokens = max;
    LlmEndpoint e;
    e.base_url = server.base_url();
    e.model = "test-model";
    e.api_key = "sk-test";
    e.timeout_ms = 2000;
    e.connect_timeout_ms = 1000;
    o.llm = e;
    return o;
  }
};

TEST_F(LlmSummaryTest, RequestShapeAndReply) {
  FakeChatServer server(FakeChatServer::Mode::kOk,
                        "  A build log ending in a linker error.  \n");
  ASSERT_GT(server.port(), 0);
  ASSERT_TRUE(view().Set("log", testing::LogText(60), {}).ok());
  ResetSummarizerStats();
  Result<Summary> s = Summarize(view(), "log", LlmOptions(server, 64));
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->text, "A build log ending in a linker error.");
  EXPECT_EQ(s->summarizer, "llm-v1:test-model");
  EXPECT_EQ(s->kind, "llm");
  EXPECT_FALSE(s->cached);
  EXPECT_TRUE(s->notes.empty()) << s->notes;

  ASSERT_EQ(server.hits(), 1u);
  FakeChatServer::Request r = server.requests()[0];
  EXPECT_EQ(r.request_line, "POST /v1/chat/completions HTTP/1.1");
  EXPECT_NE(r.headers.find("content-type: application/json"),
            std::string::npos);
  EXPECT_NE(r.headers.find("authorization: bearer sk-test"), std::string::npos);
  nlohmann::json body = nlohmann::json::parse(r.body, nullptr, false);
  ASSERT_FALSE(body.is_discarded()) << r.body;
  EXPECT_EQ(body["model"], "test-model");
  EXPECT_EQ(body["max_tokens"], 64);
  EXPECT_EQ(body["stream"], false);
  ASSERT_EQ(body["messages"].size(), 2u);
  EXPECT_EQ(body["messages"][0]["role"], "system");
  EXPECT_NE(body["messages"][0]["content"].get<std::string>().find("64 tokens"),
            std::string::npos);
  EXPECT_EQ(body["messages"][1]["role"], "user");
  std::string user = body["messages"][1]["content"];
  EXPECT_NE(user.find("ERROR: linker failed"), std::string::npos);
  EXPECT_NE(user.find("The complete value follows"), std::string::npos);

  // Cached: the second call sends nothing.
  Result<Summary> again = Summarize(view(), "log", LlmOptions(server, 64));
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->cached);
  EXPECT_EQ(again->text, s->text);
  EXPECT_EQ(server.hits(), 1u);
  EXPECT_EQ(GetSummarizerStats().llm_requests, 1u);
}

TEST_F(LlmSummaryTest, LongReplyIsTrimmedToBudget) {
  std::string essay;
  for (int i = 0; i < 400; ++i) essay += "word" + std::to_string(i) + " ";
  FakeChatServer server(FakeChatServer::Mode::kOk, essay);
  ASSERT_TRUE(view().Set("v", "some value\n", {}).ok());
  for (size_t n : {1, 5, 20}) {
    Result<Summary> s = Summarize(view(), "v", LlmOptions(server, n));
    ASSERT_TRUE(s.ok());
    EXPECT_EQ(s->kind, "llm");
    EXPECT_LE(s->tokens, n);
    EXPECT_LE((*Tokenizer::Get())->Count(s->text), n);
    EXPECT_TRUE(essay.starts_with(s->text)) << s->text;
  }
}

TEST_F(LlmSummaryTest, LargeValueSendsDigest) {
  FakeChatServer server(FakeChatServer::Mode::kOk, "digest summary");
  ASSERT_TRUE(view().Set("big", testing::LogText(2000), {}).ok());
  SummarizeOptions o = LlmOptions(server);
  o.llm_input_tokens = 200;
  Result<Summary> s = Summarize(view(), "big", o);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->text, "digest summary");
  EXPECT_NE(s->notes.find("structural digest"), std::string::npos);
  ASSERT_EQ(server.hits(), 1u);
  nlohmann::json body = nlohmann::json::parse(server.requests()[0].body);
  std::string user = body["messages"][1]["content"];
  EXPECT_NE(user.find("structural digest"), std::string::npos);
  EXPECT_LT(user.size(), 4000u);
}

void ExpectFallback(const Result<Summary>& s, std::string_view why) {
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->summarizer, "structural-v1");
  EXPECT_EQ(s->kind, "text");
  EXPECT_NE(s->notes.find("llm failed"), std::string::npos) << s->notes;
  EXPECT_NE(s->notes.find(why), std::string::npos) << s->notes;
  EXPECT_NE(s->text.find("ERROR: linker failed"), std::string::npos);
}

TEST_F(LlmSummaryTest, HttpErrorFallsBack) {
  FakeChatServer server(FakeChatServer::Mode::kStatus500);
  ASSERT_TRUE(view().Set("log", testing::LogText(100), {}).ok());
  ResetSummarizerStats();
  ExpectFallback(Summarize(view(), "log", LlmOptions(server, 200)), "HTTP 500");
  EXPECT_EQ(GetSummarizerStats().llm_failures, 1u);
  // A failure is not cached under the LLM's name: the next call retries
  // (and finds the structural fallback in the cache).
  Result<Summary> again = Summarize(view(), "log", LlmOptions(server, 200));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(server.hits(), 2u);
  EXPECT_TRUE(again->cached);
  EXPECT_EQ(again->summarizer, "structural-v1");
  EXPECT_NE(again->notes.find("llm failed"), std::string::npos);
}

TEST_F(LlmSummaryTest, MalformedReplyFallsBack) {
  FakeChatServer garbage(FakeChatServer::Mode::kGarbage);
  ASSERT_TRUE(view().Set("log", testing::LogText(100), {}).ok());
  ExpectFallback(Summarize(view(), "log", LlmOptions(garbage, 200)),
                 "not a JSON object");
  FakeChatServer no_choices(FakeChatServer::Mode::kNoChoices);
  ExpectFallback(Summarize(view(), "log", LlmOptions(no_choices, 200)),
                 "no choices");
}

TEST_F(LlmSummaryTest, TimeoutFallsBack) {
  FakeChatServer server(FakeChatServer::Mode::kHang);
  ASSERT_TRUE(view().Set("log", testing::LogText(100), {}).ok());
  SummarizeOptions o = LlmOptions(server, 200);
  o.llm->timeout_ms = 300;
  auto start = std::chrono::steady_clock::now();
  ExpectFallback(Summarize(view(), "log", o), "failed");
  auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_LT(elapsed, std::chrono::seconds(4));
  EXPECT_EQ(server.hits(), 1u);
}

TEST_F(LlmSummaryTest, RefusedConnectionFallsBack) {
  int port = 0;
  {
    FakeChatServer gone(FakeChatServer::Mode::kOk);
    port = gone.port();
  }  // Closed: nothing listens there now.
  ASSERT_TRUE(view().Set("log", testing::LogText(100), {}).ok());
  SummarizeOptions o;
  o.summarizer = SummarizerKind::kLlm;
  o.max_tokens = 200;
  o.llm = LlmEndpoint{"http://127.0.0.1:" + std::to_string(port) + "/v1", "m",
                      "", 1000, 500};
  ExpectFallback(Summarize(view(), "log", o), "failed");
}

TEST_F(LlmSummaryTest, NotConfiguredAndAuto) {
  ASSERT_TRUE(view().Set("log", testing::LogText(30), {}).ok());
  SummarizeOptions o;
  o.summarizer = SummarizerKind::kLlm;
  o.llm = LlmEndpoint{};
  Result<Summary> s = Summarize(view(), "log", o);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->summarizer, "structural-v1");
  EXPECT_NE(s->notes.find("not configured"), std::string::npos);
  // auto without an endpoint: structural, silently.
  o.summarizer = SummarizerKind::kAuto;
  Result<Summary> a = Summarize(view(), "log", o);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->summarizer, "structural-v1");
  EXPECT_TRUE(a->notes.empty());
  // auto with one: the LLM.
  FakeChatServer server(FakeChatServer::Mode::kOk, "auto llm");
  SummarizeOptions b = LlmOptions(server);
  b.summarizer = SummarizerKind::kAuto;
  Result<Summary> c = Summarize(view(), "log", b);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->text, "auto llm");
}

TEST(ChatClientTest, UrlAndParsing) {
  EXPECT_EQ(llm::ChatCompletionsUrl("http://h/v1"),
            "http://h/v1/chat/completions");
  EXPECT_EQ(llm::ChatCompletionsUrl("http://h/v1/"),
            "http://h/v1/chat/completions");
  EXPECT_EQ(llm::ChatCompletionsUrl("http://h/v1/chat/completions"),
            "http://h/v1/chat/completions");
  auto ok = llm::ParseChatResponse(
      R"({"model":"m","choices":[{"message":{"role":"assistant","content":"hi"},"finish_reason":"length"}]})");
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->content, "hi");
  EXPECT_EQ(ok->finish_reason, "length");
  EXPECT_FALSE(llm::ParseChatResponse("").ok());
  EXPECT_FALSE(llm::ParseChatResponse("[]").ok());
  EXPECT_FALSE(llm::ParseChatResponse(R"({"choices":[{}]})").ok());
  EXPECT_FALSE(
      llm::ParseChatResponse(R"({"choices":[{"message":{"content":null}}]})")
          .ok());
  auto err = llm::ParseChatResponse(R"({"error":{"message":"rate limited"}})");
  ASSERT_FALSE(err.ok());
  EXPECT_NE(err.status().ToString().find("rate limited"), std::string::npos);
  // Invalid UTF-8 in a prompt is replaced, never fatal.
  llm::ChatConfig config{"http://h", "m", "", 1, 1};
  llm::ChatRequest request;
  request.messages.push_back({"user", "bad \xFF bytes"});
  std::string body = llm::ChatRequestBody(config, request);
  EXPECT_FALSE(nlohmann::json::parse(body, nullptr, false).is_discarded());
  EXPECT_EQ(llm::ChatComplete(llm::ChatConfig{}, request).status().code(),
            StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace ctxkit
