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

std::set<std::string> NewestOutputIds(const std::vector<ChatMessage>& chat,
                                      size_t first, size_t keep) {
  std::set<std::string> kept;
  for (size_t i = chat.size(); i-- > first && kept.size() < keep;) {
    if (chat[i].role == "tool") kept.insert(chat[i].object_id);
  }
  return kept;
}

size_t NewestOutputsFrom(const std::vector<ChatMessage>& chat, size_t first) {
  for (size_t i = chat.size(); i-- > first;) {
    if (chat[i].role == "assistant" && !chat[i].tool_calls.empty()) {
      return i + 1;
    }
  }
  return chat.size();
}

json PolicyToJson(const SessionPolicy& p) {
  return {{"keep_tool_outputs", p.keep_tool_outputs},
          {"min_collapse_tokens", p.min_collapse_tokens},
          {"min_collapse_percent", p.min_collapse_percent},
          {"index_max_tokens", p.index_max_tokens},
          {"index_max_percent", p.index_max_percent},
          {"compact_trigger_percent", p.compact_trigger_percent},
          {"compact_target_percent", p.compact_target_percent},
          {"keep_turns", p.keep_turns},
          {"compaction_summary_tokens", p.compaction_summary_tokens},
          {"collapse_at_ingestion", p.collapse_at_ingestion},
          {"cache_ttl_seconds", p.cache_ttl_seconds}};
}

