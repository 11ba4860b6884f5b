// What a render emits, in layout order, before it is serialized: built from
// the session state (render.cc), changed by budget pressure (relief.cc),
// recorded and rebuilt from a record (render_record.cc). The texts of every
// block come from the functions below, so a replay is byte-exact.

#ifndef CTXKIT_SESSION_RENDER_LAYOUT_H_
#define CTXKIT_SESSION_RENDER_LAYOUT_H_

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ctxkit/session.h"
#include "session/session_state.h"

namespace ctxkit::session {

struct Block {
  std::string text;
  uint64_t tokens = 0;
};

// How a chat message appears: its own text, or (a tool message) its output
// shown, a pointer to its pinned copy, the placeholder, or an excerpt (head
// and tail lines of one of the newest outputs too large for the room
// left).
enum class ToolMode : uint8_t { kText, kShown, kPinned, kHidden, kExcerpt };

// The texts a tool message is rendered with. Records written before
// kCompact (no "texts" field) replay with kV1's placeholder.
enum class ToolTexts : uint8_t {
  // The reference line and "[output not shown; activate <ref> ...]"; a
  // shown output after its whole reference line, summary included.
  kV1 = 1,
  // The compact placeholder (PlaceholderText): about 30 tokens and the
  // ref; a shown output after its reference line without the summary,
  // which the output itself follows (a one-line output appeared twice).
  kCompact = 2,
  // kCompact for a render that carries the agent tools
  // (RenderOptions::tools_json): the placeholder, the excerpt note and the
  // compaction block name the tool call that reads the rest
  // (ctxkit_read, ctxkit_expand) instead of the CLI/MCP verb.
  kAgentTools = 3,
  // kAgentTools with each tool output named by its handle, "#<chat message
  // index>" (Session::ToolOutputRef), instead of its ref: a placeholder is
  // about 20 tokens where the ref alone is 30-45. An output shown at a later
  // version than its message recorded is still named by that version's ref.
  kHandles = 4,
};

// An excerpt: the first `head` and last `tail` lines of an output.
struct ExcerptSpec {
  uint64_t head = 0;
  uint64_t tail = 0;
};

// Shown content that may be dropped to fit the budget.
struct Shown {
  uint64_t active_seq = 0;
  bool tail = false;
  size_t index = 0;  // Into Layout::chat_text (relative) or Layout::tail.
  std::string key;
  uint64_t version = 0;
  uint64_t content_tokens = 0;
  std::string ref;
  // One of the newest outputs (answering the chat's last message that
  // called tools): never dropped, shown as an excerpt when it does not fit
  // whole.
  bool newest = false;
};

// The metadata index block: lines in join order up to the policy's cap.
struct MetadataIndexBlock {
  std::vector<const std::string*> lines;  // Into SessionImpl::index_lines().
  size_t listed = 0;                      // Lines shown.
  bool more = false;                      // The "more objects" line shown.
  bool present = false;                   // The block is emitted at all.
  Block block;
  // The block listing the first `k` lines.
  std::string Text(size_t k, bool more_line) const;
};

struct PinnedSpec {
  std::string ref;  // Static ref of the pinned version (wire form).
  std::string key;
  std::string kind;
};

struct TailBlock {
  Block block;
  bool shown = false;       // Content shown (else a note: dropped or removed).
  std::string ref;          // Shown: static ref of the version shown.
  std::string printed_ref;  // Shown: the (dynamic) ref the block prints.
  std::string key;
  std::string kind;
};

// One serialized piece of a request: an OpenAI message (role empty), or an
// Anthropic content block and the role of the message it goes in.
struct RequestPart {
  std::string role;
  std::string json;
};

// A chat message serialized, and what it was serialized from.
struct MessageParts {
  uint64_t chat_epoch = 0;
  LogFormat format = LogFormat::kOpenAI;
  std::string text;  // The message's block text (Layout::chat_text).
  std::vector<RequestPart> parts;
  uint64_t tokens = 0;  // Tokens of the strings the parts emit.
};

// Chat messages serialized by earlier renders of one session. Within one
// chat epoch (SessionImpl: the chat only grew) message i is the same
// message, so it serializes to the same parts while its block text is the
// same; a render then copies them instead of building and escaping the
// JSON again. What Find and Put return stays valid until Trim.
class FragmentCache {
 public:
  static constexpr uint64_t kMaxBytes = 64ull << 20;
  // The parts of chat message `index` built from `text`, or nullptr.
  const MessageParts* Find(uint64_t chat_epoch, size_t index, LogFormat format,
                           const std::string& text) const;
  // Stores (or replaces) the parts of chat message `index`.
  const MessageParts& Put(size_t index, MessageParts parts);
  // Before a render of chat epoch `chat_epoch` from message `first`: drops
  // the entries it cannot use (other epochs, compacted messages) when
  // either moved, and everything when the cache holds more than kMaxBytes.
  void Trim(uint64_t chat_epoch, size_t first);

