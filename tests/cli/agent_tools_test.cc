// The agent tools from the shell: session tools in each format, session
// call answering a model's call in its own shape, render --tools, and
// session compact.

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/cli_test_util.h"

namespace ctxkit::cli::testing {
namespace {

using nlohmann::json;

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

class AgentToolsCliTest : public CliTest {
 protected:
  std::string WriteFile(const std::string& name, const std::string& bytes) {
    std::string path = tmp_.path() + "/" + name;
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }

  // A session whose chat holds `turns` turns, each one tool output.
  void Chat(int turns) {
    Ok({"session", "new", "s"});
    json messages = json::array();
    for (int t = 1; t <= turns; ++t) {
      const std::string id = "call_" + std::to_string(t);
      std::string output;
      for (int i = 1; i <= 50; ++i) {
        output += "line " + std::to_string(i) +
                  (i == 42 ? " answer=" + std::to_string(t * 11) : "") + "\n";
      }
      messages.push_back({{"role", "user"}, {"content", "run " + id}});
      messages.push_back(
          {{"role", "assistant"},
           {"content", nullptr},
           {"tool_calls",
            json::array(
                {{{"id", id},
                  {"type", "function"},
                  {"function", {{"name", "run"}, {"arguments", "{}"}}}}})}});
      messages.push_back(
          {{"role", "tool"}, {"tool_call_id", id}, {"content", output}});
      messages.push_back({{"role", "assistant"}, {"content", "done"}});
    }
    Ok({"session", "ingest", "s",
        WriteFile("chat.json", json{{"messages", messages}}.dump())});
  }
};

TEST_F(AgentToolsCliTest, ToolsPrintsEachFormat) {
  json chat = json::parse(Ok({"session", "tools"}));
  ASSERT_EQ(chat.size(), 8u);
  EXPECT_EQ(chat[0]["function"]["name"], "ctxkit_activate");
  json responses =
      json::parse(Ok({"session", "tools", "--format", "openai-responses"}));
  EXPECT_EQ(responses[0]["name"], "ctxkit_activate");
  json anthropic = json::parse(Ok({"session", "tools", "-f", "anthropic"}));
  EXPECT_TRUE(anthropic[0].contains("input_schema"));
  ProcessResult bad = Run({"session", "tools", "--format", "gemini"});
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_TRUE(Contains(bad.err, "--format")) << bad.err;
}

TEST_F(AgentToolsCliTest, CallAnswersInTheCallsShape) {
  Chat(2);
  json call = {{"type", "tool_use"},
               {"id", "toolu_1"},
               {"name", "ctxkit_search"},
               {"input", {{"pattern", "answer="}}}};
  json result = json::parse(Ok({"session", "call", "s", call.dump()}));
  EXPECT_EQ(result["type"], "tool_result");
  EXPECT_EQ(result["tool_use_id"], "toolu_1");
  const std::string text = result["content"];
  EXPECT_TRUE(Contains(text, "answer=11")) << text;
  EXPECT_TRUE(Contains(text, "answer=22")) << text;
  // From stdin, and a failing tool is a result, not an error.
  json missing = {
      {"id", "c"},
      {"type", "function"},
      {"function",
       {{"name", "ctxkit_read"}, {"arguments", json{{"ref", "nope"}}.dump()}}}};
  json answer = json::parse(Ok({"session", "call", "s", "-"}, missing.dump()));
  EXPECT_EQ(answer["role"], "tool");
  EXPECT_TRUE(
      Contains(answer["content"].get<std::string>(), "error: not_found"));
  // Another tool's call is the harness's to route: refused.
  json other = {{"id", "c"},
                {"type", "function"},
                {"function", {{"name", "get_weather"}, {"arguments", "{}"}}}};
  ProcessResult refused = Run({"session", "call", "s", other.dump()});
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
  EXPECT_TRUE(Contains(refused.err, "not a ctxkit agent tool")) << refused.err;
}

TEST_F(AgentToolsCliTest, RenderCarriesTheToolsAndCompactOnRequest) {
  Chat(4);
  json report = Json({"render", "s", "--budget", "100000", "--tools"});
  EXPECT_EQ(report["request"]["tools"].size(), 8u);
  EXPECT_TRUE(report["compacted"].is_null()) << report.dump();
  Ok({"session", "compact", "s", "--instructions", "keep the answers"});
  json compacted = Json({"render", "s", "--budget", "100000", "--tools"});
  ASSERT_FALSE(compacted["compacted"].is_null()) << compacted.dump();
  const std::string request = compacted["request"].dump();
  EXPECT_TRUE(Contains(request, "ctxkit_expand ck:")) << request;
  EXPECT_TRUE(Contains(request, "Asked to keep: keep the answers")) << request;
  // The library's limit on instructions holds here as in Python and MCP.
  ProcessResult long_text = Run(
      {"session", "compact", "s", "--instructions", std::string(2001, 'x')});
  EXPECT_EQ(long_text.exit_code, 2) << long_text.err;
  EXPECT_TRUE(Contains(long_text.err, "at most 2000 bytes")) << long_text.err;
  ProcessResult both = Run({"render", "s", "--at", "1", "--tools"});
  EXPECT_EQ(both.exit_code, 2) << both.err;
}

}  // namespace
}  // namespace ctxkit::cli::testing
