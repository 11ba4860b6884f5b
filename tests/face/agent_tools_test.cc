// The agent tools (ctxkit/agent_tools.h): their definitions in the three
// provider formats, a model's tool call in each format run against a
// session and answered in the same format, tool errors shown to the model,
// malformed calls refused, a compaction the model asks for, and a render
// that carries the tools and replays with them.

#include "ctxkit/agent_tools.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "ctxkit/session.h"
#include "ctxkit/tokenizer.h"
#include "session/log_builders.h"
#include "session/session_test_util.h"

namespace ctxkit {
namespace {

using nlohmann::json;

// A build log of `lines` numbered lines.
std::string BuildLog(int lines) {
  std::string out;
  for (int i = 1; i <= lines; ++i) {
    out += "step " + std::to_string(i) +
           (i == 37 ? ": error: linker cannot find -lzstd\n" : ": ok\n");
  }
  return out;
}

// `turns` turns of a user question, one tool call and its output (a build
// log).
json Chat(int turns) {
  json messages = json::array();
  for (int t = 1; t <= turns; ++t) {
    for (json& m : testing::OpenAITurnWithOutput(t, BuildLog(60))) {
      messages.push_back(std::move(m));
    }
  }
  return messages;
}

class AgentToolsTest : public testing::SessionStoreFixture {
 protected:
  void SetUp() override {
    SessionStoreFixture::SetUp();
    auto s = Session::Create(store(), "agent", SessionPolicy{});
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    session_ = std::move(*s);
    ASSERT_TRUE(session_->Ingest(Chat(3).dump(), LogFormat::kOpenAI).ok());
    auto r = session_->Render({.budget_tokens = 100000});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    // The ref of the first tool output, as the render shows it.
    auto snap = session_->Snapshot();
    ASSERT_TRUE(snap.ok());
    for (const PoolEntry& e : snap->entries) {
      if (e.kind == "toolcall" && ref_.empty()) ref_ = e.ref;
    }
    ASSERT_FALSE(ref_.empty());
  }

  // Calls tool `name` with `args` in the OpenAI chat shape; the result's
  // content.
  std::string CallOpenAI(const std::string& name, const json& args) {
    json call = {{"id", "call_x"},
                 {"type", "function"},
                 {"function", {{"name", name}, {"arguments", args.dump()}}}};
    auto r = CallAgentTool(*session_, call.dump());
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    if (!r.ok()) return "";
    json item = json::parse(*r);
    EXPECT_EQ(item["role"], "tool");
    EXPECT_EQ(item["tool_call_id"], "call_x");
    return item["content"].get<std::string>();
  }

