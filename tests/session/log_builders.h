// Synthetic harness logs for the session tests and benchmarks: a system
// prompt and turns of user message, assistant tool call, tool result and
// assistant reply, in OpenAI or Anthropic form.

#ifndef CTXKIT_TESTS_SESSION_LOG_BUILDERS_H_
#define CTXKIT_TESTS_SESSION_LOG_BUILDERS_H_

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

inline nlohmann::json OpenAILog(int turns, int lines = 20,
                                const std::string& system =
                                    "You are a "
                                    "coding agent.") {
  using nlohmann::json;
  json msgs = json::array();
  msgs.push_back({{"role", "system"}, {"content", system}});
  for (int t = 0; t < turns; ++t) {
    std::string id = "call_" + std::to_string(t);
    msgs.push_back({{"role", "user"},
                    {"content", "Please look for thing " + std::to_string(t)}});
    msgs.push_back(
        {{"role", "assistant"},
         {"content", nullptr},
         {"tool_calls",
          json::array({{{"id", id},
                        {"type", "function"},
                        {"function",
                         {{"name", "grep"},
                          {"arguments", "{\"q\":\"thing " + std::to_string(t) +
                                            "\"}"}}}}})}});
    msgs.push_back({{"role", "tool"},
                    {"tool_call_id", id},
                    {"content", ToolOutput(t, lines)}});
    msgs.push_back(
        {{"role", "assistant"},
         {"content", "Found " + std::to_string(lines) + " matches for thing " +
                         std::to_string(t)}});
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

}  // namespace ctxkit::testing

#endif  // CTXKIT_TESTS_SESSION_LOG_BUILDERS_H_
