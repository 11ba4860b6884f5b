// OpenAI Responses items (what the OpenAI Agents SDK stores) through a
// session: ingested (messages, function calls and their outputs; other
// items kept verbatim), rendered as {"input": [...]} with tool outputs
// behind refs, appended, replayed byte for byte, refused with the path of
// the first problem.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "ctxkit/session.h"
#include "session/session_test_util.h"

namespace ctxkit {
namespace {

using nlohmann::json;
using testing::SessionStoreFixture;

std::string BuildLog(int lines) {
  std::string out;
  for (int i = 1; i <= lines; ++i) {
    out += "step " + std::to_string(i) +
           (i == lines ? ": error: linker cannot find -lzstd\n" : ": ok\n");
  }
  return out;
}

const json kReasoning = {{"type", "reasoning"},
                         {"id", "rs_1"},
                         {"summary", json::array()},
                         {"encrypted_content", "gAAAAABopaque"}};

// One Agents SDK turn: the user's message, the model's reasoning and tool
// call, the tool's output and the model's answer.
json Turn(int t, int lines) {
  const std::string call = "call_" + std::to_string(t);
  json reasoning = kReasoning;
  reasoning["id"] = "rs_" + std::to_string(t);
  return json::array(
      {{{"role", "user"},
        {"content", "Why did build " + std::to_string(t) + " fail?"}},
       reasoning,
       {{"type", "function_call"},
        {"id", "fc_" + std::to_string(t)},
        {"call_id", call},
        {"name", "read_log"},
        {"arguments", "{\"build\":" + std::to_string(t) + "}"},
        {"status", "completed"}},
       {{"type", "function_call_output"},
        {"call_id", call},
        {"output", BuildLog(lines)}},
       {{"type", "message"},
        {"id", "msg_" + std::to_string(t)},
        {"role", "assistant"},
        {"status", "completed"},
        {"content", json::array({{{"type", "output_text"},
                                  {"text", "The linker failed."},
                                  {"annotations", json::array()}}})}}});
}

json Items(int turns, int lines) {
  json items = json::array();
  for (int t = 1; t <= turns; ++t) {
    for (const json& i : Turn(t, lines)) items.push_back(i);
  }
  return items;
}

constexpr LogFormat kResponses = LogFormat::kOpenAIResponses;

class ResponsesTest : public SessionStoreFixture {};

TEST_F(ResponsesTest, ItemsRenderAsInputItemsWithOutputsBehindRefs) {
  auto s = NewSession("r");
  json log = {{"instructions", "You explain build failures."},
              {"input", Items(1, 20)}};
  auto rep = s->Ingest(log.dump(), kResponses);
  ASSERT_TRUE(rep.ok()) << rep.status().ToString();
  EXPECT_EQ(rep->toolcalls_recorded, 1u);
  auto r = s->Render({.budget_tokens = 100000, .format = kResponses});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  json request = json::parse(r->request_json);
  ASSERT_TRUE(request.contains("input")) << r->request_json;
  const json& input = request["input"];
  ASSERT_EQ(input.size(), 6u) << input.dump(1);
  EXPECT_EQ(input[0], (json{{"role", "system"},
                            {"content", "You explain build failures."}}));
  EXPECT_EQ(input[1],
            (json{{"role", "user"}, {"content", "Why did build 1 fail?"}}));
  // Kept verbatim, in its place: the next request sends it back.
  json reasoning = kReasoning;
  EXPECT_EQ(input[2], reasoning);
  EXPECT_EQ(input[3], (json{{"type", "function_call"},
                            {"call_id", "call_1"},
                            {"name", "read_log"},
                            {"arguments", "{\"build\":1}"}}));
  EXPECT_EQ(input[4]["type"], "function_call_output");
  EXPECT_EQ(input[4]["call_id"], "call_1");
  const std::string output = input[4]["output"];
  EXPECT_NE(output.find("ck:"), std::string::npos);
  EXPECT_NE(output.find("linker cannot find"), std::string::npos);
  EXPECT_EQ(input[5],
            (json{{"role", "assistant"}, {"content", "The linker failed."}}));
  EXPECT_EQ(r->breakdown.Total(), r->tokens);
  auto replay = s->Replay(r->record);
  ASSERT_TRUE(replay.ok()) << replay.status().ToString();
  EXPECT_EQ(replay->request_json, r->request_json);
  EXPECT_EQ(replay->format, kResponses);
}

TEST_F(ResponsesTest, ASmallBudgetHidesOlderOutputsAndShowsTheNewest) {
  auto s = NewSession("r");
  ASSERT_TRUE(s->Ingest(Items(6, 400).dump(), kResponses).ok());
  auto r = s->Render({.budget_tokens = 8000, .format = kResponses});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_LE(r->tokens, 8000u);
  const json input = json::parse(r->request_json)["input"];
  const json& newest = input[input.size() - 2];
  ASSERT_EQ(newest["call_id"], "call_6") << input.dump(1);
  EXPECT_NE(newest["output"].get<std::string>().find("step 1: ok"),
            std::string::npos);
  bool hidden = false;
  for (const json& item : input) {
    if (item.value("type", "") == "function_call_output" &&
        item["output"].get<std::string>().find("output hidden") !=
            std::string::npos) {
      hidden = true;
    }
  }
  EXPECT_TRUE(hidden || r->compacted_messages > 0) << input.dump(1);
  auto replay = s->Replay(r->record);
  ASSERT_TRUE(replay.ok());
  EXPECT_EQ(replay->request_json, r->request_json);
}

TEST_F(ResponsesTest, AppendingItemsEqualsIngestingTheWholeLog) {
  auto whole = NewSession("whole");
  ASSERT_TRUE(whole->Ingest(Items(2, 10).dump(), kResponses).ok());
  auto parts = NewSession("parts");
  json first = Items(1, 10);
  ASSERT_TRUE(parts->Ingest(first.dump(), kResponses).ok());
  json second = Turn(2, 10);
  auto rep = parts->IngestAppend(second.dump(), kResponses);
  ASSERT_TRUE(rep.ok()) << rep.status().ToString();
  EXPECT_EQ(rep->messages_added, 5u);
  auto a = whole->Snapshot();
  auto b = parts->Snapshot();
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->chat_messages, b->chat_messages);
  // Another format continuing the log is refused.
  EXPECT_EQ(parts->IngestAppend("[]", LogFormat::kOpenAI).status().code(),
            StatusCode::kFailedPrecondition);
}

TEST_F(ResponsesTest, OtherFormatsLeaveOutTheVerbatimItems) {
  auto s = NewSession("r");
  ASSERT_TRUE(s->Ingest(Items(1, 10).dump(), kResponses).ok());
  auto r = s->Render({.budget_tokens = 100000, .format = LogFormat::kOpenAI});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->request_json.find("gAAAAABopaque"), std::string::npos);
  EXPECT_EQ(r->breakdown.Total(), r->tokens);
  auto replay = s->Replay(r->record);
  ASSERT_TRUE(replay.ok());
  EXPECT_EQ(replay->request_json, r->request_json);
}