  std::unique_ptr<Session> session_;
  std::string ref_;
};

TEST(AgentToolDefinitions, EveryFormatListsEveryToolSortedAndStable) {
  for (ToolFormat f : {ToolFormat::kOpenAIChat, ToolFormat::kOpenAIResponses,
                       ToolFormat::kAnthropic}) {
    json tools = json::parse(AgentToolsJson(f));
    ASSERT_EQ(tools.size(), 8u) << ToolFormatName(f);
    std::string previous;
    for (const json& t : tools) {
      const json& def = f == ToolFormat::kOpenAIChat ? t["function"] : t;
      const std::string name = def["name"];
      EXPECT_TRUE(IsAgentToolName(name));
      EXPECT_LT(previous, name);
      previous = name;
      const json& schema =
          f == ToolFormat::kAnthropic ? def["input_schema"] : def["parameters"];
      EXPECT_EQ(schema["type"], "object") << name;
      EXPECT_FALSE(def["description"].get<std::string>().empty());
    }
    EXPECT_EQ(AgentToolsJson(f), AgentToolsJson(f));
    auto parsed = ParseToolFormat(ToolFormatName(f));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, f);
  }
  EXPECT_EQ(json::parse(AgentToolsJson(ToolFormat::kOpenAIChat))[0]["type"],
            "function");
  EXPECT_TRUE(ParseToolFormat("gemini").status().IsInvalidArgument());
  EXPECT_FALSE(IsAgentToolName("get_weather"));
}

TEST_F(AgentToolsTest, ReadsWholeByLinesAndByBytes) {
  std::string whole = CallOpenAI("ctxkit_read", {{"ref", ref_}});
  EXPECT_NE(whole.find("lines 1-60 of 60"), std::string::npos) << whole;
  EXPECT_NE(whole.find("37\tstep 37: error: linker"), std::string::npos);

  std::string range = CallOpenAI(
      "ctxkit_read", {{"ref", ref_}, {"start_line", 36}, {"end_line", 38}});
  EXPECT_NE(range.find("lines 36-38 of 60"), std::string::npos) << range;
  EXPECT_NE(range.find("36\tstep 36: ok\n37\tstep 37: error"),
            std::string::npos);
  EXPECT_EQ(range.find("39\t"), std::string::npos);
  EXPECT_NE(range.find("[more: ctxkit_read ref="), std::string::npos);

  std::string bytes =
      CallOpenAI("ctxkit_read", {{"ref", ref_}, {"offset", 0}, {"length", 10}});
  EXPECT_NE(bytes.find("bytes 0-10 of"), std::string::npos) << bytes;
  EXPECT_NE(bytes.find("step 1: ok"), std::string::npos);
  EXPECT_NE(bytes.find("offset=10]"), std::string::npos);
}

TEST_F(AgentToolsTest, NullOptionalArgumentsAreAbsent) {
  // What a model bound to a strict schema sends for the arguments it
  // leaves out: the same answer as without them.
  std::string plain = CallOpenAI("ctxkit_read", {{"ref", ref_}});
  std::string nulls = CallOpenAI("ctxkit_read", {{"ref", ref_},
                                                 {"start_line", nullptr},
                                                 {"end_line", nullptr},
                                                 {"offset", nullptr},
                                                 {"length", nullptr}});
  EXPECT_EQ(nulls, plain);
  // A required argument is still required.
  EXPECT_NE(CallOpenAI("ctxkit_read", {{"ref", nullptr}}).find("arguments.ref"),
            std::string::npos);
}

TEST_F(AgentToolsTest, ReadCapsWholeReadsAndSaysHowToGoOn) {
  json call = {
      {"id", "c"},
      {"type", "function"},
      {"function",
       {{"name", "ctxkit_read"}, {"arguments", json{{"ref", ref_}}.dump()}}}};
  auto r = CallAgentTool(*session_, call.dump(), {.max_result_bytes = 300});
  ASSERT_TRUE(r.ok());
  const std::string text = json::parse(*r)["content"];
  EXPECT_LT(text.size(), 600u);
  EXPECT_NE(text.find("[more: ctxkit_read ref="), std::string::npos) << text;
}

TEST_F(AgentToolsTest, PeekSearchAndFindRelevant) {
  std::string peek = CallOpenAI("ctxkit_peek", {{"ref", ref_}, {"lines", 3}});
  EXPECT_NE(peek.find("lines 1-3 of 60"), std::string::npos) << peek;

  std::string found = CallOpenAI("ctxkit_search", {{"pattern", "linker"}});
  // Three outputs hold the line; each match names its ref and line.
  EXPECT_NE(found.find(":37\tstep 37: error: linker"), std::string::npos)
      << found;
  EXPECT_NE(found.find("# 3 matches"), std::string::npos) << found;
  // The session's own objects (the chat the model reads already) are not
  // searched.
  std::string chat =
      CallOpenAI("ctxkit_search", {{"pattern", "look for thing"}});
  EXPECT_NE(chat.find("# 0 matches"), std::string::npos) << chat;
  std::string one =
      CallOpenAI("ctxkit_search", {{"pattern", "linker"}, {"ref", ref_}});
  EXPECT_NE(one.find("# 1 match in 1 object"), std::string::npos) << one;

  std::string relevant =
      CallOpenAI("ctxkit_find_relevant",
                 {{"query", "linker cannot find zstd"}, {"top_k", 2}});
  EXPECT_NE(relevant.find("linker cannot find"), std::string::npos) << relevant;
  EXPECT_NE(relevant.find(" offset="), std::string::npos);
}

TEST_F(AgentToolsTest, EachFormatIsAnsweredInItsOwnShape) {
  json responses = {{"type", "function_call"},
                    {"call_id", "fc_1"},
                    {"name", "ctxkit_peek"},
                    {"arguments", json{{"ref", ref_}}.dump()}};
  auto r = CallAgentTool(*session_, responses.dump());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  json out = json::parse(*r);
  EXPECT_EQ(out["type"], "function_call_output");
  EXPECT_EQ(out["call_id"], "fc_1");
  EXPECT_NE(out["output"].get<std::string>().find("step 1: ok"),
            std::string::npos);

  json anthropic = {{"type", "tool_use"},
                    {"id", "toolu_1"},
                    {"name", "ctxkit_peek"},
                    {"input", {{"ref", ref_}}}};
  r = CallAgentTool(*session_, anthropic.dump());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  out = json::parse(*r);
  EXPECT_EQ(out["type"], "tool_result");
  EXPECT_EQ(out["tool_use_id"], "toolu_1");
  EXPECT_FALSE(out.contains("is_error"));
}

TEST_F(AgentToolsTest, AFailingToolIsAResultTheModelReads) {
  std::string missing = CallOpenAI("ctxkit_read", {{"ref", "no/such/key"}});
  EXPECT_EQ(missing.rfind("error: not_found: ", 0), 0u) << missing;

  std::string bad_args =
      CallOpenAI("ctxkit_read", {{"ref", ref_}, {"start_line", 0}});
  EXPECT_EQ(bad_args.rfind("error: invalid_argument: arguments.start_line", 0),
            0u)
      << bad_args;
  std::string both = CallOpenAI(
      "ctxkit_read", {{"ref", ref_}, {"start_line", 2}, {"offset", 3}});
  EXPECT_NE(both.find("not both"), std::string::npos) << both;

  json anthropic = {{"type", "tool_use"},
                    {"id", "toolu_2"},
                    {"name", "ctxkit_read"},
                    {"input", {{"ref", "no/such/key"}}}};
  auto r = CallAgentTool(*session_, anthropic.dump());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(json::parse(*r)["is_error"], true);

  // Arguments that are not JSON reach the model as an error too.
  json garbled = {{"id", "c"},
                  {"type", "function"},
                  {"function", {{"name", "ctxkit_peek"}, {"arguments", "{x"}}}};
  r = CallAgentTool(*session_, garbled.dump());
  ASSERT_TRUE(r.ok());
  EXPECT_NE(json::parse(*r)["content"].get<std::string>().find(
                "arguments: a JSON object is required"),
            std::string::npos);
}

TEST_F(AgentToolsTest, MalformedCallsAndOtherToolsAreRefused) {
  for (const char* call :
       {"", "[]", "{\"type\":\"text\"}", "{\"function\":{\"name\":\"x\"}}",
        "{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"ctxkit_peek\","
        "\"input\":[1]}"}) {
    EXPECT_TRUE(CallAgentTool(*session_, call).status().IsInvalidArgument())
        << call;
  }
  json other = {{"type", "tool_use"},
                {"id", "t"},
                {"name", "get_weather"},
                {"input", json::object()}};
  auto r = CallAgentTool(*session_, other.dump());
  ASSERT_TRUE(r.status().IsInvalidArgument());
  EXPECT_NE(r.status().message().find("not a ctxkit agent tool"),
            std::string::npos);
  EXPECT_TRUE(CallAgentTool(*session_, other.dump(), {.max_result_bytes = 10})
                  .status()
                  .IsInvalidArgument());
}

TEST_F(AgentToolsTest, ActivateAndPinChangeTheNextRender) {
  CallOpenAI("ctxkit_pin", {{"ref", ref_}});
  auto snap = session_->Snapshot();
  ASSERT_TRUE(snap.ok());
  bool pinned = false;
  for (const PoolEntry& e : snap->entries) {
    pinned = pinned || (e.ref == ref_ && e.pinned_version != 0);
  }
  EXPECT_TRUE(pinned);
  std::string unpinned =
      CallOpenAI("ctxkit_pin", {{"ref", ref_}, {"unpin", true}});
  EXPECT_EQ(unpinned.rfind("unpinned", 0), 0u) << unpinned;
  std::string again =
      CallOpenAI("ctxkit_pin", {{"ref", ref_}, {"unpin", true}});
  EXPECT_EQ(again.rfind("error: not_found", 0), 0u) << again;
  EXPECT_EQ(
      CallOpenAI("ctxkit_activate", {{"ref", ref_}}).rfind("activated", 0), 0u);
}

TEST_F(AgentToolsTest, CompactionAskedForFoldsOlderTurnsWithItsInstructions) {
  std::string asked =
      CallOpenAI("ctxkit_compact", {{"instructions", "keep the linker error"}});
  EXPECT_NE(asked.find("next turn"), std::string::npos) << asked;
  auto r = session_->Render({.budget_tokens = 100000});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  // Every turn but the newest keep_turns (2) is folded.
  ASSERT_FALSE(r->compacted.ref.empty());
  EXPECT_EQ(r->compacted.first_message, 0u);
  EXPECT_EQ(r->compacted.turns, 1u);
  auto compaction = store().OpenView("", "agent");
  ASSERT_TRUE(compaction.ok());
  auto text = compaction->Get(*Target::Parse(r->compacted.ref));
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  json c = json::parse(*text);
  EXPECT_EQ(c["instructions"], "keep the linker error");
  EXPECT_EQ(c["summary"].get<std::string>().rfind(
                "Asked to keep: keep the linker error\n", 0),
            0u);
  // The request is used once; the turns read back whole.
  auto next = session_->Render({.budget_tokens = 100000});
  ASSERT_TRUE(next.ok());
  EXPECT_TRUE(next->compacted.ref.empty());
  std::string expanded =
      CallOpenAI("ctxkit_expand", {{"compaction", r->compacted.ref}});
  EXPECT_NE(expanded.find("look for thing 1"), std::string::npos) << expanded;
  // Instructions are bounded.
  EXPECT_TRUE(
      session_->RequestCompaction(std::string(2001, 'x')).IsInvalidArgument());
  EXPECT_TRUE(session_->RequestCompaction("\xff").IsInvalidArgument());
}

// With the tools in the request, placeholders, excerpts and compaction
// blocks name the tool calls that read the rest; without, the CLI/MCP
// verbs. Each form replays as rendered.
TEST_F(AgentToolsTest, PointersNameTheToolsTheRequestCarries) {
  ASSERT_TRUE(session_->RequestCompaction("").ok());
  RenderOptions o{.budget_tokens = 1500};
  o.tools_json = AgentToolsJson(ToolFormat::kOpenAIChat);
  auto with = session_->Render(o);
  ASSERT_TRUE(with.ok()) << with.status().ToString();
  const std::string& text = with->request_json;
  EXPECT_NE(text.find("; ctxkit_expand ck:"), std::string::npos) << text;
  EXPECT_NE(text.find("read the rest with ctxkit_read {\\\"ref\\\":"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("; expand ck:"), std::string::npos);
  auto replay = session_->Replay(with->record);
  ASSERT_TRUE(replay.ok()) << replay.status().ToString();
  EXPECT_EQ(replay->request_json, text);

  auto without = session_->Render({.budget_tokens = 1500});
  ASSERT_TRUE(without.ok());
  EXPECT_NE(without->request_json.find("; expand ck:"), std::string::npos);
  EXPECT_EQ(without->request_json.find("ctxkit_read"), std::string::npos);
  auto replayed = session_->Replay(with->record);
  ASSERT_TRUE(replayed.ok());
  EXPECT_EQ(replayed->request_json, text);
}

// The content of the tool message answering `call_id` in an OpenAI request.
std::string ToolMessage(const std::string& request, const std::string& id) {
  const json parsed = json::parse(request);
  for (const json& m : parsed["messages"]) {
    if (m.value("tool_call_id", "") == id) return m["content"];
  }
  return "";
}

// With the tools in the request, a placeholder names its output by handle,
// "#<chat message>" (at most 40 tokens where the ref alone is about 33), and
// every tool that takes a ref takes the handle.
TEST_F(AgentToolsTest, PlaceholdersNameOutputsByHandle) {
  ASSERT_TRUE(session_->Deactivate(ref_).ok());
  RenderOptions o{.budget_tokens = 100000};
  o.tools_json = AgentToolsJson(ToolFormat::kOpenAIChat);
  auto r = session_->Render(o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  // Chat(3): the first tool output is chat message 2.
  const std::string placeholder = ToolMessage(r->request_json, "call_1");
  EXPECT_EQ(placeholder.rfind("[grep output hidden, ", 0), 0u) << placeholder;
  EXPECT_NE(placeholder.find(" tokens; ctxkit_read #2] "), std::string::npos)
      << placeholder;
  const Tokenizer* tok = *Tokenizer::Get();
  EXPECT_LE(tok->Count(placeholder), 40u) << placeholder;
  // Without the tools the ref is spelled out (an outside tool reads it).
  auto plain = session_->Render({.budget_tokens = 100000});
  ASSERT_TRUE(plain.ok());
  const std::string spelled = ToolMessage(plain->request_json, "call_1");
  EXPECT_NE(spelled.find("; get " + ref_ + "] "), std::string::npos) << spelled;
  EXPECT_GT(tok->Count(spelled), tok->Count(placeholder) + 20);

  auto ref = session_->ToolOutputRef(2);
  ASSERT_TRUE(ref.ok()) << ref.status().ToString();
  EXPECT_EQ(FormatRef(*ref), ref_);
  const std::string line = CallOpenAI(
      "ctxkit_read", {{"ref", "#2"}, {"start_line", 37}, {"end_line", 37}});
  EXPECT_NE(line.find("37\tstep 37: error: linker cannot find -lzstd"),
            std::string::npos)
      << line;
  EXPECT_NE(CallOpenAI("ctxkit_peek", {{"ref", "#2"}}).find("step 1: ok"),
            std::string::npos);
  // A message that is not a tool output, or past the chat, is not found.
  EXPECT_EQ(CallOpenAI("ctxkit_read", {{"ref", "#1"}})
                .rfind("error: not_found: chat message #1", 0),
            0u);
  EXPECT_EQ(
      CallOpenAI("ctxkit_read", {{"ref", "#99"}})
          .rfind("error: not_found: session 'agent' has no chat message #99",
                 0),
      0u);
  EXPECT_TRUE(session_->ToolOutputRef(99).status().IsNotFound());
  // Activated by handle: shown whole again.
  EXPECT_EQ(
      CallOpenAI("ctxkit_activate", {{"ref", "#2"}}).rfind("activated #2: ", 0),
      0u);
  auto shown = session_->Render(o);
  ASSERT_TRUE(shown.ok());
  EXPECT_NE(ToolMessage(shown->request_json, "call_1")
                .find("step 37: error: linker cannot find -lzstd"),
            std::string::npos);
  // Each form replays as rendered.
  auto replay = session_->Replay(r->record);
  ASSERT_TRUE(replay.ok()) << replay.status().ToString();
  EXPECT_EQ(replay->request_json, r->request_json);
}

TEST_F(AgentToolsTest, ARenderCarriesTheToolsAndReplaysWithThem) {
  const std::string tools = AgentToolsJson(ToolFormat::kOpenAIChat);
  auto plain = session_->Render({.budget_tokens = 100000});
  ASSERT_TRUE(plain.ok());
  RenderOptions o{.budget_tokens = 100000};
  o.tools_json = tools;
  auto r = session_->Render(o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  json request = json::parse(r->request_json);
  EXPECT_EQ(request["tools"], json::parse(tools));
  EXPECT_GT(r->tokens, plain->tokens);
  EXPECT_EQ(r->breakdown.Total(), r->tokens);
  EXPECT_LE(r->tokens, 100000u);
  auto replay = session_->Replay(r->record);
  ASSERT_TRUE(replay.ok()) << replay.status().ToString();
  EXPECT_EQ(replay->request_json, r->request_json);
  // The messages come first: a render with tools begins as one without.
  EXPECT_EQ(r->request_json.compare(0, plain->request_json.size() - 1,
                                    plain->request_json, 0,
                                    plain->request_json.size() - 1),
            0);

  o.tools_json = "{\"not\":\"an array\"}";
  EXPECT_TRUE(session_->Render(o).status().IsInvalidArgument());
  o.format = LogFormat::kAnthropic;
  o.tools_json = AgentToolsJson(ToolFormat::kAnthropic);
  auto a = session_->Render(o);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(json::parse(a->request_json)["tools"][0]["name"],
            "ctxkit_activate");
}

}  // namespace
}  // namespace ctxkit
