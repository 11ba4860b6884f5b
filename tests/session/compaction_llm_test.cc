// Compaction summaries written by a chat-completions endpoint (a real HTTP
// server on 127.0.0.1): what it is asked, what the compaction keeps, that a
// settled session asks nothing more, and the structural summary standing in
// when the endpoint fails.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "common/fake_chat_server.h"
#include "common/loopback_http_server.h"
#include "ctxkit/session.h"
#include "ctxkit/tokenizer.h"
#include "session/log_builders.h"
#include "session/session_test_util.h"

namespace ctxkit {
namespace {

using nlohmann::json;
using testing::FakeChatServer;
using testing::OpenAILog;

constexpr SessionPolicy kPolicy{.keep_tool_outputs = 1,
                                .min_collapse_tokens = 0,
                                .keep_turns = 1,
                                .compaction_summary_tokens = 40};

LlmEndpoint EndpointOf(const FakeChatServer& server) {
  LlmEndpoint e;
  e.base_url = server.base_url();
  e.model = "test-model";
  e.timeout_ms = 2000;
  e.connect_timeout_ms = 1000;
  return e;
}

class CompactionLlmTest : public testing::SessionStoreFixture {
 protected:
  // The compaction object `ref` names.
  json Compaction(const std::string& ref) {
    auto parsed = ParseRef(ref);
    EXPECT_TRUE(parsed.ok());
    auto text = view().Resolve(*parsed);
    EXPECT_TRUE(text.ok()) << text.status().ToString();
    return json::parse(text.ok() ? *text : "{}");
  }

