// The in-memory session state, its JSON forms, and the chat's neutral
// message model shared by ingestion and rendering.

#ifndef CTXKIT_SESSION_SESSION_STATE_H_
#define CTXKIT_SESSION_SESSION_STATE_H_

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "ctxkit/session.h"
#include "ctxkit/status.h"

namespace ctxkit::session {

// Store keys (in the session's own scope) of the locked objects.
inline constexpr char kChatKey[] = "ctxkit.session/chat";
inline constexpr char kSystemKey[] = "ctxkit.session/system";
// Compaction objects: kCompactionPrefix + "<first>-<end>" (message range).
inline constexpr char kCompactionPrefix[] = "ctxkit.session/compaction/";
// Render records: a stream, one line per render; version N ends with
// record N. Each session gets its own stream, kRecordsKey + "/" + a random
// suffix chosen at creation (State::records_key), so a session removed and
// created again under the same id starts from record 1.
inline constexpr char kRecordsKey[] = "ctxkit.session/renders";
// Snapshots of the rendered metadata index, one version per change.
inline constexpr char kIndexKey[] = "ctxkit.session/index";
// The tool definitions renders carried (RenderOptions::tools_json), one
// version per distinct array, named by the records.
inline constexpr char kToolsKey[] = "ctxkit.session/tools";

struct ToolCallRef {
  std::string id;
  std::string name;
  std::string arguments;  // JSON text as the harness gave it.
};

// One chat message, independent of the provider format. Tool results are
// role "tool" and refer to their toolcall object instead of holding it.
// The role of a Responses item kept verbatim (its JSON is the text).
inline constexpr char kItemRole[] = "item";

struct ChatMessage {
  // "user", "assistant", "tool", or kItemRole.
  std::string role;
  std::string text;
  std::vector<ToolCallRef> tool_calls;  // assistant
  // role "tool":
  std::string call_id;
  std::string tool;
  std::string status;
  std::string object_id;
  std::string ref;  // Static ref to the version recorded.
  uint64_t version = 0;
  uint64_t bytes = 0;
  uint64_t tokens = 0;
  std::string summary;
};

// The object ids of the newest `keep` distinct tool outputs of `chat`
// among messages [first, end).
std::set<std::string> NewestOutputIds(const std::vector<ChatMessage>& chat,
                                      size_t first, size_t keep);
// Where the newest outputs begin: the message after the last one that
// called tools (chat.size() when none did).
size_t NewestOutputsFrom(const std::vector<ChatMessage>& chat, size_t first);

// How a stored chat is encoded. kLines (NDJSON: one message per line, each
// ending in '\n') is what this build writes, so an ingestion appends only
// its new messages (View::Append) and every version is a prefix of the
// next. kArray (one JSON array) is what earlier builds wrote; it is read,
// and replaced by a whole kLines value at the next ingestion.
enum class ChatEncoding : uint8_t { kLines, kArray };

// Messages [from, end) of `chat`, one line each: appended to the lines of
// messages [0, from) they form the lines of the whole chat.
std::string EncodeChat(const std::vector<ChatMessage>& chat, size_t from = 0);
// Either encoding (sniffed from the first non-blank byte); `encoding`, when
// given, says which it was. Corruption for anything else.
Result<std::vector<ChatMessage>> DecodeChat(std::string_view text,
                                            ChatEncoding* encoding = nullptr);

struct State {
  std::string id;
  SessionPolicy policy;
  uint64_t generation = 0;
  uint64_t next_seq = 1;
  uint64_t chat_version = 0;
  uint64_t chat_messages = 0;
  uint64_t system_version = 0;
  std::string ingest_format;
  uint64_t ingested_items = 0;
  std::string ingest_hash;  // Hex chain hash of the consumed log prefix.
  // The last chat version written whole; later versions up to
  // chat_version only appended to it (so a cached older chat of this chain
  // is a prefix of the current one).
  uint64_t chat_whole_version = 0;
  std::vector<CompactionInfo> compactions;
  // A compaction asked for (Session::RequestCompaction) that the next
  // render makes: the instructions for its summary ("" for none).
  std::optional<std::string> compact_request;
  std::string records_key;  // This session's record stream.
  // Messages [0, compacted_end()) are folded into compactions.
  uint64_t compacted_end() const {
    return compactions.empty() ? 0 : compactions.back().end_message;
  }
  // The loaded pool entries. A session loads only what a render needs
  // (SessionImpl::Load): every hot entry (EntryIsHot) and the listed ones
  // (EntryIsListed) with seq <= listed_through; any other entry is loaded
  // when first looked up (SessionImpl::FindEntry), or all of them by
  // SessionImpl::LoadAll. An entry not loaded is neither hot nor changed.
  std::map<std::string, PoolEntry> entries;  // By object id.
  std::map<uint64_t, std::string> by_seq;    // seq -> object id.
  bool complete = true;                      // Every entry is loaded.
  uint64_t listed_through = UINT64_MAX;
  // How many entries are listed, loaded or not: kept in the stored state
  // by every write (states of earlier builds lack it: then counted by the
  // engine on load).
  uint64_t listed_entries = 0;
  bool listed_entries_known = false;
};

// An entry a render may show (active or pinned) or that is locked: always
// loaded.
inline bool EntryIsHot(const PoolEntry& e) {
  return e.active || e.pinned_version != 0 || e.locked;
}
// An entry the metadata index may list.
inline bool EntryIsListed(const PoolEntry& e) {
  return !e.locked && !e.from_chat;
}

// Every SessionPolicy field by its C++ name (the stored state and the
// faces' JSON share it).
nlohmann::json PolicyToJson(const SessionPolicy& policy);

std::string EncodeState(const State& state);
Status DecodeState(const std::string& json, State* state);
std::string EncodeEntry(const PoolEntry& entry);
// An entry as JSON. Faces that show entries (the CLI, the MCP tools) leave
// out the bookkeeping fields (seq, locked, active_seq) that only the
// persisted form needs; EncodeEntry keeps them.
nlohmann::json EntryToJson(const PoolEntry& entry, bool with_bookkeeping);
Result<PoolEntry> DecodeEntry(const std::string& json);

Status ValidatePolicy(const SessionPolicy& policy);

}  // namespace ctxkit::session

#endif  // CTXKIT_SESSION_SESSION_STATE_H_