TEST_F(ResponsesTest, MalformedItemsAreRefusedWithTheirPath) {
  auto s = NewSession("r");
  struct Case {
    json log;
    std::string says;
  } cases[] = {
      {json::array({{{"type", "function_call_output"},
                     {"call_id", "nope"},
                     {"output", "x"}}}),
       "input[0]: call_id 'nope' matches no earlier function_call"},
      {json::array({{{"role", "user"},
                     {"content", json::array({{{"type", "input_image"},
                                               {"image_url", "x"}}})}}}),
       "input[0].content[0]"},
      {json::array({{{"type", "function_call"}, {"name", "f"}}}),
       "input[0].call_id"},
      {json::array({{{"role", "tool"}, {"content", "x"}}}), "input[0].role"},
      {json{{"messages", json::array()}}, "$.input"},
      {json::array({1}), "input[0]"},
  };
  for (const Case& c : cases) {
    auto rep = s->Ingest(c.log.dump(), kResponses);
    ASSERT_TRUE(rep.status().IsInvalidArgument()) << c.log.dump();
    EXPECT_NE(rep.status().message().find(c.says), std::string::npos)
        << rep.status().message();
  }
  auto snap = s->Snapshot();
  ASSERT_TRUE(snap.ok());
  EXPECT_EQ(snap->chat_messages, 0u);
}

}  // namespace
}  // namespace ctxkit