 private:
  std::unordered_map<size_t, MessageParts> entries_;
  uint64_t bytes_ = 0;
  uint64_t trimmed_epoch_ = 0;
  size_t trimmed_first_ = 0;
};

struct Layout {
  Block system;
  std::string system_ref;  // "" when there is no system prompt.
  // The request's "tools" (RenderOptions::tools_json, compact): counted
  // with the system prompt in the breakdown. Empty text: none.
  Block tools;
  std::vector<Block> pinned;
  std::vector<PinnedSpec> pinned_specs;
  MetadataIndexBlock metadata_index;
  std::vector<Block> compactions;
  std::vector<std::string> compaction_refs;
  // The chat; messages [first, size) are rendered (earlier ones are in the
  // compactions). Per rendered message, relative to `first`: its text,
  // mode, tool-call tokens, and for shown outputs the static ref shown.
  // The session's cached chat, or (nullptr) `owned_chat`, a replay's.
  const std::vector<ChatMessage>* chat = nullptr;
  std::vector<ChatMessage> owned_chat;
  std::string chat_ref;  // "" when there is no chat.
  size_t first = 0;
  std::vector<Block> chat_text;
  std::vector<ToolMode> modes;
  std::vector<std::string> shown_refs;
  std::vector<uint64_t> call_tokens;
  // Per rendered message: the excerpt shown (mode kExcerpt).
  std::vector<ExcerptSpec> excerpts;
  // Relative index of the message after the last rendered message that
  // called tools: tool messages from there on are the newest outputs
  // (chat_text.size() when none is rendered).
  size_t newest_from = 0;
  ToolTexts texts = ToolTexts::kCompact;
  std::vector<TailBlock> tail;
  std::vector<Shown> shown;
  // The session's serialized messages (render), or nullptr (replay).
  FragmentCache* fragments = nullptr;
  uint64_t chat_epoch = 0;  // Of `chat`, for `fragments`.

  const std::vector<ChatMessage>& messages() const {
    return chat != nullptr ? *chat : owned_chat;
  }
  const ChatMessage& message(size_t rel) const {
    return messages()[first + rel];
  }
  uint64_t Total() const;
  RenderBreakdown Breakdown() const;
};

// Tool-call arguments as the Anthropic form sends them: the parsed object
// as compact JSON ({"arguments": text} when not an object).
std::string ParsedArgumentsText(const std::string& arguments);

// Block texts. A value's content (`content` below) is shown with each
// ill-formed UTF-8 sequence replaced by U+FFFD (text::AppendRepairedUtf8),
// so a request is JSON whatever bytes a value holds; its ref still reads
// the exact bytes.
std::string RefLine(const ChatMessage& m);
// The reference line without its summary.
std::string RefLineHead(const ChatMessage& m);
// `m`, chat message `index` (0-based, in the whole chat), is the tool
// message every function below describes; `index` names it in the
// kHandles form.
//
// A hidden output's placeholder (ToolTexts::kCompact): "[<tool> output
// hidden, <tokens> tokens; get <ref>] <summary cut at 32 bytes>", the ref
// once (a ref alone is 30-45 tokens: its capability tag, scope and key);
// kHandles: "...; ctxkit_read #<index>] ...".
std::string PlaceholderText(const ChatMessage& m, uint64_t index,
                            ToolTexts texts = ToolTexts::kCompact);
// A tool message: its reference line and, by mode, the output at
// `version` (`content`), a pointer to the pinned copy, or the placeholder
// (one text whether the output was collapsed or dropped for budget; its
// form by `texts`). kExcerpt: use ExcerptText.
std::string ToolText(const ChatMessage& m, uint64_t index, ToolMode mode,
                     uint64_t version, const std::string& content,
                     ToolTexts texts = ToolTexts::kCompact);
// Lines of `content` ('\n'-terminated; a last unterminated line counts).
uint64_t LineCount(std::string_view content);
// A tool message showing the first `spec.head` and last `spec.tail` lines
// of the output at `version` (`content`), numbered from 1, after its
// reference line and a note naming the lines left out and the call that
// reads them (`ref`: the static ref of that version).
std::string ExcerptText(const ChatMessage& m, uint64_t index, uint64_t version,
                        const std::string& ref, const std::string& content,
                        ExcerptSpec spec,
                        ToolTexts texts = ToolTexts::kCompact);
std::string PinnedBlockText(const PinnedSpec& spec, uint64_t version,
                            const std::string& content);
std::string TailShownText(const std::string& key, uint64_t version,
                          const std::string& kind, const std::string& ref,
                          const std::string& content);
// A compaction's block from its static ref and stored content.
std::string CompactionBlockText(const std::string& ref,
                                const nlohmann::json& content,
                                ToolTexts texts = ToolTexts::kCompact);

// Serialization: the provider request as compact JSON with sorted keys
// (what nlohmann::json::dump() writes for the same tree), with every
// emitted string counted (docs/sessions.md). `emitted` receives the count.
// Chat messages go through layout.fragments when it is set.
// RenderOptions::tools_json written compactly (a render's "tools"): ""
// for "", else InvalidArgument unless it is a JSON array of at most 1 MiB.
Result<std::string> CanonicalTools(std::string_view tools_json);

std::string BuildRequest(const Layout& layout, LogFormat format,
                         const std::function<uint64_t(std::string_view)>& count,
                         uint64_t* emitted);

}  // namespace ctxkit::session

#endif  // CTXKIT_SESSION_RENDER_LAYOUT_H_