std::string EncodeState(const State& s) {
  json compactions = json::array();
  for (const CompactionInfo& c : s.compactions) {
    compactions.push_back({{"ref", c.ref},
                           {"first", c.first_message},
                           {"end", c.end_message},
                           {"turns", c.turns}});
  }
  json j = {{"format", 2},
            {"id", s.id},
            {"policy", PolicyToJson(s.policy)},
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
  if (s.listed_entries_known) j["listed_entries"] = s.listed_entries;
  if (s.compact_request) {
    j["compact_request"] = {{"instructions", *s.compact_request}};
  }
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
  // Written since the thresholds scale with the budget; states written
  // before keep the defaults' shares.
  for (auto [name, field] :
       {std::pair{"min_collapse_percent", &p->min_collapse_percent},
        std::pair{"index_max_percent", &p->index_max_percent}}) {
    if (it->contains(name) && !Get32(*it, name, field)) {
      return Corrupt("bad policy");
    }
  }
  // Written since ingestion may collapse and a cold cache relieve early;
  // states written before keep the defaults.
  if (it->contains("cache_ttl_seconds") &&
      !Get32(*it, "cache_ttl_seconds", &p->cache_ttl_seconds)) {
    return Corrupt("bad policy");
  }
  if (it->contains("collapse_at_ingestion") &&
      !Get(*it, "collapse_at_ingestion", &p->collapse_at_ingestion)) {
    return Corrupt("bad policy");
  }
  return Status::Ok();
}

// The pending compaction request, when the state has one.
Status DecodeCompactRequest(const json& j, State* s) {
  auto it = j.find("compact_request");
  if (it == j.end()) return Status::Ok();
  std::string instructions;
  if (!it->is_object() || !Get(*it, "instructions", &instructions)) {
    return Corrupt("bad compact_request");
  }
  s->compact_request = std::move(instructions);
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
  if (j.contains("listed_entries")) {
    if (!Get(j, "listed_entries", &s->listed_entries)) {
      return Corrupt("a field is missing or mistyped");
    }
    s->listed_entries_known = true;
  }
  if (format >= 2) {
    CTXKIT_RETURN_IF_ERROR(DecodeCompactions(j, s));
    CTXKIT_RETURN_IF_ERROR(DecodeCompactRequest(j, s));
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

namespace {

// The fields of a pool entry's JSON form, and where each goes.
enum class Kind : uint8_t { kString, kBool, kNumber };
struct Field {
  const char* name;
  Kind kind;
  std::string PoolEntry::*str;
  bool PoolEntry::*flag;
  uint64_t PoolEntry::*num;
  uint32_t bit;  // 0: optional.
};
constexpr Field S(const char* n, std::string PoolEntry::*m, uint32_t bit) {
  return {n, Kind::kString, m, nullptr, nullptr, bit};
}
constexpr Field B(const char* n, bool PoolEntry::*m, uint32_t bit) {
  return {n, Kind::kBool, nullptr, m, nullptr, bit};
}
constexpr Field U(const char* n, uint64_t PoolEntry::*m, uint32_t bit) {
  return {n, Kind::kNumber, nullptr, nullptr, m, bit};
}
// In key order, the order EncodeEntry writes them in (json objects sort
// their keys), so a lookup usually matches the field after the last one.
constexpr Field kFields[] = {
    B("active", &PoolEntry::active, 1u << 0),
    U("active_seq", &PoolEntry::active_seq, 1u << 1),
    B("auto_active", &PoolEntry::auto_active, 1u << 2),
    B("collapsed", &PoolEntry::collapsed, 1u << 3),
    // Written by builds that could compact; false before.
    B("compacted", &PoolEntry::compacted, 0),
    B("from_chat", &PoolEntry::from_chat, 1u << 4),
    S("id", &PoolEntry::id, 1u << 5),
    S("key", &PoolEntry::key, 1u << 6),
    S("kind", &PoolEntry::kind, 1u << 7),
    B("locked", &PoolEntry::locked, 1u << 8),
    U("pinned_version", &PoolEntry::pinned_version, 1u << 9),
    S("ref", &PoolEntry::ref, 1u << 10),
    S("scope", &PoolEntry::scope, 1u << 11),
    U("seq", &PoolEntry::seq, 1u << 12),
    U("size_bytes", &PoolEntry::size_bytes, 1u << 13),
    S("title", &PoolEntry::title, 1u << 14),
    U("tokens", &PoolEntry::tokens, 1u << 15),
    U("version", &PoolEntry::version, 1u << 16),
};
constexpr size_t kFieldCount = sizeof(kFields) / sizeof(kFields[0]);
constexpr uint32_t kRequired = (1u << 17) - 1;

// Reads a pool entry straight from the parser's events (no JSON tree): a
// session loads one per object it knows, so this is most of opening a
// large session. Accepts what DecodeEntry documents: an object with every
// field below at its type ("compacted" optional), unknown keys ignored,
// the last of duplicate keys kept.
class EntryReader : public json::json_sax_t {
 public:
  explicit EntryReader(PoolEntry* e) : e_(e) {}

  bool complete() const { return ok_ && depth_ == 0 && seen_ == kRequired; }

  bool key(std::string& k) override {
    field_ = depth_ == 1 ? Find(k) : nullptr;
    return true;
  }
  bool string(std::string& v) override {
    return Value(Kind::kString,
                 [&](const Field& f) { e_->*f.str = std::move(v); });
  }
  bool boolean(bool v) override {
    return Value(Kind::kBool, [&](const Field& f) { e_->*f.flag = v; });
  }
  bool number_unsigned(number_unsigned_t v) override {
    return Value(Kind::kNumber, [&](const Field& f) { e_->*f.num = v; });
  }
  bool number_integer(number_integer_t) override { return Other(); }
  bool number_float(number_float_t, const string_t&) override {
    return Other();
  }
  bool null() override { return Other(); }
  bool binary(binary_t&) override { return Other(); }
  bool start_object(std::size_t) override {
    if (depth_ > 0 && !Other()) return false;
    ++depth_;
    return true;
  }
  bool start_array(std::size_t) override {
    if (depth_ == 0) return Fail();
    if (!Other()) return false;
    ++depth_;
    return true;
  }
  bool end_object() override { return End(); }
  bool end_array() override { return End(); }
  bool parse_error(std::size_t, const std::string&,
                   const nlohmann::detail::exception&) override {
    return Fail();
  }

 private:
  // The field named `k`, searched from the one after the last found.
  const Field* Find(const std::string& k) {
    for (size_t n = 0; n < kFieldCount; ++n) {
      const size_t i = (next_ + n) % kFieldCount;
      if (k == kFields[i].name) {
        next_ = i + 1;
        return &kFields[i];
      }
    }
    return nullptr;
  }
  // A scalar: stored when it is a known field of the entry and of its
  // type; a known field of another type makes the entry malformed.
  template <typename Store>
  bool Value(Kind kind, Store store) {
    if (depth_ == 0) return Fail();
    if (depth_ > 1 || field_ == nullptr) return true;
    if (field_->kind != kind) return Fail();
    store(*field_);
    seen_ |= field_->bit;
    field_ = nullptr;
    return true;
  }
  // Any other value: fine under an unknown key, malformed for a field.
  bool Other() {
    if (depth_ == 0) return Fail();
    if (depth_ == 1 && field_ != nullptr) return Fail();
    field_ = nullptr;
    return true;
  }
  bool End() {
    --depth_;
    return true;
  }
  bool Fail() {
    ok_ = false;
    return false;
  }

  PoolEntry* e_;
  const Field* field_ = nullptr;
  size_t next_ = 0;  // Where Find starts.
  int depth_ = 0;
  uint32_t seen_ = 0;
  bool ok_ = true;
};

}  // namespace

Result<PoolEntry> DecodeEntry(const std::string& text) {
  PoolEntry e;
  EntryReader reader(&e);
  if (!json::sax_parse(text, &reader) || !reader.complete()) {
    return Corrupt("a pool entry is malformed");
  }
  return e;
}

Status ValidatePolicy(const SessionPolicy& p) {
  if (p.index_max_tokens < 1 || p.index_max_tokens > 10'000'000) {
    return Status::InvalidArgument("index_max_tokens must be 1-10000000");
  }
  if (p.min_collapse_percent > 100) {
    return Status::InvalidArgument("min_collapse_percent must be 0-100");
  }
  if (p.index_max_percent < 1 || p.index_max_percent > 100) {
    return Status::InvalidArgument("index_max_percent must be 1-100");
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
  if (p.cache_ttl_seconds > 86'400) {
    return Status::InvalidArgument("cache_ttl_seconds must be 0-86400");
  }
  if (p.compaction_summary_tokens < 16 ||
      p.compaction_summary_tokens > 100'000) {
    return Status::InvalidArgument(
        "compaction_summary_tokens must be 16-100000");
  }
  return Status::Ok();
}

}  // namespace ctxkit::session
