// JSON forms of the session state, pool entries and the neutral chat.

#include "session/session_state.h"

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "core/status_macros.h"
#include "text/json_parse.h"

namespace ctxkit::session {
namespace {

using nlohmann::json;

// Reads j[name] into *out when present with the right type; false when the
// field is missing or mistyped (callers turn that into Corruption).
template <typename T>
bool Get(const json& j, const char* name, T* out) {
  auto it = j.find(name);
  if (it == j.end()) return false;
  if constexpr (std::is_same_v<T, std::string>) {
    if (!it->is_string()) return false;
  } else if constexpr (std::is_same_v<T, bool>) {
    if (!it->is_boolean()) return false;
  } else {
    if (!it->is_number_unsigned()) return false;
  }
  *out = it->get<T>();
  return true;
}

Status Corrupt(std::string_view what) {
  return Status::Corruption("session state: " + std::string(what));
}

}  // namespace

namespace {

json MessageToJson(const ChatMessage& m) {
  json j = {{"role", m.role}, {"text", m.text}};
  if (!m.tool_calls.empty()) {
    json calls = json::array();
    for (const ToolCallRef& c : m.tool_calls) {
      calls.push_back(
          {{"id", c.id}, {"name", c.name}, {"arguments", c.arguments}});
    }
    j["tool_calls"] = std::move(calls);
  }
  if (m.role == "tool") {
    j["call_id"] = m.call_id;
    j["tool"] = m.tool;
    j["status"] = m.status;
    j["object_id"] = m.object_id;
    j["ref"] = m.ref;
    j["version"] = m.version;
    j["bytes"] = m.bytes;
    j["tokens"] = m.tokens;
    j["summary"] = m.summary;
  }
  return j;
}

Result<ChatMessage> MessageFromJson(const json& j) {
  ChatMessage m;
  if (!j.is_object() || !Get(j, "role", &m.role) || !Get(j, "text", &m.text)) {
    return Corrupt("a chat message lacks role or text");
  }
  if (auto it = j.find("tool_calls"); it != j.end()) {
    if (!it->is_array()) return Corrupt("tool_calls is not an array");
    for (const json& c : *it) {
      ToolCallRef r;
      if (!c.is_object() || !Get(c, "id", &r.id) || !Get(c, "name", &r.name) ||
          !Get(c, "arguments", &r.arguments)) {
        return Corrupt("a tool call lacks id, name or arguments");
      }
      m.tool_calls.push_back(std::move(r));
    }
  }
  if (m.role == "tool") {
    if (!Get(j, "call_id", &m.call_id) || !Get(j, "tool", &m.tool) ||
        !Get(j, "status", &m.status) || !Get(j, "object_id", &m.object_id) ||
        !Get(j, "ref", &m.ref) || !Get(j, "version", &m.version) ||
        !Get(j, "bytes", &m.bytes) || !Get(j, "tokens", &m.tokens) ||
        !Get(j, "summary", &m.summary)) {
      return Corrupt("a tool message lacks a field");
    }
  }
  return m;
}

// The form earlier builds wrote: one JSON array of messages.
Result<std::vector<ChatMessage>> DecodeChatArray(std::string_view text) {
  json arr = ctxkit::text::ParseJsonOrDiscarded(text);
  if (arr.is_discarded() || !arr.is_array()) {
    return Corrupt("the chat object is not a JSON array");
  }
  std::vector<ChatMessage> chat;
  chat.reserve(arr.size());
  for (const json& j : arr) {
    CTXKIT_ASSIGN_OR_RETURN(ChatMessage m, MessageFromJson(j));
    chat.push_back(std::move(m));
  }
  return chat;
}

// One JSON object per line; every line ends in '\n'.
Result<std::vector<ChatMessage>> DecodeChatLines(std::string_view text) {
  std::vector<ChatMessage> chat;
  size_t at = 0;
  while (at < text.size()) {
    const size_t nl = text.find('\n', at);
    if (nl == std::string_view::npos) {
      return Corrupt("the chat's last line is not terminated");
    }
    json j = ctxkit::text::ParseJsonOrDiscarded(text.substr(at, nl - at));
    if (j.is_discarded()) return Corrupt("a chat line is not JSON");
    CTXKIT_ASSIGN_OR_RETURN(ChatMessage m, MessageFromJson(j));
    chat.push_back(std::move(m));
    at = nl + 1;
  }
  return chat;
}

}  // namespace

std::string EncodeChat(const std::vector<ChatMessage>& chat, size_t from) {
  std::string out;
  for (size_t i = from; i < chat.size(); ++i) {
    // dump() escapes control characters, so a message is one line.
    out += MessageToJson(chat[i]).dump();
    out += '\n';
  }
  return out;
}

Result<std::vector<ChatMessage>> DecodeChat(std::string_view text,
                                            ChatEncoding* encoding) {
  const size_t first = text.find_first_not_of(" \t\r\n");
  const bool array = first != std::string_view::npos && text[first] == '[';
  if (encoding != nullptr) {
    *encoding = array ? ChatEncoding::kArray : ChatEncoding::kLines;
  }
  return array ? DecodeChatArray(text) : DecodeChatLines(text);
}

json PolicyToJson(const SessionPolicy& p) {
  return {{"keep_tool_outputs", p.keep_tool_outputs},
          {"min_collapse_tokens", p.min_collapse_tokens},
          {"index_max_tokens", p.index_max_tokens},
          {"compact_trigger_percent", p.compact_trigger_percent},
          {"compact_target_percent", p.compact_target_percent},
          {"keep_turns", p.keep_turns},
          {"compaction_summary_tokens", p.compaction_summary_tokens}};
}

std::string EncodeState(const State& s) {
  json compactions = json::array();
  for (const CompactionInfo& c : s.compactions) {
    compactions.push_back({{"ref", c.ref},
                           {"first", c.first_message},
                           {"end", c.end_message},
                           {"turns", c.turns}});
  }
  json j = {
      {"format", 2},
      {"id", s.id},
      {"policy",
       {{"keep_tool_outputs", s.policy.keep_tool_outputs},
        {"min_collapse_tokens", s.policy.min_collapse_tokens},
        {"index_max_tokens", s.policy.index_max_tokens},
        {"compact_trigger_percent", s.policy.compact_trigger_percent},
        {"compact_target_percent", s.policy.compact_target_percent},
        {"keep_turns", s.policy.keep_turns},
        {"compaction_summary_tokens", s.policy.compaction_summary_tokens}}},
      {"next_seq", s.next_seq},
      {"chat_version", s.chat_version},
      {"chat_whole_version", s.chat_whole_version},
      {"chat_messages", s.chat_messages},
      {"system_version", s.system_version},
      {"ingest_format", s.ingest_format},
      {"ingested_items", s.ingested_items},
      {"ingest_hash", s.ingest_hash},
      {"compactions", std::move(compactions)},
      {"records_key", s.records_key}};
  return j.dump();
}

namespace {

// A uint32 field; false when missing, mistyped or too large.
bool Get32(const json& j, const char* name, uint32_t* out) {
  uint64_t v = 0;
  if (!Get(j, name, &v) || v > UINT32_MAX) return false;
  *out = static_cast<uint32_t>(v);
  return true;
}

Status DecodePolicy(const json& j, uint64_t format, SessionPolicy* p) {
  auto it = j.find("policy");
  if (it == j.end() || !it->is_object() ||
      !Get32(*it, "keep_tool_outputs", &p->keep_tool_outputs) ||
      !Get(*it, "min_collapse_tokens", &p->min_collapse_tokens) ||
      !Get(*it, "index_max_tokens", &p->index_max_tokens)) {
    return Corrupt("bad policy");
  }
  if (format >= 2 &&
      (!Get32(*it, "compact_trigger_percent", &p->compact_trigger_percent) ||
       !Get32(*it, "compact_target_percent", &p->compact_target_percent) ||
       !Get32(*it, "keep_turns", &p->keep_turns) ||
       !Get32(*it, "compaction_summary_tokens",
              &p->compaction_summary_tokens))) {
    return Corrupt("bad policy");
  }
  return Status::Ok();
}

Status DecodeCompactions(const json& j, State* s) {
  auto it = j.find("compactions");
  if (it == j.end() || !it->is_array()) return Corrupt("bad compactions");
  uint64_t end = 0;
  for (const json& c : *it) {
    CompactionInfo info;
    if (!c.is_object() || !Get(c, "ref", &info.ref) ||
        !Get(c, "first", &info.first_message) ||
        !Get(c, "end", &info.end_message) || !Get(c, "turns", &info.turns) ||
        info.first_message != end || info.end_message <= end) {
      return Corrupt("bad compactions");
    }
    end = info.end_message;
    s->compactions.push_back(std::move(info));
  }
  return Status::Ok();
}

}  // namespace

Status DecodeState(const std::string& text, State* s) {
  json j = ctxkit::text::ParseJsonOrDiscarded(text);
  if (j.is_discarded() || !j.is_object()) return Corrupt("not a JSON object");
  uint64_t format = 0;
  if (!Get(j, "format", &format) || format < 1 || format > 2) {
    return Corrupt("unknown format (written by a newer ctxkit?)");
  }
  CTXKIT_RETURN_IF_ERROR(DecodePolicy(j, format, &s->policy));
  if (!Get(j, "id", &s->id) || !Get(j, "next_seq", &s->next_seq) ||
      !Get(j, "chat_version", &s->chat_version) ||
      !Get(j, "chat_messages", &s->chat_messages) ||
      !Get(j, "system_version", &s->system_version) ||
      !Get(j, "ingest_format", &s->ingest_format) ||
      !Get(j, "ingested_items", &s->ingested_items) ||
      !Get(j, "ingest_hash", &s->ingest_hash)) {
    return Corrupt("a field is missing or mistyped");
  }
  if (format >= 2) {
    CTXKIT_RETURN_IF_ERROR(DecodeCompactions(j, s));
    if (!Get(j, "chat_whole_version", &s->chat_whole_version) ||
        !Get(j, "records_key", &s->records_key) ||
        !s->records_key.starts_with(kRecordsKey)) {
      return Corrupt("a field is missing or mistyped");
    }
  } else {
    // Format 1 did not say; treat the current version as written whole.
    s->chat_whole_version = s->chat_version;
    s->records_key = kRecordsKey;  // It rendered no records.
  }
  return Status::Ok();
}

json EntryToJson(const PoolEntry& e, bool with_bookkeeping) {
  json j = {{"id", e.id},
            {"key", e.key},
            {"scope", e.scope},
            {"kind", e.kind},
            {"title", e.title},
            {"version", e.version},
            {"tokens", e.tokens},
            {"size_bytes", e.size_bytes},
            {"ref", e.ref},
            {"active", e.active},
            {"auto_active", e.auto_active},
            {"collapsed", e.collapsed},
            {"pinned_version", e.pinned_version},
            {"from_chat", e.from_chat},
            {"compacted", e.compacted}};
  if (with_bookkeeping) {
    j["seq"] = e.seq;
    j["locked"] = e.locked;
    j["active_seq"] = e.active_seq;
  }
  return j;
}

std::string EncodeEntry(const PoolEntry& e) {
  return EntryToJson(e, /*with_bookkeeping=*/true).dump();
}

Result<PoolEntry> DecodeEntry(const std::string& text) {
  json j = ctxkit::text::ParseJsonOrDiscarded(text);
  PoolEntry e;
  if (j.is_discarded() || !j.is_object() || !Get(j, "id", &e.id) ||
      !Get(j, "key", &e.key) || !Get(j, "scope", &e.scope) ||
      !Get(j, "kind", &e.kind) || !Get(j, "title", &e.title) ||
      !Get(j, "version", &e.version) || !Get(j, "tokens", &e.tokens) ||
      !Get(j, "size_bytes", &e.size_bytes) || !Get(j, "ref", &e.ref) ||
      !Get(j, "seq", &e.seq) || !Get(j, "locked", &e.locked) ||
      !Get(j, "active", &e.active) || !Get(j, "auto_active", &e.auto_active) ||
      !Get(j, "collapsed", &e.collapsed) ||
      !Get(j, "active_seq", &e.active_seq) ||
      !Get(j, "pinned_version", &e.pinned_version) ||
      !Get(j, "from_chat", &e.from_chat)) {
    return Corrupt("a pool entry is malformed");
  }
  // Written by builds that could compact; false before.
  if (j.contains("compacted") && !Get(j, "compacted", &e.compacted)) {
    return Corrupt("a pool entry is malformed");
  }
  return e;
}

Status ValidatePolicy(const SessionPolicy& p) {
  if (p.index_max_tokens < 1 || p.index_max_tokens > 10'000'000) {
    return Status::InvalidArgument("index_max_tokens must be 1-10000000");
  }
  if (p.keep_tool_outputs > 1'000'000) {
    return Status::InvalidArgument("keep_tool_outputs must be <= 1000000");
  }
  if (p.compact_target_percent < 1 ||
      p.compact_target_percent >= p.compact_trigger_percent ||
      p.compact_trigger_percent > 100) {
    return Status::InvalidArgument(
        "compact percentages must satisfy 1 <= target < trigger <= 100 "
        "(got target " +
        std::to_string(p.compact_target_percent) + ", trigger " +
        std::to_string(p.compact_trigger_percent) + ")");
  }
  if (p.keep_turns < 1 || p.keep_turns > 1'000'000) {
    return Status::InvalidArgument("keep_turns must be 1-1000000");
  }
  if (p.compaction_summary_tokens < 16 ||
      p.compaction_summary_tokens > 100'000) {
    return Status::InvalidArgument(
        "compaction_summary_tokens must be 16-100000");
  }
  return Status::Ok();
}

}  // namespace ctxkit::session
