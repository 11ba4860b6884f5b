// Synthetic harness logs for the session tests and benchmarks: a system
// prompt and turns of user message, assistant tool call, tool result and
// assistant reply, in OpenAI or Anthropic form.

#ifndef CTXKIT_TESTS_SESSION_LOG_BUILDERS_H_
#define CTXKIT_TESTS_SESSION_LOG_BUILDERS_H_

#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace ctxkit::testing {

// Deterministic tool output of about `lines` lines for turn `turn`.
inline std::string ToolOutput(int turn, int lines) {
  std::string out;
  for (int i = 0; i < lines; ++i) {
    out += "src/module_" + std::to_string(turn) + "/file_" + std::to_string(i) +
           ".cc:" + std::to_string(10 + i) + ": result line for query " +
           std::to_string(turn) + "\n";
  }
  return out;
}

// The four OpenAI messages of turn `turn`: user question, assistant tool
// call, tool result `output`, assistant answer.
inline nlohmann::json OpenAITurnWithOutput(int turn,
                                           const std::string& output) {
  using nlohmann::json;
  const std::string t = std::to_string(turn);
  const std::string id = "call_" + t;
  const auto lines = std::count(output.begin(), output.end(), '\n');
  json msgs = json::array();
  msgs.push_back({{"role", "user"}, {"content", "Please look for thing " + t}});
  msgs.push_back(
      {{"role", "assistant"},
       {"content", nullptr},
       {"tool_calls",
        json::array({{{"id", id},
                      {"type", "function"},
                      {"function",
                       {{"name", "grep"},
                        {"arguments", "{\"q\":\"thing " + t + "\"}"}}}}})}});
  msgs.push_back({{"role", "tool"}, {"tool_call_id", id}, {"content", output}});
  msgs.push_back({{"role", "assistant"},
                  {"content", "Found " + std::to_string(lines) +
                                  " matches for thing " + t}});
  return msgs;
}

// OpenAITurnWithOutput with a tool result of about `lines` lines.
inline nlohmann::json OpenAITurn(int turn, int lines = 20) {
  return OpenAITurnWithOutput(turn, ToolOutput(turn, lines));
}

inline nlohmann::json OpenAILog(int turns, int lines = 20,
                                const std::string& system =
                                    "You are a "
                                    "coding agent.") {
  using nlohmann::json;
  json msgs = json::array();
  msgs.push_back({{"role", "system"}, {"content", system}});
  for (int t = 0; t < turns; ++t) {
    for (json& m : OpenAITurn(t, lines)) msgs.push_back(std::move(m));
  }
  return {{"messages", msgs}};
}

inline nlohmann::json AnthropicLog(int turns, int lines = 20,
                                   const std::string& system =
                                       "You are a "
                                       "coding agent.") {
  using nlohmann::json;
  json msgs = json::array();
  for (int t = 0; t < turns; ++t) {
    std::string id = "toolu_" + std::to_string(t);
    json user_content = json::array();
    if (t > 0) {
      // The previous turn's tool result opens this user turn.
      user_content.push_back({{"type", "tool_result"},
                              {"tool_use_id", "toolu_" + std::to_string(t - 1)},
                              {"content", ToolOutput(t - 1, lines)},
                              {"is_error", t % 7 == 3}});
    }
    user_content.push_back(
        {{"type", "text"},
         {"text", "Please look for thing " + std::to_string(t)}});
    msgs.push_back({{"role", "user"}, {"content", user_content}});
    msgs.push_back(
        {{"role", "assistant"},
         {"content",
          json::array({{{"type", "text"}, {"text", "Searching."}},
                       {{"type", "tool_use"},
                        {"id", id},
                        {"name", "grep"},
                        {"input", {{"q", "thing " + std::to_string(t)}}}}})}});
  }
  if (turns > 0) {
    msgs.push_back(
        {{"role", "user"},
         {"content",
          json::array({{{"type", "tool_result"},
                        {"tool_use_id", "toolu_" + std::to_string(turns - 1)},
                        {"content", ToolOutput(turns - 1, lines)}}})}});
  }
  return {{"system", system}, {"messages", msgs}};
}

// A harness log with the variety of a real coding session, deterministic
// for a given turn count: user requests of varied length, assistant turns
// that think aloud and make one or two tool calls (grep, read_file,
// run_tests), tool outputs of 2-13 lines, and replies of a few sentences.
// 300 turns are about 468 KB of JSON. Each prefix of turns is the log a
// harness would send after that turn.
inline nlohmann::json RealisticOpenAILog(int turns) {
  using nlohmann::json;
  uint64_t seed = 0x2545F4914F6CDD1Dull;
  auto next = [&seed](int n) {  // 0..n-1, xorshift64.
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    return static_cast<int>(seed % static_cast<uint64_t>(n));
  };
  auto sentences = [&next](int n, const std::string& topic) {
    static const char* kWords[] = {
        "the",    "parser", "handles", "each",   "request", "before", "it",
        "checks", "cache",  "entry",   "and",    "returns", "error",  "when",
        "value",  "is",     "missing", "config", "loader",  "path",   "test"};
    std::string out;
    for (int i = 0; i < n; ++i) {
      out += i == 0 ? "About " + topic + ": " : " ";
      const int words = 8 + next(14);
      for (int w = 0; w < words; ++w) {
        out += (w ? " " : "") + std::string(kWords[next(21)]);
      }
      out += ".";
    }
    return out;
  };
  static const char* kTools[] = {"grep", "read_file", "run_tests"};
  json msgs = json::array();
  msgs.push_back({{"role", "system"},
                  {"content",
                   "You are a coding agent working in a C++ repository. Use "
                   "the tools to read and search files; keep answers short "
                   "and cite the files you used."}});
  for (int t = 0; t < turns; ++t) {
    const std::string topic =
        "module_" + std::to_string(t % 37) + "/item " + std::to_string(t);
    msgs.push_back(
        {{"role", "user"}, {"content", sentences(1 + next(3), topic)}});
    json calls = json::array();
    const int ncalls = 1 + (next(3) == 0 ? 1 : 0);
    for (int c = 0; c < ncalls; ++c) {
      const std::string tool = kTools[next(3)];
      calls.push_back(
          {{"id", "call_" + std::to_string(t) + "_" + std::to_string(c)},
           {"type", "function"},
           {"function",
            {{"name", tool},
             {"arguments",
              json{{"path", "src/module_" + std::to_string(t % 37) + "/"},
                   {"query", "item " + std::to_string(t)}}
                  .dump()}}}});
    }
    msgs.push_back({{"role", "assistant"},
                    {"content", sentences(next(2), topic)},
                    {"tool_calls", calls}});
    for (const json& call : calls) {
      std::string out;
      const int lines = 2 + next(12);
      for (int i = 0; i < lines; ++i) {
        out += "src/module_" + std::to_string(t % 37) + "/file_" +
               std::to_string(next(50)) +
               ".cc:" + std::to_string(1 + next(900)) + ": " +
               sentences(1, "line " + std::to_string(i)).substr(0, 40) + "\n";
      }
      msgs.push_back(
          {{"role", "tool"}, {"tool_call_id", call["id"]}, {"content", out}});
    }
    msgs.push_back(
        {{"role", "assistant"}, {"content", sentences(1 + next(4), topic)}});
  }
  return {{"messages", msgs}};
}

}  // namespace ctxkit::testing

#endif  // CTXKIT_TESTS_SESSION_LOG_BUILDERS_H_
