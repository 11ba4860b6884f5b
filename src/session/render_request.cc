// Block texts and the provider request built from a layout. Rendering and
// replay both go through here, so a replay is byte-exact.

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "session/render_layout.h"
#include "text/json_parse.h"
#include "text/json_write.h"
#include "text/utf8.h"

namespace ctxkit::session {
namespace {

using nlohmann::json;

constexpr char kIndexHeader[] =
    "Known objects (metadata only; activate a ref to see its content):";
constexpr char kIndexMore[] =
    "- (more objects are known than listed here; see `ctxkit session show`)";

// Appends a value's content as the model sees it (render_layout.h).
void AppendShownContent(std::string_view content, std::string* text) {
  text::AppendRepairedUtf8(content, /*final=*/true, text);
}

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
  void Add(uint64_t tokens) { emitted_ += tokens; }
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
  if (layout.metadata_index.present)
    texts.push_back(&layout.metadata_index.block.text);
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

// Chat message `m` (text `text` for a tool message) as Anthropic blocks.
std::vector<RequestPart> AnthropicParts(const ChatMessage& m,
                                        const std::string& text,
                                        Emitter& emit) {
  std::vector<RequestPart> parts;
  if (m.role == "tool") {
    json b = {{"type", "tool_result"},
              {"tool_use_id", m.call_id},
              {"content", emit(text)}};
    if (m.status == "error") b["is_error"] = true;
    parts.push_back({"user", text::DumpJson(b)});
    return parts;
  }
  if (!m.text.empty()) {
    parts.push_back({m.role, text::DumpJson(json{{"type", "text"},
                                                 {"text", emit(m.text)}})});
  }
  for (const auto& c : m.tool_calls) {
    json input = ParsedArguments(c.arguments);
    emit(text::DumpJson(input));
    parts.push_back(
        {"assistant", text::DumpJson(json{{"type", "tool_use"},
                                          {"id", c.id},
                                          {"name", emit(c.name)},
                                          {"input", std::move(input)}})});
  }
  return parts;
}

// Chat message `m` (text `text` for a tool message) as Responses input
// items: a message, function_call items, a function_call_output, or an
// item kept verbatim.
std::vector<RequestPart> ResponsesParts(const ChatMessage& m,
                                        const std::string& text,
                                        Emitter& emit) {
  std::vector<RequestPart> parts;
  if (m.role == kItemRole) {
    parts.push_back({"", emit(text)});
    return parts;
  }
  if (m.role == "tool") {
    parts.push_back({"", text::DumpJson(json{{"type", "function_call_output"},
                                             {"call_id", m.call_id},
                                             {"output", emit(text)}})});
    return parts;
  }
  if (!text.empty() || m.tool_calls.empty()) {
    parts.push_back(
        {"", text::DumpJson(json{{"role", m.role}, {"content", emit(text)}})});
  }
  for (const auto& c : m.tool_calls) {
    parts.push_back(
        {"", text::DumpJson(json{{"type", "function_call"},
                                 {"call_id", c.id},
                                 {"name", emit(c.name)},
                                 {"arguments", emit(c.arguments)}})});
  }
  return parts;
}

// Rendered chat message `rel` serialized: from the layout's fragment cache
// when it holds it, else built (and cached), its tokens counted either way.
// `scratch` holds what is built when there is no cache.
const std::vector<RequestPart>& ChatParts(const Layout& layout, size_t rel,
                                          LogFormat format, Emitter& emit,
                                          MessageParts* scratch) {
  const size_t index = layout.first + rel;
  const std::string& text = layout.chat_text[rel].text;
  FragmentCache* cache = layout.fragments;
  if (cache != nullptr) {
    if (const MessageParts* hit =
            cache->Find(layout.chat_epoch, index, format, text)) {
      emit.Add(hit->tokens);
      return hit->parts;
    }
  }
  MessageParts built;
  built.chat_epoch = layout.chat_epoch;
  built.format = format;
  const uint64_t before = emit.emitted();
  const ChatMessage& m = layout.message(rel);
  if (format == LogFormat::kOpenAIResponses) {
    built.parts = ResponsesParts(m, text, emit);
  } else if (m.role == kItemRole) {
    // A Responses item kept verbatim: only a Responses request holds it.
  } else if (format == LogFormat::kAnthropic) {
    built.parts = AnthropicParts(m, text, emit);
  } else {
    built.parts.push_back(
        {"", text::DumpJson(OpenAiMessage(layout, rel, emit))});
  }
  built.tokens = emit.emitted() - before;
  if (cache != nullptr) {
    built.text = text;
    return cache->Put(index, std::move(built)).parts;
  }
  *scratch = std::move(built);
  return scratch->parts;
}

// Writes a JSON array's elements, comma-separated, after `out`'s end.
class ArrayWriter {
 public:
  explicit ArrayWriter(std::string* out) : out_(out) {}
  void Add(std::string_view element) {
    if (!empty_) *out_ += ',';
    empty_ = false;
    *out_ += element;
  }