  // A new session of 8 turns rendered in a budget that compacts, with
  // `endpoint` for the summary.
  RenderResult RenderCompacting(const std::string& id, LlmEndpoint endpoint) {
    auto s = NewSession(id, kPolicy);
    EXPECT_TRUE(s->Ingest(OpenAILog(8, 30).dump(), LogFormat::kOpenAI).ok());
    RenderOptions options{.budget_tokens = 900};
    options.llm = std::move(endpoint);
    auto r = s->Render(options);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_FALSE(r.ok() && r->compacted.ref.empty());
    return r.ok() ? *std::move(r) : RenderResult();
  }
};

TEST_F(CompactionLlmTest, TheEndpointWritesTheSummaryAndTheMessagesStay) {
  FakeChatServer server(
      FakeChatServer::Mode::kOk,
      "  Turns 0-3: the user asked for things 0 to 3; grep found them.\n");
  auto s = NewSession("llm", kPolicy);
  ASSERT_TRUE(s->Ingest(OpenAILog(8, 30).dump(), LogFormat::kOpenAI).ok());
  RenderOptions options{.budget_tokens = 900};
  options.llm = EndpointOf(server);
  auto r = s->Render(options);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_FALSE(r->compacted.ref.empty());
  ASSERT_EQ(server.hits(), 1u);

  // What was asked: the messages, tool outputs as their reference lines.
  json body = json::parse(server.requests()[0].body);
  EXPECT_EQ(body["model"], "test-model");
  EXPECT_EQ(body["max_tokens"], 40);
  const std::string system = body["messages"][0]["content"];
  EXPECT_NE(system.find("Hard limit: 40 tokens"), std::string::npos);
  const std::string asked = body["messages"][1]["content"];
  EXPECT_NE(asked.find("user: Please look for thing 0"), std::string::npos);
  EXPECT_NE(asked.find("calls grep {\"q\":\"thing 0\"}"), std::string::npos);
  EXPECT_NE(asked.find("tool result: [toolcall call_0 | grep | ok"),
            std::string::npos);
  EXPECT_EQ(asked.find("result line for query 0\n"), std::string::npos)
      << "a tool output was sent whole";

  // The compaction keeps the endpoint's words and who wrote them.
  json c = Compaction(r->compacted.ref);
  EXPECT_EQ(c["summarizer"], "llm-v1:test-model");
  EXPECT_EQ(c["summary"],
            "Turns 0-3: the user asked for things 0 to 3; grep found them.");
  EXPECT_FALSE(c.contains("summary_notes"));
  EXPECT_NE(r->request_json.find("grep found them."), std::string::npos);

  // Lossless still: the messages come back exactly.
  auto expanded = s->Expand(r->compacted.ref);
  ASSERT_TRUE(expanded.ok());
  EXPECT_NE(expanded->find("Please look for thing 0"), std::string::npos);

  // A settled session asks nothing more, and the record replays.
  auto again = s->Render(options);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->compacted.ref.empty());
  EXPECT_EQ(server.hits(), 1u);
  EXPECT_EQ(again->request_json, r->request_json);
  auto replay = s->Replay(r->record);
  ASSERT_TRUE(replay.ok()) << replay.status().ToString();
  EXPECT_EQ(replay->request_json, r->request_json);
}

TEST_F(CompactionLlmTest, ALongAnswerIsCutToTheCap) {
  std::string rambling;
  for (int i = 0; i < 200; ++i) rambling += "word" + std::to_string(i) + " ";
  FakeChatServer server(FakeChatServer::Mode::kOk, rambling);
  RenderResult r = RenderCompacting("long", EndpointOf(server));
  ASSERT_FALSE(r.compacted.ref.empty());
  json c = Compaction(r.compacted.ref);
  const std::string summary = c["summary"];
  EXPECT_EQ(summary.rfind("word0 word1", 0), 0u);
  auto tok = Tokenizer::Get("o200k_base");
  ASSERT_TRUE(tok.ok());
  EXPECT_LE((*tok)->Count(summary), 40u);
  EXPECT_LE(r.tokens, 900u);
}

TEST_F(CompactionLlmTest, AFailingEndpointLeavesTheStructuralSummary) {
  for (FakeChatServer::Mode mode :
       {FakeChatServer::Mode::kStatus500, FakeChatServer::Mode::kGarbage}) {
    FakeChatServer server(mode);
    const std::string id = mode == FakeChatServer::Mode::kStatus500 ? "e" : "g";
    RenderResult r = RenderCompacting(id, EndpointOf(server));
    ASSERT_FALSE(r.compacted.ref.empty());
    EXPECT_GE(server.hits(), 1u);
    json c = Compaction(r.compacted.ref);
    EXPECT_EQ(c["summarizer"], "structural-v1");
    const std::string summary = c["summary"];
    EXPECT_EQ(summary.rfind("Earlier conversation (", 0), 0u);
    const std::string notes = c.value("summary_notes", "");
    EXPECT_NE(notes.find("llm-v1:test-model failed"), std::string::npos)
        << notes;
  }
}

// An error body cut mid-character (the client keeps its first 200 bytes)
// still leaves a stored compaction, and a failed endpoint is not asked
// again by the next compactions for a while.
TEST_F(CompactionLlmTest, AnErrorIsNotedOnceAndNotAskedAgainAtOnce) {
  testing::LoopbackHttpServer server([](const auto&) {
    testing::LoopbackHttpServer::Reply reply;
    reply.status = "500 Internal Server Error";
    reply.body = std::string(199, 'x') + "\xc3\xa9 and more \xff";
    return reply;
  });
  LlmEndpoint endpoint;
  endpoint.base_url = server.base_url();
  endpoint.model = "test-model";
  endpoint.timeout_ms = 2000;
  auto s = NewSession("down", kPolicy);
  ASSERT_TRUE(s->Ingest(OpenAILog(8, 30).dump(), LogFormat::kOpenAI).ok());
  RenderOptions options{.budget_tokens = 900};
  options.llm = endpoint;
  auto r = s->Render(options);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_FALSE(r->compacted.ref.empty());
  EXPECT_EQ(server.hits(), 1u);
  json c = Compaction(r->compacted.ref);
  EXPECT_EQ(c["summarizer"], "structural-v1");
  EXPECT_NE(c.value("summary_notes", "").find("failed"), std::string::npos);
  // More turns, a smaller budget: another compaction, structural, unasked.
  ASSERT_TRUE(s->Ingest(OpenAILog(14, 30).dump(), LogFormat::kOpenAI).ok());
  options.budget_tokens = 800;
  auto again = s->Render(options);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  ASSERT_FALSE(again->compacted.ref.empty());
  EXPECT_EQ(server.hits(), 1u);
  EXPECT_NE(Compaction(again->compacted.ref)
                .value("summary_notes", "")
                .find("failed"),
            std::string::npos);
}

TEST_F(CompactionLlmTest, WithoutAnEndpointNothingIsSent) {
  FakeChatServer server(FakeChatServer::Mode::kOk);
  // No model: not configured.
  RenderResult r =
      RenderCompacting("none", LlmEndpoint{.base_url = server.base_url()});
  ASSERT_FALSE(r.compacted.ref.empty());
  EXPECT_EQ(server.hits(), 0u);
  EXPECT_EQ(Compaction(r.compacted.ref)["summarizer"], "structural-v1");
}

}  // namespace
}  // namespace ctxkit
