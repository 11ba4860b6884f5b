// One turn of an OpenAI-format chat with a tool call: the user's question,
// the assistant's call, the tool's output and the answer. The inspector's
// tests and fixture build sessions from these.

#ifndef CTXKIT_TESTS_INSPECT_TOOL_TURN_H_
#define CTXKIT_TESTS_INSPECT_TOOL_TURN_H_

#include <nlohmann/json.hpp>
#include <string>

namespace ctxkit::testing {

inline nlohmann::json ToolTurn(int turn, const std::string& output) {
  using nlohmann::json;
  const std::string n = std::to_string(turn), id = "call_" + n;
  json call = {{"id", id},
               {"type", "function"},
               {"function",
                {{"name", "grep"},
                 {"arguments", json{{"pattern", "item " + n}}.dump()}}}};
  return json::array(
      {{{"role", "user"}, {"content", "Turn " + n + ": find item " + n}},
       {{"role", "assistant"},
        {"content", nullptr},
        {"tool_calls", json::array({call})}},
       {{"role", "tool"}, {"tool_call_id", id}, {"content", output}},
       {{"role", "assistant"}, {"content", "Item " + n + " is done."}}});
}

}  // namespace ctxkit::testing

#endif  // CTXKIT_TESTS_INSPECT_TOOL_TURN_H_
