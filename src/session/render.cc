// Rendering: the provider request the model sees, never over budget.
//
// Layout (stable-prefix order): the system text; one block per pinned
// object (seq order); the metadata index (join order, capped); the chat,
// where each tool message carries its reference line and, while the
// output is active, the output itself; then one block per other active
// object (activation order). Tokens are the sum of the exact o200k_base
// counts of every text string emitted (see docs/sessions.md).

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/status_macros.h"
#include "ctxkit/session.h"
#include "session/session_impl.h"
#include "text/json_parse.h"

namespace ctxkit {
namespace {

using nlohmann::json;
using session::ChatMessage;

enum class Mode { kShown, kPinned, kCollapsed, kDropped };

struct Block {
  std::string text;
  uint64_t tokens = 0;
};

// A chat tool message or a tail object whose content may be dropped.
struct Shown {
  uint64_t active_seq = 0;
  bool tail = false;
  size_t index = 0;  // Into chat_text or tail.
  std::string key;
  uint64_t version = 0;
  uint64_t content_tokens = 0;
  std::string ref;
};

std::string N(uint64_t v) { return std::to_string(v); }

std::string RefLine(const ChatMessage& m) {
  return "[toolcall " + m.call_id + " | " + m.tool + " | " + m.status + " | " +
         N(m.bytes) + " bytes | " + N(m.tokens) + " tokens | " + m.ref + "] " +
         m.summary;
}

std::string ToolText(const ChatMessage& m, Mode mode, uint64_t version,
                     const std::string& content) {
  std::string t = RefLine(m);
  switch (mode) {
    case Mode::kShown:
      if (version != m.version) t += "\n(output now at v" + N(version) + ")";
      return t + "\n" + content;
    case Mode::kPinned:
      return t + "\n[output pinned above at v" + N(version) + "]";
    case Mode::kCollapsed:
      return t + "\n[collapsed: output not shown; activate " + m.ref +
             " to see it again]";
    case Mode::kDropped:
      return t + "\n[not shown to fit the token budget; activate " + m.ref +
             " or raise the budget to see it]";
  }
  return t;
}

std::string IndexLineText(const PoolEntry& e) {
  return "- " + e.key + " v" + N(e.version) + " | " + e.kind + " | " +
         N(e.tokens) + " tokens | " + e.title + " | " + e.ref;
}

constexpr char kIndexHeader[] =
    "Known objects (metadata only; activate a ref to see its content):";
constexpr char kIndexMore[] =
    "- (more objects are known than listed here; see `ctxkit session show`)";

json ParsedArguments(const std::string& text) {
  json j = ctxkit::text::ParseJsonOrDiscarded(text);
  if (j.is_object()) return j;
  return json{{"arguments", text}};
}

// The metadata index block: lines in join order up to the policy's cap.
struct IndexBlock {
  std::vector<const std::string*> lines;  // Into SessionImpl::index_lines().
  size_t listed = 0;                      // Lines shown.
  bool more = false;                      // The "more objects" line shown.
  bool present = false;                   // The block is emitted at all.
  Block block;

  // The block listing the first `k` lines.
  std::string Text(size_t k, bool more_line) const {
    std::string t = kIndexHeader;
    for (size_t i = 0; i < k; ++i) t += "\n" + *lines[i];
    if (more_line) t += std::string("\n") + kIndexMore;
    return t;
  }
};

// Everything a render emits, in layout order, each text with its count.
struct Layout {
  Block system;
  std::vector<Block> pinned;
  IndexBlock index;
  const std::vector<ChatMessage>* chat = nullptr;
  std::vector<Block> chat_text;  // One per chat message.
  uint64_t chat_tokens = 0;      // Tool-call names and argument texts.
  std::vector<Block> tail;       // Active objects not in the chat.
  std::vector<Shown> shown;      // Content that may be dropped.