 private:
  std::string* out_;
  bool empty_ = true;
};

// The request's "tools" member, when the render carries tools: after every
// other member (keys stay sorted), so the messages' bytes come first.
void AppendTools(const Layout& layout, Emitter& emit, std::string* out) {
  if (layout.tools.text.empty()) return;
  *out += ",\"tools\":" + emit(layout.tools.text);
}

// An OpenAI Responses request: the system texts as system messages, the
// chat as items, the tail as user messages.
std::string ResponsesRequest(const Layout& layout, Emitter& emit) {
  std::string out = "{\"input\":[";
  ArrayWriter input(&out);
  std::vector<const std::string*> prefix = PrefixTexts(layout);
  for (size_t i = 0; i < prefix.size(); ++i) {
    if (i == 0 && prefix[i]->empty()) continue;
    input.Add(text::DumpJson(
        json{{"role", "system"}, {"content", emit(*prefix[i])}}));
  }
  MessageParts scratch;
  for (size_t rel = 0; rel < layout.chat_text.size(); ++rel) {
    for (const RequestPart& p :
         ChatParts(layout, rel, LogFormat::kOpenAIResponses, emit, &scratch)) {
      input.Add(p.json);
    }
  }
  for (const TailBlock& t : layout.tail) {
    input.Add(text::DumpJson(
        json{{"role", "user"}, {"content", emit(t.block.text)}}));
  }
  out += "]";
  AppendTools(layout, emit, &out);
  out += "}";
  return out;
}

// An OpenAI chat-completions request: system messages, the chat, the tail
// as user messages.
std::string OpenAiRequest(const Layout& layout, Emitter& emit) {
  std::string out = "{\"messages\":[";
  ArrayWriter messages(&out);
  std::vector<const std::string*> prefix = PrefixTexts(layout);
  for (size_t i = 0; i < prefix.size(); ++i) {
    // The system text is left out when empty; the other blocks never are.
    if (i == 0 && prefix[i]->empty()) continue;
    messages.Add(text::DumpJson(
        json{{"role", "system"}, {"content", emit(*prefix[i])}}));
  }
  MessageParts scratch;
  for (size_t rel = 0; rel < layout.chat_text.size(); ++rel) {
    for (const RequestPart& p :
         ChatParts(layout, rel, LogFormat::kOpenAI, emit, &scratch)) {
      messages.Add(p.json);
    }
  }
  for (const TailBlock& t : layout.tail) {
    messages.Add(text::DumpJson(
        json{{"role", "user"}, {"content", emit(t.block.text)}}));
  }
  out += "]";
  AppendTools(layout, emit, &out);
  out += "}";
  return out;
}

// A serialized block with a cache breakpoint: "cache_control" sorts before
// every other key a block has, so it goes first.
std::string WithCacheBreakpoint(const std::string& block) {
  return "{\"cache_control\":{\"type\":\"ephemeral\"}," + block.substr(1);
}

// Anthropic messages from blocks in order, consecutive blocks of one role
// merged into one message.
void AppendAnthropicMessages(
    const std::vector<std::pair<const std::string*, const std::string*>>&
        blocks,
    std::string* out) {
  ArrayWriter messages(out);
  for (size_t i = 0; i < blocks.size();) {
    const std::string& role = *blocks[i].first;
    std::string message = "{\"content\":[";
    ArrayWriter content(&message);
    for (; i < blocks.size() && *blocks[i].first == role; ++i) {
      content.Add(*blocks[i].second);
    }
    message += "],\"role\":" + text::DumpJson(json(role)) + "}";
    messages.Add(message);
  }
}

// An Anthropic messages request: system blocks, the chat, the tail as user
// text, with cache breakpoints at the end of the stable part (the system
// blocks and the chat; the tail changes turn by turn).
std::string AnthropicRequest(const Layout& layout, Emitter& emit) {
  std::vector<std::string> sys_blocks;
  for (const std::string* text : PrefixTexts(layout)) {
    if (text->empty()) continue;  // The API refuses empty text blocks.
    sys_blocks.push_back(
        text::DumpJson(json{{"type", "text"}, {"text", emit(*text)}}));
  }
  if (!sys_blocks.empty()) {
    sys_blocks.back() = WithCacheBreakpoint(sys_blocks.back());
  }
  // (role, block) pointers; `owned` keeps what is not in the cache.
  std::vector<std::pair<const std::string*, const std::string*>> blocks;
  std::vector<MessageParts> owned(
      layout.fragments == nullptr ? layout.chat_text.size() : 0);
  MessageParts unused;
  for (size_t rel = 0; rel < layout.chat_text.size(); ++rel) {
    MessageParts* scratch = owned.empty() ? &unused : &owned[rel];
    for (const RequestPart& p :
         ChatParts(layout, rel, LogFormat::kAnthropic, emit, scratch)) {
      blocks.emplace_back(&p.role, &p.json);
    }
  }
  std::string marked;
  if (!blocks.empty()) {
    marked = WithCacheBreakpoint(*blocks.back().second);
    blocks.back().second = &marked;
  }
  static const std::string kUser = "user";
  std::vector<std::string> tail;
  tail.reserve(layout.tail.size());
  for (const TailBlock& t : layout.tail) {
    tail.push_back(
        text::DumpJson(json{{"type", "text"}, {"text", emit(t.block.text)}}));
    blocks.emplace_back(&kUser, &tail.back());
  }
  std::string out = "{\"messages\":[";
  AppendAnthropicMessages(blocks, &out);
  out += "]";
  if (!sys_blocks.empty()) {
    out += ",\"system\":[";
    ArrayWriter system(&out);
    for (const std::string& b : sys_blocks) system.Add(b);
    out += "]";
  }
  AppendTools(layout, emit, &out);
  out += "}";
  return out;
}

}  // namespace

std::string MetadataIndexBlock::Text(size_t k, bool more_line) const {
  std::string t = kIndexHeader;
  for (size_t i = 0; i < k; ++i) t += "\n" + *lines[i];
  if (more_line) t += std::string("\n") + kIndexMore;
  return t;
}

uint64_t Layout::Total() const {
  uint64_t t = system.tokens + tools.tokens +
               (metadata_index.present ? metadata_index.block.tokens : 0);
  for (const Block& b : pinned) t += b.tokens;
  for (const Block& b : compactions) t += b.tokens;
  for (const Block& b : chat_text) t += b.tokens;
  for (uint64_t c : call_tokens) t += c;
  for (const TailBlock& b : tail) t += b.block.tokens;
  return t;
}

RenderBreakdown Layout::Breakdown() const {
  RenderBreakdown b;
  b.system = system.tokens + tools.tokens;
  for (const Block& p : pinned) b.pinned += p.tokens;
  b.index = metadata_index.present ? metadata_index.block.tokens : 0;
  for (const Block& c : compactions) b.compactions += c.tokens;
  for (size_t rel = 0; rel < chat_text.size(); ++rel) {
    b.chat += call_tokens[rel];
    switch (modes[rel]) {
      case ToolMode::kText:
        b.chat += chat_text[rel].tokens;
        break;
      case ToolMode::kShown:
      case ToolMode::kExcerpt:
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
  return text::DumpJson(ParsedArguments(arguments));
}

std::string RefLine(const ChatMessage& m) {
  return RefLineHead(m) + " " + m.summary;
}

std::string RefLineHead(const ChatMessage& m) {
  return "[toolcall " + m.call_id + " | " + m.tool + " | " + m.status + " | " +
         std::to_string(m.bytes) + " bytes | " + std::to_string(m.tokens) +
         " tokens | " + m.ref + "]";
}

namespace {

// Bytes of a summary a placeholder shows (a few words).
constexpr size_t kPlaceholderSummaryBytes = 32;
// Bytes of one line an excerpt shows; longer lines are cut.
constexpr size_t kExcerptLineBytes = 600;

// `text` cut to `max` bytes on a character boundary ("..." appended).
std::string CutText(const std::string& text, size_t max) {
  if (text.size() <= max) return text;
  size_t end = max;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) {
    --end;
  }
  return text.substr(0, end) + "...";
}

// [begin, end) of each line of `content`.
std::vector<std::pair<size_t, size_t>> Lines(std::string_view content) {
  std::vector<std::pair<size_t, size_t>> lines;
  size_t at = 0;
  while (at < content.size()) {
    size_t nl = content.find('\n', at);
    if (nl == std::string_view::npos) nl = content.size();
    lines.emplace_back(at, nl);
    at = nl + 1;
  }
  return lines;
}

bool NamesAgentTools(ToolTexts texts) {
  return texts == ToolTexts::kAgentTools || texts == ToolTexts::kHandles;
}

// How a pointer names `ref`, the output of chat message `index` (`m`) at
// some version: by handle when the form has them and `ref` is the version
// the message recorded (the one the handle reads).
std::string OutputName(const ChatMessage& m, uint64_t index,
                       const std::string& ref, ToolTexts texts) {
  if (texts == ToolTexts::kHandles && ref == m.ref) {
    return "#" + std::to_string(index);
  }
  return ref;
}

}  // namespace

std::string PlaceholderText(const ChatMessage& m, uint64_t index,
                            ToolTexts texts) {
  return "[" + m.tool + " output hidden, " + std::to_string(m.tokens) +
         (NamesAgentTools(texts) ? " tokens; ctxkit_read " : " tokens; get ") +
         OutputName(m, index, m.ref, texts) + "] " +
         CutText(m.summary, kPlaceholderSummaryBytes);
}

std::string ToolText(const ChatMessage& m, uint64_t index, ToolMode mode,
                     uint64_t version, const std::string& content,
                     ToolTexts texts) {
  if ((mode == ToolMode::kHidden || mode == ToolMode::kText ||
       mode == ToolMode::kExcerpt) &&
      texts != ToolTexts::kV1) {
    return PlaceholderText(m, index, texts);
  }
  switch (mode) {
    case ToolMode::kShown: {
      // The output follows whole: its summary would repeat it (a one-line
      // output twice), unless a record of an earlier build showed it so.
      std::string t = texts == ToolTexts::kV1 ? RefLine(m) : RefLineHead(m);
      if (version != m.version)
        t += "\n(output now at v" + std::to_string(version) + ")";
      t += "\n";
      AppendShownContent(content, &t);
      return t;
    }
    case ToolMode::kPinned:
      return RefLine(m) + "\n[output pinned above at v" +
             std::to_string(version) + "]";
    case ToolMode::kHidden:
    case ToolMode::kText:
    case ToolMode::kExcerpt:
      break;
  }
  return RefLine(m) + "\n[output not shown; activate " + m.ref + " to see it]";
}

uint64_t LineCount(std::string_view content) { return Lines(content).size(); }

std::string ExcerptText(const ChatMessage& m, uint64_t index, uint64_t version,
                        const std::string& ref, const std::string& content,
                        ExcerptSpec spec, ToolTexts texts) {
  const auto lines = Lines(content);
  const uint64_t n = lines.size();
  const uint64_t head = std::min<uint64_t>(spec.head, n);
  const uint64_t tail = std::min<uint64_t>(spec.tail, n - head);
  std::string t = RefLine(m);
  if (version != m.version) {
    t += "\n(output now at v" + std::to_string(version) + ")";
  }
  const uint64_t gap_end = n - tail;  // Lines [head, gap_end) left out.
  t += "\n[excerpt of " + std::to_string(n) + " lines: ";
  if (head + tail == 0) {
    t += "none fit";
  } else {
    if (head > 0) t += "1-" + std::to_string(head);
    if (head > 0 && tail > 0) t += " and ";
    if (tail > 0) {
      t += std::to_string(gap_end + 1) + "-" + std::to_string(n);
    }
    t += " shown";
  }
  if (NamesAgentTools(texts)) {
    t += "; read the rest with ctxkit_read {\"ref\":\"" +
         OutputName(m, index, ref, texts) +
         "\",\"start_line\":" + std::to_string(head + 1) +
         ",\"end_line\":" + std::to_string(gap_end) + "}]";
  } else {
    t += "; read the rest with get {\"ref\":\"" + ref +
         "\",\"line_start\":" + std::to_string(head) +
         ",\"line_end\":" + std::to_string(gap_end) + "}]";
  }
  auto add_line = [&](uint64_t i) {
    std::string line =
        content.substr(lines[i].first, lines[i].second - lines[i].first);
    t += "\n" + std::to_string(i + 1) + "| ";
    AppendShownContent(CutText(line, kExcerptLineBytes), &t);
  };
  for (uint64_t i = 0; i < head; ++i) add_line(i);
  if (gap_end > head) {
    t += "\n... lines " + std::to_string(head + 1) + "-" +
         std::to_string(gap_end) + " not shown ...";
  }
  for (uint64_t i = gap_end; i < n; ++i) add_line(i);
  return t;
}

std::string PinnedBlockText(const PinnedSpec& spec, uint64_t version,
                            const std::string& content) {
  std::string t = "[pinned " + spec.key + " v" + std::to_string(version) +
                  " | " + spec.kind + " | " + spec.ref + "]\n";
  AppendShownContent(content, &t);
  return t;
}

std::string TailShownText(const std::string& key, uint64_t version,
                          const std::string& kind, const std::string& ref,
                          const std::string& content) {
  std::string t = "[active " + key + " v" + std::to_string(version) +
                  " (latest) | " + kind + " | " + ref + "]\n";
  AppendShownContent(content, &t);
  return t;
}

std::string CompactionBlockText(const std::string& ref, const json& content,
                                ToolTexts texts) {
  const uint64_t first = ctxkit::text::UintOr(content, "first", 0);
  const uint64_t end = ctxkit::text::UintOr(content, "end", 0);
  return "[compacted: chat messages " + std::to_string(first) + "-" +
         std::to_string(end == 0 ? 0 : end - 1) + ", " +
         std::to_string(ctxkit::text::UintOr(content, "turns", 0)) +
         (NamesAgentTools(texts) ? " turns; ctxkit_expand "
                                 : " turns; expand ") +
         ref + " to get them back]\n" +
         ctxkit::text::StringOr(content, "summary", "");
}

const MessageParts* FragmentCache::Find(uint64_t chat_epoch, size_t index,
                                        LogFormat format,
                                        const std::string& text) const {
  auto it = entries_.find(index);
  if (it == entries_.end()) return nullptr;
  const MessageParts& p = it->second;
  if (p.chat_epoch != chat_epoch || p.format != format || p.text != text) {
    return nullptr;
  }
  return &p;
}

namespace {

uint64_t BytesOf(const MessageParts& parts) {
  uint64_t bytes = parts.text.size();
  for (const RequestPart& p : parts.parts) bytes += p.json.size();
  return bytes;
}

}  // namespace

const MessageParts& FragmentCache::Put(size_t index, MessageParts parts) {
  MessageParts& slot = entries_[index];
  bytes_ = bytes_ - BytesOf(slot) + BytesOf(parts);
  slot = std::move(parts);
  return slot;
}

void FragmentCache::Trim(uint64_t chat_epoch, size_t first) {
  if (bytes_ > kMaxBytes) {
    entries_.clear();
    bytes_ = 0;
  } else if (chat_epoch != trimmed_epoch_ || first != trimmed_first_) {
    std::erase_if(entries_, [&](const auto& entry) {
      const bool stale =
          entry.first < first || entry.second.chat_epoch != chat_epoch;
      if (stale) bytes_ -= BytesOf(entry.second);
      return stale;
    });
  }
  trimmed_epoch_ = chat_epoch;
  trimmed_first_ = first;
}

Result<std::string> CanonicalTools(std::string_view tools_json) {
  if (tools_json.empty()) return std::string();
  if (tools_json.size() > (1u << 20)) {
    return Status::InvalidArgument("tools_json is larger than 1 MiB");
  }
  json tools = ctxkit::text::ParseJsonOrDiscarded(tools_json);
  if (!tools.is_array()) {
    return Status::InvalidArgument("tools_json must be a JSON array");
  }
  return text::DumpJson(tools);
}

std::string BuildRequest(const Layout& layout, LogFormat format,
                         const std::function<uint64_t(std::string_view)>& count,
                         uint64_t* emitted) {
  if (layout.fragments != nullptr) {
    layout.fragments->Trim(layout.chat_epoch, layout.first);
  }
  Emitter emit(count);
  std::string request;
  switch (format) {
    case LogFormat::kAnthropic:
      request = AnthropicRequest(layout, emit);
      break;
    case LogFormat::kOpenAIResponses:
      request = ResponsesRequest(layout, emit);
      break;
    case LogFormat::kOpenAI:
      request = OpenAiRequest(layout, emit);
      break;
  }
  *emitted = emit.emitted();
  return request;
}

}  // namespace ctxkit::session
