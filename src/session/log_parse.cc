// Parsing of OpenAI Chat Completions, OpenAI Responses and Anthropic
// message logs (log_parse.h).
//
// Supported content: text (strings or text parts/blocks), assistant tool
// calls, tool results. Anthropic "thinking" blocks are dropped (they are
// not replayable context); any other block or part type (images,
// documents, audio) is refused with its path, so nothing is lost silently.
// Responses items other than messages, function calls and their outputs
// (reasoning, hosted tools' calls, ...) are kept verbatim as "item"
// messages, in order: a Responses render sends them back as they came.

#include "session/log_parse.h"

#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "core/encoding.h"
#include "core/status_macros.h"
#include "text/json_parse.h"

namespace ctxkit::session {
namespace {

using nlohmann::json;

Status Bad(const std::string& path, std::string_view why) {
  return Status::InvalidArgument("log " + path + ": " + std::string(why));
}

// Text of a string or of an array of {"type":"text","text":...} parts
// (Responses: "input_text" and "output_text" parts too).
Result<std::string> TextOf(const json& content, const std::string& path,
                           bool allow_null, bool responses = false) {
  if (content.is_null() && allow_null) return std::string();
  if (content.is_string()) return content.get<std::string>();
  if (!content.is_array()) {
    return Bad(path, "content must be a string or an array of parts");
  }
  std::string out;
  for (size_t i = 0; i < content.size(); ++i) {
    const json& part = content[i];
    std::string p = path + "[" + std::to_string(i) + "]";
    if (!part.is_object() || !part.contains("type") ||
        !part["type"].is_string()) {
      return Bad(p, "a content part must be an object with a string type");
    }
    std::string type = part["type"].get<std::string>();
    if (type == "thinking" || type == "redacted_thinking") continue;
    const bool text_part =
        type == "text" ||
        (responses && (type == "input_text" || type == "output_text"));
    if (!text_part) {
      return Bad(
          p, "unsupported content type '" + type + "' (only text is ingested)");
    }
    if (!part.contains("text") || !part["text"].is_string()) {
      return Bad(p, "a text part needs a string 'text'");
    }
    if (!out.empty()) out += "\n";
    out += part["text"].get<std::string>();
  }
  return out;
}

Status CheckCallId(const std::string& id, const std::string& path) {
  if (id.empty() || id.size() > 128) return Bad(path, "id must be 1-128 bytes");
  for (char c : id) {
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
                    (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
    if (!ok)
      return Bad(path, "id '" + id +
                           "' has a character outside "
                           "[A-Za-z0-9_.-]");
  }
  return Status::Ok();
}

// Arguments must be JSON for the toolcall object; a model's malformed
// argument text is kept verbatim as a JSON string.
std::string ArgumentsJson(const std::string& text) {
  if (text.empty()) return "{}";
  if (ctxkit::text::CheckJson(text, "arguments").ok()) return text;
  return json(text).dump();
}

Result<const json*> MessagesOf(const json& root, LogFormat format) {
  if (root.is_array()) return &root;
  const char* field =
      format == LogFormat::kOpenAIResponses ? "input" : "messages";
  if (!root.is_object()) {
    return Bad("$", "must be an object with \"" + std::string(field) +
                        "\" or an array");
  }
  auto it = root.find(field);
  if (format == LogFormat::kOpenAIResponses) {
    if (it == root.end() || !it->is_array()) {
      return Bad("$.input", "missing or not an array");
    }
    return &*it;
  }
  if (it == root.end() || !it->is_array()) {
    return Bad("$.messages", "missing or not an array");
  }
  if (format == LogFormat::kOpenAI && root.contains("system")) {
    return Bad("$.system",
               "not part of the OpenAI format (use a system "
               "message, or --format anthropic)");
  }
  return &*it;
}

// The calls a log's results may answer: its own, then earlier ones.
class CallTable {
 public:
  explicit CallTable(const KnownCalls& earlier) : earlier_(earlier) {}
  void Add(const std::string& id, std::string name, std::string arguments) {
    own_[id] = {std::move(name), std::move(arguments)};
  }
  // nullptr when no call has this id.
  const std::pair<std::string, std::string>* Find(const std::string& id) const {
    auto it = own_.find(id);
    if (it != own_.end()) return &it->second;
    auto e = earlier_.find(id);
    return e != earlier_.end() ? &e->second : nullptr;
  }

 private:
  const KnownCalls& earlier_;
  KnownCalls own_;
};

// A successful tool result answering call `id` (role "tool", the call's
// tool and arguments), or the error naming `field` when no call has it.
Result<ParsedMessage> ToolResult(const CallTable& calls, const std::string& id,
                                 const std::string& path, const char* field,
                                 const char* call_kind) {
  const auto* call = calls.Find(id);
  if (call == nullptr) {
    return Bad(path, std::string(field) + " '" + id + "' matches no earlier " +
                         call_kind);
  }
  ParsedMessage p;
  p.message.role = "tool";
  p.message.call_id = id;
  p.message.tool = call->first;
  p.message.status = "ok";
  p.arguments = ArgumentsJson(call->second);
  return p;
}

Result<ParsedLog> ParseOpenAI(const json& msgs, const KnownCalls& earlier) {
  CallTable calls(earlier);
  ParsedLog log;
  for (size_t i = 0; i < msgs.size(); ++i) {
    const json& m = msgs[i];
    const std::string path = "messages[" + std::to_string(i) + "]";
    if (!m.is_object() || !m.contains("role") || !m["role"].is_string()) {
      return Bad(path, "a message must be an object with a string role");
    }
    ParsedItem item;
    item.canonical = m.dump();
    const std::string role = m["role"].get<std::string>();
    const json content = m.value("content", json());
    if (role == "system" || role == "developer") {
      CTXKIT_ASSIGN_OR_RETURN(std::string text,
                              TextOf(content, path + ".content", false));
      if (!log.system.empty()) log.system += "\n\n";
      log.system += text;
    } else if (role == "user") {
      ParsedMessage p;
      p.message.role = "user";
      CTXKIT_ASSIGN_OR_RETURN(p.message.text,
                              TextOf(content, path + ".content", false));
      item.messages.push_back(std::move(p));
    } else if (role == "assistant") {
      ParsedMessage p;
      p.message.role = "assistant";
      CTXKIT_ASSIGN_OR_RETURN(p.message.text,
                              TextOf(content, path + ".content", true));
      if (auto tc = m.find("tool_calls"); tc != m.end() && !tc->is_null()) {
        if (!tc->is_array()) return Bad(path + ".tool_calls", "not an array");
        for (size_t k = 0; k < tc->size(); ++k) {
          const json& c = (*tc)[k];
          std::string cp = path + ".tool_calls[" + std::to_string(k) + "]";
          if (!c.is_object() || !c.contains("id") || !c["id"].is_string() ||
              !c.contains("function") || !c["function"].is_object()) {
            return Bad(cp, "needs a string id and a function object");
          }
          const json& f = c["function"];
          if (!f.contains("name") || !f["name"].is_string()) {
            return Bad(cp + ".function.name", "missing or not a string");
          }
          std::string args;
          if (f.contains("arguments")) {
            if (!f["arguments"].is_string()) {
              return Bad(cp + ".function.arguments", "must be a string");
            }
            args = f["arguments"].get<std::string>();
          }
          ToolCallRef r{c["id"].get<std::string>(),
                        f["name"].get<std::string>(), args};
          CTXKIT_RETURN_IF_ERROR(CheckCallId(r.id, cp + ".id"));
          calls.Add(r.id, r.name, args);
          p.message.tool_calls.push_back(std::move(r));
        }
      }
      item.messages.push_back(std::move(p));
    } else if (role == "tool") {
      if (!m.contains("tool_call_id") || !m["tool_call_id"].is_string()) {
        return Bad(path + ".tool_call_id", "missing or not a string");
      }
      CTXKIT_ASSIGN_OR_RETURN(
          ParsedMessage p,
          ToolResult(calls, m["tool_call_id"].get<std::string>(), path,
                     "tool_call_id", "assistant tool call"));
      CTXKIT_ASSIGN_OR_RETURN(p.output,
                              TextOf(content, path + ".content", false));
      item.messages.push_back(std::move(p));
    } else {
      return Bad(path + ".role", "unsupported role '" + role + "'");
    }
    log.items.push_back(std::move(item));
  }
  return log;
}

Result<ParsedLog> ParseAnthropic(const json& root, const json& msgs,
                                 const KnownCalls& earlier) {
  CallTable calls(earlier);
  ParsedLog log;
  if (root.is_object() && root.contains("system")) {
    CTXKIT_ASSIGN_OR_RETURN(log.system,
                            TextOf(root["system"], "$.system", false));
  }
  for (size_t i = 0; i < msgs.size(); ++i) {
    const json& m = msgs[i];
    const std::string path = "messages[" + std::to_string(i) + "]";
    if (!m.is_object() || !m.contains("role") || !m["role"].is_string() ||
        !m.contains("content")) {
      return Bad(path, "a message must be an object with role and content");
    }
    ParsedItem item;
    item.canonical = m.dump();
    const std::string role = m["role"].get<std::string>();
    if (role != "user" && role != "assistant") {
      return Bad(path + ".role", "must be user or assistant");
    }
    const json& content = m["content"];
    ChatMessage text_msg;
    text_msg.role = role;
    if (content.is_string()) {
      text_msg.text = content.get<std::string>();
    } else if (!content.is_array()) {
      return Bad(path + ".content", "must be a string or an array of blocks");
    } else {
      for (size_t k = 0; k < content.size(); ++k) {
        const json& b = content[k];
        std::string bp = path + ".content[" + std::to_string(k) + "]";
        if (!b.is_object() || !b.contains("type") || !b["type"].is_string()) {
          return Bad(bp, "a block must be an object with a string type");
        }
        const std::string type = b["type"].get<std::string>();
        if (type == "text") {
          if (!b.contains("text") || !b["text"].is_string()) {
            return Bad(bp, "a text block needs a string 'text'");
          }
          if (!text_msg.text.empty()) text_msg.text += "\n";
          text_msg.text += b["text"].get<std::string>();
        } else if (type == "thinking" || type == "redacted_thinking") {
          continue;
        } else if (type == "tool_use" && role == "assistant") {
          if (!b.contains("id") || !b["id"].is_string() ||
              !b.contains("name") || !b["name"].is_string()) {
            return Bad(bp, "a tool_use block needs string id and name");
          }
          json input = b.value("input", json::object());
          ToolCallRef r{b["id"].get<std::string>(),
                        b["name"].get<std::string>(), input.dump()};
          CTXKIT_RETURN_IF_ERROR(CheckCallId(r.id, bp + ".id"));
          calls.Add(r.id, r.name, r.arguments);
          text_msg.tool_calls.push_back(std::move(r));
        } else if (type == "tool_result" && role == "user") {
          if (!b.contains("tool_use_id") || !b["tool_use_id"].is_string()) {
            return Bad(bp + ".tool_use_id", "missing or not a string");
          }
          ParsedMessage p;
          p.message.role = "tool";
          p.message.call_id = b["tool_use_id"].get<std::string>();
          const auto* call = calls.Find(p.message.call_id);
          if (call == nullptr) {
            return Bad(bp, "tool_use_id '" + p.message.call_id +
                               "' matches no earlier tool_use block");
          }
          p.message.tool = call->first;
          p.arguments = call->second;
          bool is_error = false;
          if (b.contains("is_error")) {
            if (!b["is_error"].is_boolean()) {
              return Bad(bp + ".is_error", "must be a boolean");
            }
            is_error = b["is_error"].get<bool>();
          }
          p.message.status = is_error ? "error" : "ok";
          if (b.contains("content")) {
            CTXKIT_ASSIGN_OR_RETURN(
                p.output, TextOf(b["content"], bp + ".content", false));
          }
          item.messages.push_back(std::move(p));
        } else {
          return Bad(bp, "unsupported block type '" + type + "' in a " + role +
                             " message");
        }
      }
    }
    // Tool results come first in a user turn; its text follows them.
    if (!text_msg.text.empty() || !text_msg.tool_calls.empty() ||
        item.messages.empty()) {
      ParsedMessage p;
      p.message = std::move(text_msg);
      item.messages.push_back(std::move(p));
    }
    log.items.push_back(std::move(item));
  }
  return log;
}

// A Responses message item: system/developer text, or a user or
// assistant message.
Status ResponsesMessage(const json& m, const std::string& path, ParsedLog* log,
                        ParsedItem* item) {
  if (!m.contains("role") || !m["role"].is_string()) {
    return Bad(path + ".role", "missing or not a string");
  }
  const std::string role = m["role"].get<std::string>();
  CTXKIT_ASSIGN_OR_RETURN(
      std::string text,
      TextOf(m.value("content", json()), path + ".content", false, true));
  if (role == "system" || role == "developer") {
    if (!log->system.empty()) log->system += "\n\n";
    log->system += text;
    return Status::Ok();
  }
  if (role != "user" && role != "assistant") {
    return Bad(path + ".role", "unsupported role '" + role + "'");
  }
  ParsedMessage p;
  p.message.role = role;
  p.message.text = std::move(text);
  item->messages.push_back(std::move(p));
  return Status::Ok();
}

// A string field of item `m`, or the error naming it.
Result<std::string> ItemString(const json& m, const char* field,
                               const std::string& path) {
  auto it = m.find(field);
  if (it == m.end() || !it->is_string()) {
    return Bad(path + "." + field, "missing or not a string");
  }
  return it->get<std::string>();
}

Result<ParsedLog> ParseResponses(const json& items, const KnownCalls& earlier) {
  CallTable calls(earlier);
  ParsedLog log;
  for (size_t i = 0; i < items.size(); ++i) {
    const json& m = items[i];
    const std::string path = "input[" + std::to_string(i) + "]";
    if (!m.is_object()) return Bad(path, "an item must be an object");
    ParsedItem item;
    item.canonical = m.dump();
    const std::string type = text::StringOr(m, "type", "message");
    if (type == "message") {
      CTXKIT_RETURN_IF_ERROR(ResponsesMessage(m, path, &log, &item));
    } else if (type == "function_call") {
      ToolCallRef r;
      CTXKIT_ASSIGN_OR_RETURN(r.id, ItemString(m, "call_id", path));
      CTXKIT_ASSIGN_OR_RETURN(r.name, ItemString(m, "name", path));
      if (m.contains("arguments")) {
        CTXKIT_ASSIGN_OR_RETURN(r.arguments, ItemString(m, "arguments", path));
      }
      CTXKIT_RETURN_IF_ERROR(CheckCallId(r.id, path + ".call_id"));
      calls.Add(r.id, r.name, r.arguments);
      ParsedMessage p;
      p.message.role = "assistant";
      p.message.tool_calls.push_back(std::move(r));
      item.messages.push_back(std::move(p));
    } else if (type == "function_call_output") {
      CTXKIT_ASSIGN_OR_RETURN(std::string id, ItemString(m, "call_id", path));
      CTXKIT_ASSIGN_OR_RETURN(
          ParsedMessage p,
          ToolResult(calls, id, path, "call_id", "function_call"));
      CTXKIT_ASSIGN_OR_RETURN(p.output, TextOf(m.value("output", json()),
                                               path + ".output", false, true));
      item.messages.push_back(std::move(p));
    } else {
      // Reasoning, hosted tools' calls, item references: kept as they are.
      ParsedMessage p;
      p.message.role = kItemRole;
      p.message.text = item.canonical;
      item.messages.push_back(std::move(p));
    }
    log.items.push_back(std::move(item));
  }
  return log;
}

}  // namespace

Result<ParsedLog> ParseLog(std::string_view text, LogFormat format,
                           const KnownCalls& earlier) {
  if (!core::IsValidUtf8(text)) {
    return Status::InvalidArgument("log: not valid UTF-8");
  }
  CTXKIT_ASSIGN_OR_RETURN(json root, text::ParseJson(text, "log"));
  CTXKIT_ASSIGN_OR_RETURN(const json* msgs, MessagesOf(root, format));
  if (format == LogFormat::kOpenAI) return ParseOpenAI(*msgs, earlier);
  if (format == LogFormat::kOpenAIResponses) {
    ParsedLog log;
    if (root.is_object() && root.contains("instructions")) {
      CTXKIT_ASSIGN_OR_RETURN(
          log.system, TextOf(root["instructions"], "$.instructions", false));
    }
    CTXKIT_ASSIGN_OR_RETURN(ParsedLog items, ParseResponses(*msgs, earlier));
    if (!log.system.empty() && !items.system.empty()) log.system += "\n\n";
    items.system = log.system + items.system;
    return items;
  }
  return ParseAnthropic(root, *msgs, earlier);
}

}  // namespace ctxkit::session
