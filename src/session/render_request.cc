// Block texts and the provider request built from a layout. Rendering and
// replay both go through here, so a replay is byte-exact.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "session/render_layout.h"
#include "text/json_parse.h"

namespace ctxkit::session {
namespace {

using nlohmann::json;

std::string N(uint64_t v) { return std::to_string(v); }

constexpr char kIndexHeader[] =
    "Known objects (metadata only; activate a ref to see its content):";
constexpr char kIndexMore[] =
    "- (more objects are known than listed here; see `ctxkit session show`)";

json ParsedArguments(const std::string& text) {
  json j = ctxkit::text::ParseJsonOrDiscarded(text);
  if (j.is_object()) return j;
  return json{{"arguments", text}};
}

// Counts every string emitted into the request.
class Emitter {
 public:
  explicit Emitter(const std::function<uint64_t(std::string_view)>& count)
      : count_(count) {}
  const std::string& operator()(const std::string& text) {
    emitted_ += count_(text);
    return text;
  }
  uint64_t emitted() const { return emitted_; }

 private:
  const std::function<uint64_t(std::string_view)>& count_;
  uint64_t emitted_ = 0;
};

// The stable prefix's system texts: the system text, the pinned blocks, the
// index and the compactions, in that order (empty texts included).
std::vector<const std::string*> PrefixTexts(const Layout& layout) {
  std::vector<const std::string*> texts = {&layout.system.text};
  for (const Block& b : layout.pinned) texts.push_back(&b.text);
  if (layout.index.present) texts.push_back(&layout.index.block.text);
  for (const Block& b : layout.compactions) texts.push_back(&b.text);
  return texts;
}

// Rendered chat message `rel` as an OpenAI chat message.
json OpenAiMessage(const Layout& layout, size_t rel, Emitter& emit) {
  const ChatMessage& m = layout.message(rel);
  json j = {{"role", m.role}};
  if (m.role == "tool") {
    j["tool_call_id"] = m.call_id;
    j["content"] = emit(layout.chat_text[rel].text);
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
    j["content"] = emit(layout.chat_text[rel].text);
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
  for (size_t rel = 0; rel < layout.chat_text.size(); ++rel) {
    messages.push_back(OpenAiMessage(layout, rel, emit));
  }
  for (const TailBlock& t : layout.tail) {
    messages.push_back({{"role", "user"}, {"content", emit(t.block.text)}});
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
  for (size_t rel = 0; rel < layout.chat_text.size(); ++rel) {
    AddAnthropicMessage(layout.message(rel), layout.chat_text[rel].text, emit,
                        &messages);
  }
  if (!sys_blocks.empty()) {
    sys_blocks.back()["cache_control"] = {{"type", "ephemeral"}};
  }
  messages.MarkCacheBreakpoint();
  for (const TailBlock& t : layout.tail) {
    messages.Add("user", {{"type", "text"}, {"text", emit(t.block.text)}});
  }
  json request = {{"messages", messages.Take()}};
  if (!sys_blocks.empty()) request["system"] = std::move(sys_blocks);
  return request;
}

}  // namespace

std::string IndexBlock::Text(size_t k, bool more_line) const {
  std::string t = kIndexHeader;
  for (size_t i = 0; i < k; ++i) t += "\n" + *lines[i];
  if (more_line) t += std::string("\n") + kIndexMore;
  return t;
}

uint64_t Layout::Total() const {
  uint64_t t = system.tokens + (index.present ? index.block.tokens : 0);
  for (const Block& b : pinned) t += b.tokens;
  for (const Block& b : compactions) t += b.tokens;
  for (const Block& b : chat_text) t += b.tokens;
  for (uint64_t c : call_tokens) t += c;
  for (const TailBlock& b : tail) t += b.block.tokens;
  return t;
}

RenderBreakdown Layout::Breakdown() const {
  RenderBreakdown b;
  b.system = system.tokens;
  for (const Block& p : pinned) b.pinned += p.tokens;
  b.index = index.present ? index.block.tokens : 0;
  for (const Block& c : compactions) b.compactions += c.tokens;
  for (size_t rel = 0; rel < chat_text.size(); ++rel) {
    b.chat += call_tokens[rel];
    switch (modes[rel]) {
      case ToolMode::kText:
        b.chat += chat_text[rel].tokens;
        break;
      case ToolMode::kShown:
        b.active_outputs += chat_text[rel].tokens;
        break;
      case ToolMode::kPinned:
      case ToolMode::kHidden:
        b.placeholders += chat_text[rel].tokens;
        break;
    }
  }
  for (const TailBlock& t : tail) {
    (t.shown ? b.active_outputs : b.placeholders) += t.block.tokens;
  }
  return b;
}

std::string ParsedArgumentsText(const std::string& arguments) {
  return ParsedArguments(arguments).dump();
}

std::string RefLine(const ChatMessage& m) {
  return "[toolcall " + m.call_id + " | " + m.tool + " | " + m.status + " | " +
         N(m.bytes) + " bytes | " + N(m.tokens) + " tokens | " + m.ref + "] " +
         m.summary;
}

std::string ToolText(const ChatMessage& m, ToolMode mode, uint64_t version,
                     const std::string& content) {
  std::string t = RefLine(m);
  switch (mode) {
    case ToolMode::kShown:
      if (version != m.version) t += "\n(output now at v" + N(version) + ")";
      return t + "\n" + content;
    case ToolMode::kPinned:
      return t + "\n[output pinned above at v" + N(version) + "]";
    case ToolMode::kHidden:
    case ToolMode::kText:
      break;
  }
  return t + "\n[output not shown; activate " + m.ref + " to see it]";
}

std::string PinnedBlockText(const PinnedSpec& spec, uint64_t version,
                            const std::string& content) {
  return "[pinned " + spec.key + " v" + N(version) + " | " + spec.kind + " | " +
         spec.ref + "]\n" + content;
}

std::string TailShownText(const std::string& key, uint64_t version,
                          const std::string& kind, const std::string& ref,
                          const std::string& content) {
  return "[active " + key + " v" + N(version) + " (latest) | " + kind + " | " +
         ref + "]\n" + content;
}

std::string CompactionBlockText(const std::string& ref, const json& content) {
  const uint64_t first = content.value("first", uint64_t{0});
  const uint64_t end = content.value("end", uint64_t{0});
  return "[compacted: chat messages " + N(first) + "-" +
         N(end == 0 ? 0 : end - 1) + ", " +
         N(content.value("turns", uint64_t{0})) + " turns; expand " + ref +
         " to get them back]\n" + content.value("summary", std::string());
}

json BuildRequest(const Layout& layout, bool anthropic,
                  const std::function<uint64_t(std::string_view)>& count,
                  uint64_t* emitted) {
  Emitter emit(count);
  json request =
      anthropic ? AnthropicRequest(layout, emit) : OpenAiRequest(layout, emit);
  *emitted = emit.emitted();
  return request;
}

}  // namespace ctxkit::session