  uint64_t Total() const {
    uint64_t t =
        system.tokens + chat_tokens + (index.present ? index.block.tokens : 0);
    for (const Block& b : pinned) t += b.tokens;
    for (const Block& b : chat_text) t += b.tokens;
    for (const Block& b : tail) t += b.tokens;
    return t;
  }
};

// Latest version of an active entry (0 when removed from the store).
Result<uint64_t> LatestVersion(View& view, const PoolEntry& e) {
  Result<ObjectMeta> m = view.Stat(e.key, {.scope = e.scope});
  if (m.ok()) return m->id == e.id ? m->version : 0;
  if (m.status().IsNotFound()) return uint64_t{0};
  return m.status();
}

// One block per pinned object, in seq order.
Result<std::vector<Block>> PinnedBlocks(SessionImpl& s) {
  std::vector<Block> pinned;
  for (const std::string& id : s.PinnedIds()) {
    const PoolEntry& e = s.state().entries.at(id);
    CTXKIT_ASSIGN_OR_RETURN(auto content,
                            s.Content(e.key, e.scope, e.pinned_version));
    CTXKIT_ASSIGN_OR_RETURN(
        Ref ref,
        s.view().RefOf(e.key, {.scope = e.scope, .version = e.pinned_version}));
    Block b;
    b.text = "[pinned " + e.key + " v" + N(e.pinned_version) + " | " + e.kind +
             " | " + FormatRef(ref) + "]\n" + *content;
    b.tokens = s.Tokens(b.text);
    pinned.push_back(std::move(b));
  }
  return pinned;
}

// The tail block of an active object outside the chat at its latest
// version (0: removed), noting its content as droppable.
Status AddTailBlock(SessionImpl& s, const PoolEntry& e, uint64_t latest,
                    Layout* layout) {
  Block b;
  if (latest == 0) {
    b.text = "[active " + e.key + " | removed from the store]";
  } else {
    CTXKIT_ASSIGN_OR_RETURN(auto content, s.Content(e.key, e.scope, latest));
    CTXKIT_ASSIGN_OR_RETURN(Ref ref, s.view().RefOf(e.key, {.scope = e.scope}));
    b.text = "[active " + e.key + " v" + N(latest) + " (latest) | " + e.kind +
             " | " + FormatRef(ref) + "]\n" + *content;
    Shown sh;
    sh.active_seq = e.active_seq;
    sh.tail = true;
    sh.index = layout->tail.size();
    sh.key = e.key;
    sh.version = latest;
    sh.content_tokens = s.Tokens(*content);
    sh.ref = FormatRef(ref);
    layout->shown.push_back(std::move(sh));
  }
  b.tokens = s.Tokens(b.text);
  layout->tail.push_back(std::move(b));
  return Status::Ok();
}

// Active objects: those of the chat are shown in place (their latest
// versions returned by id), the others in the tail. Pins that lag behind
// the latest version are reported as conflicts.
Result<std::map<std::string, uint64_t>> GatherActive(SessionImpl& s,
                                                     Layout* layout,
                                                     RenderResult* result) {
  std::map<std::string, uint64_t> chat_latest;
  for (const std::string& id : s.ActiveIds()) {
    const PoolEntry& e = s.state().entries.at(id);
    CTXKIT_ASSIGN_OR_RETURN(uint64_t latest, LatestVersion(s.view(), e));
    if (latest != 0 && e.pinned_version == latest) continue;  // Shown pinned.
    if (latest != 0 && e.pinned_version != 0) {
      result->conflicts.push_back({e.key, e.pinned_version, latest});
    }
    if (e.from_chat) {
      if (latest != 0) chat_latest[id] = latest;
      continue;
    }
    CTXKIT_RETURN_IF_ERROR(AddTailBlock(s, e, latest, layout));
  }
  return chat_latest;
}

// The text of chat message `i`, a tool message: its output while active
// (at `chat_latest`'s version), else a pinned or collapsed note.
Result<std::string> ToolMessageText(
    SessionImpl& s, size_t i,
    const std::map<std::string, uint64_t>& chat_latest, Layout* layout) {
  const ChatMessage& m = (*layout->chat)[i];
  const auto& entries = s.state().entries;
  auto it = entries.find(m.object_id);
  auto live = chat_latest.find(m.object_id);
  if (live != chat_latest.end()) {
    const PoolEntry& e = it->second;
    CTXKIT_ASSIGN_OR_RETURN(auto content,
                            s.Content(e.key, e.scope, live->second));
    Shown sh;
    sh.active_seq = e.active_seq;
    sh.index = i;
    sh.key = e.key;
    sh.version = live->second;
    sh.content_tokens = s.Tokens(*content);
    sh.ref = m.ref;
    layout->shown.push_back(std::move(sh));
    return ToolText(m, Mode::kShown, live->second, *content);
  }
  if (it != entries.end() && it->second.pinned_version != 0) {
    return ToolText(m, Mode::kPinned, it->second.pinned_version, "");
  }
  return ToolText(m, Mode::kCollapsed, 0, "");
}

// The chat, one block per message. Tool-call names and argument texts
// count as emitted strings.
Status GatherChat(SessionImpl& s, bool anthropic,
                  const std::map<std::string, uint64_t>& chat_latest,
                  Layout* layout) {
  CTXKIT_ASSIGN_OR_RETURN(layout->chat, s.Chat());
  const std::vector<ChatMessage>& chat = *layout->chat;
  layout->chat_text.resize(chat.size());
  for (size_t i = 0; i < chat.size(); ++i) {
    const ChatMessage& m = chat[i];
    Block& b = layout->chat_text[i];
    for (const auto& c : m.tool_calls) {
      layout->chat_tokens += s.Tokens(c.name);
      layout->chat_tokens += s.Tokens(
          anthropic ? ParsedArguments(c.arguments).dump() : c.arguments);
    }
    if (m.role != "tool") {
      b.text = m.text;
    } else {
      CTXKIT_ASSIGN_OR_RETURN(b.text,
                              ToolMessageText(s, i, chat_latest, layout));
    }
    b.tokens = s.Tokens(b.text);
  }
  return Status::Ok();
}

// The index lines that fit the policy's cap, counted apart (each line's
// count cached per entry version).
IndexBlock CollectIndexLines(SessionImpl& s) {
  const session::State& st = s.state();
  IndexBlock index;
  auto& cache = s.index_lines();
  uint64_t used = s.Tokens(kIndexHeader);
  for (const auto& [seq, id] : st.by_seq) {
    const PoolEntry& e = st.entries.at(id);
    if (e.locked || e.from_chat) continue;
    auto& line = cache[id];
    if (line.version != e.version || line.line.empty()) {
      line.version = e.version;
      line.line = IndexLineText(e);
      line.tokens = s.Tokens(line.line) + 1;  // + the newline.
    }
    if (used + line.tokens > st.policy.index_max_tokens) {
      index.more = true;
      break;
    }
    used += line.tokens;
    index.lines.push_back(&line.line);
  }
  return index;
}

// The metadata index block within the policy's cap.
IndexBlock BuildIndex(SessionImpl& s) {
  IndexBlock index = CollectIndexLines(s);
  index.listed = index.lines.size();
  index.present = !index.lines.empty() || index.more;
  if (!index.present) return index;
  const uint64_t cap = s.state().policy.index_max_tokens;
  index.block.text = index.Text(index.listed, index.more);
  index.block.tokens = s.Tokens(index.block.text);
  // Pieces joined by newlines may merge differently than counted apart:
  // trim by exact count.
  while (index.block.tokens > cap && index.listed > 0) {
    --index.listed;
    index.block.text = index.Text(index.listed, true);
    index.block.tokens = s.Tokens(index.block.text);
  }
  if (index.listed < index.lines.size()) index.more = true;
  return index;
}

// Replaces droppable content `sh` by a note saying how to see it again.
void DropContent(SessionImpl& s, const Shown& sh, Layout* layout) {
  Block& b = sh.tail ? layout->tail[sh.index] : layout->chat_text[sh.index];
  if (sh.tail) {
    b.text = "[active " + sh.key + " v" + N(sh.version) + " | " +
             N(sh.content_tokens) +
             " tokens not shown to fit the token budget; activate " + sh.ref +
             " or raise the budget to see it]";
  } else {
    b.text =
        ToolText((*layout->chat)[sh.index], Mode::kDropped, sh.version, "");
  }
  b.tokens = s.Tokens(b.text);
}

// Over budget: drops the oldest unpinned active content first, in whole
// groups. Group g holds the outputs whose cumulative content tokens
// (oldest first) start in [g*M, (g+1)*M), M the policy's
// min_collapse_tokens. Older outputs keep their order turn after turn, so
// the groups do too, and the set dropped (hence the prefix) changes only
// when one more whole group must go, not on every turn. Returns the
// layout's total.
uint64_t DropOldestContent(SessionImpl& s, uint64_t budget, Layout* layout,
                           RenderResult* result) {
  std::vector<Shown>& shown = layout->shown;
  std::stable_sort(shown.begin(), shown.end(),
                   [](const Shown& a, const Shown& b) {
                     return a.active_seq < b.active_seq;
                   });
  const uint64_t group_tokens =
      std::max<uint64_t>(1, s.state().policy.min_collapse_tokens);
  uint64_t tokens = layout->Total();
  uint64_t cumulative = 0;
  uint64_t dropping_group = UINT64_MAX;
  for (const Shown& sh : shown) {
    const uint64_t group = cumulative / group_tokens;
    cumulative += sh.content_tokens;
    if (tokens <= budget && group != dropping_group) break;
    dropping_group = group;
    const Block& b =
        sh.tail ? layout->tail[sh.index] : layout->chat_text[sh.index];
    tokens -= b.tokens;
    DropContent(s, sh, layout);
    tokens += b.tokens;
    result->dropped.push_back({sh.key, sh.version, sh.content_tokens, sh.ref});
  }
  return tokens;
}

// Still over budget: lists fewer index entries (the largest count that
// fits), then none. Returns the layout's total.
uint64_t ShrinkIndex(SessionImpl& s, uint64_t budget, uint64_t tokens,
                     IndexBlock* index) {
  if (tokens <= budget || !index->present) return tokens;
  const uint64_t rest = tokens - index->block.tokens;
  auto fits = [&](size_t k) {
    return rest + s.Tokens(index->Text(k, true)) <= budget;
  };
  if (!fits(0)) {
    index->present = false;
    index->listed = 0;
    return rest;
  }
  size_t lo = 0, hi = index->listed;  // The largest k in [0, listed] fitting.
  while (lo < hi) {
    size_t mid = (lo + hi + 1) / 2;
    if (fits(mid)) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  index->listed = lo;
  index->more = true;
  index->block.text = index->Text(index->listed, true);
  index->block.tokens = s.Tokens(index->block.text);
  return rest + index->block.tokens;
}

// Counts every string emitted into the request.
class Emitter {
 public:
  explicit Emitter(SessionImpl& s) : s_(s) {}
  std::string operator()(const std::string& text) {
    emitted_ += s_.Tokens(text);
    return text;
  }
  uint64_t emitted() const { return emitted_; }

 private:
  SessionImpl& s_;
  uint64_t emitted_ = 0;
};

// The stable prefix's system texts: the system text, the pinned blocks and
// the index, in that order (empty texts included).
std::vector<const std::string*> PrefixTexts(const Layout& layout) {
  std::vector<const std::string*> texts = {&layout.system.text};
  for (const Block& b : layout.pinned) texts.push_back(&b.text);
  if (layout.index.present) texts.push_back(&layout.index.block.text);
  return texts;
}

// Chat message `i` as an OpenAI chat message.
json OpenAiMessage(const Layout& layout, size_t i, Emitter& emit) {
  const ChatMessage& m = (*layout.chat)[i];
  json j = {{"role", m.role}};
  if (m.role == "tool") {
    j["tool_call_id"] = m.call_id;
    j["content"] = emit(layout.chat_text[i].text);
  } else if (m.role == "assistant" && !m.tool_calls.empty()) {
    j["content"] = m.text.empty() ? json() : json(emit(m.text));
    json calls = json::array();
    for (const auto& c : m.tool_calls) {
      calls.push_back(
          {{"id", c.id},
           {"type", "function"},
           {"function",
            {{"name", emit(c.name)}, {"arguments", emit(c.arguments)}}}});
    }
    j["tool_calls"] = std::move(calls);
  } else {
    j["content"] = emit(layout.chat_text[i].text);
  }
  return j;
}

// An OpenAI chat-completions request: system messages, the chat, the tail
// as user messages.
json OpenAiRequest(const Layout& layout, Emitter& emit) {
  json messages = json::array();
  std::vector<const std::string*> prefix = PrefixTexts(layout);
  for (size_t i = 0; i < prefix.size(); ++i) {
    // The system text is left out when empty; the other blocks never are.
    if (i == 0 && prefix[i]->empty()) continue;
    messages.push_back({{"role", "system"}, {"content", emit(*prefix[i])}});
  }
  for (size_t i = 0; i < layout.chat->size(); ++i) {
    messages.push_back(OpenAiMessage(layout, i, emit));
  }
  for (const Block& b : layout.tail) {
    messages.push_back({{"role", "user"}, {"content", emit(b.text)}});
  }
  return {{"messages", std::move(messages)}};
}

// Anthropic messages, consecutive blocks of one role merged into one
// message.
class AnthropicMessages {
 public:
  void Add(const std::string& role, json block) {
    if (messages_.empty() || messages_.back()["role"] != role) {
      messages_.push_back({{"role", role}, {"content", json::array()}});
    }
    messages_.back()["content"].push_back(std::move(block));
  }
  // A cache breakpoint at the last block so far.
  void MarkCacheBreakpoint() {
    if (messages_.empty()) return;
    messages_.back()["content"].back()["cache_control"] = {
        {"type", "ephemeral"}};
  }
  json Take() { return std::move(messages_); }

 private:
  json messages_ = json::array();
};

// Chat message `m` (text `text` for a tool message) as Anthropic blocks.
void AddAnthropicMessage(const ChatMessage& m, const std::string& text,
                         Emitter& emit, AnthropicMessages* out) {
  if (m.role == "tool") {
    json b = {{"type", "tool_result"},
              {"tool_use_id", m.call_id},
              {"content", emit(text)}};
    if (m.status == "error") b["is_error"] = true;
    out->Add("user", std::move(b));
    return;
  }
  if (!m.text.empty()) {
    out->Add(m.role, {{"type", "text"}, {"text", emit(m.text)}});
  }
  for (const auto& c : m.tool_calls) {
    json input = ParsedArguments(c.arguments);
    emit(input.dump());
    out->Add("assistant", {{"type", "tool_use"},
                           {"id", c.id},
                           {"name", emit(c.name)},
                           {"input", std::move(input)}});
  }
}

// An Anthropic messages request: system blocks, the chat, the tail as user
// text, with cache breakpoints at the end of the stable part (the system
// blocks and the chat; the tail changes turn by turn).
json AnthropicRequest(const Layout& layout, Emitter& emit) {
  json sys_blocks = json::array();
  for (const std::string* text : PrefixTexts(layout)) {
    if (text->empty()) continue;  // The API refuses empty text blocks.
    sys_blocks.push_back({{"type", "text"}, {"text", emit(*text)}});
  }
  AnthropicMessages messages;
  for (size_t i = 0; i < layout.chat->size(); ++i) {
    AddAnthropicMessage((*layout.chat)[i], layout.chat_text[i].text, emit,
                        &messages);
  }
  if (!sys_blocks.empty()) {
    sys_blocks.back()["cache_control"] = {{"type", "ephemeral"}};
  }
  messages.MarkCacheBreakpoint();
  for (const Block& b : layout.tail) {
    messages.Add("user", {{"type", "text"}, {"text", emit(b.text)}});
  }
  json request = {{"messages", messages.Take()}};
  if (!sys_blocks.empty()) request["system"] = std::move(sys_blocks);
  return request;
}

// Gathers what the session shows: system text, pinned blocks, active
// objects, the chat and the index.
Result<Layout> GatherLayout(SessionImpl& s, bool anthropic,
                            RenderResult* result) {
  Layout layout;
  CTXKIT_ASSIGN_OR_RETURN(layout.system.text, s.SystemText());
  layout.system.tokens = s.Tokens(layout.system.text);
  CTXKIT_ASSIGN_OR_RETURN(layout.pinned, PinnedBlocks(s));
  CTXKIT_ASSIGN_OR_RETURN(auto chat_latest, GatherActive(s, &layout, result));
  CTXKIT_RETURN_IF_ERROR(GatherChat(s, anthropic, chat_latest, &layout));
  layout.index = BuildIndex(s);
  return layout;
}

// Fits the layout to the budget (dropping content, then index lines);
// returns its total, or FailedPrecondition with the smallest budget the
// session renders in.
Result<uint64_t> FitBudget(SessionImpl& s, uint64_t budget, Layout* layout,
                           RenderResult* result) {
  uint64_t tokens = DropOldestContent(s, budget, layout, result);
  tokens = ShrinkIndex(s, budget, tokens, &layout->index);
  if (tokens > budget) {
    // Everything droppable is gone, so `tokens` is the smallest budget
    // this session renders in.
    return Status::FailedPrecondition(
        "render of session '" + s.id() + "' needs a budget of at least " +
        N(tokens) + " tokens, over the budget of " + N(budget) +
        " (the system prompt, pinned objects and the chat cannot be dropped; "
        "every unpinned active output and the index already were)");
  }
  return tokens;
}

}  // namespace

Result<RenderResult> Session::Render(const RenderOptions& options) {
  if (options.budget_tokens == 0) {
    return Status::InvalidArgument("render budget must be >= 1 token");
  }
  SessionImpl& s = *impl_;
  CTXKIT_RETURN_IF_ERROR(s.Refresh());
  const bool anthropic = options.format == LogFormat::kAnthropic;
  RenderResult result;
  result.budget_tokens = options.budget_tokens;
  CTXKIT_ASSIGN_OR_RETURN(Layout layout, GatherLayout(s, anthropic, &result));
  CTXKIT_ASSIGN_OR_RETURN(
      uint64_t tokens, FitBudget(s, options.budget_tokens, &layout, &result));
  result.index_listed = layout.index.present ? layout.index.listed : 0;
  result.index_total = s.IndexTotal();

  Emitter emit(s);
  json request =
      anthropic ? AnthropicRequest(layout, emit) : OpenAiRequest(layout, emit);
  if (emit.emitted() != tokens || emit.emitted() > options.budget_tokens) {
    return Status::Internal("render counted " + N(tokens) +
                            " tokens but emitted " + N(emit.emitted()));
  }
  result.tokens = emit.emitted();
  result.request_json = request.dump();
  return result;
}

}  // namespace ctxkit
