#include "mcp/result_limit.h"

#include <algorithm>
#include <string>
#include <utility>

#include "core/format.h"
#include "ctxkit/tokenizer.h"
#include "mcp/resource_uri.h"
#include "mcp/tool_util.h"

namespace ctxkit::mcp {

namespace {

// Bytes read per budgeted token when looking for a head or tail: o200k
// averages about 4 bytes per token on prose and code, so twice that almost
// always holds the budget; when it does not, the window is shown whole
// (still within budget).
constexpr uint64_t kWindowBytesPerToken = 8;

bool IsContinuation(char c) {
  return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

// The longest prefix of `w` within `budget` tokens, ending on a character
// boundary. Token counts of prefixes grow with length (up to BPE merges a
// few tokens long), so a binary search finds it.
size_t HeadLength(const Tokenizer& tok, std::string_view w, uint64_t budget) {
  if (tok.Count(w) <= budget) return w.size();
  size_t lo = 0;
  size_t hi = w.size();
  while (hi - lo > 1) {
    size_t mid = lo + (hi - lo) / 2;
    if (tok.Count(w.substr(0, mid)) <= budget) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  while (lo > 0 && lo < w.size() && IsContinuation(w[lo])) --lo;
  return lo;
}

// Where the longest suffix of `w` within `budget` tokens starts, on a
// character boundary.
size_t TailStart(const Tokenizer& tok, std::string_view w, uint64_t budget) {
  if (tok.Count(w) <= budget) return 0;
  size_t lo = 0;  // Suffix from lo: over budget.
  size_t hi = w.size();
  while (hi - lo > 1) {
    size_t mid = lo + (hi - lo) / 2;
    if (tok.Count(w.substr(mid)) <= budget) {
      hi = mid;
    } else {
      lo = mid;
    }
  }
  while (hi < w.size() && IsContinuation(w[hi])) ++hi;
  return hi;
}

struct Cut {
  std::string head;
  uint64_t head_end = 0;  // Absolute byte offsets in the source.
  std::string tail;
  uint64_t tail_begin = 0;
};

ToolResult TruncatedResult(ClientState& c, const Cut& cut, uint64_t begin,
                           uint64_t end, std::optional<uint64_t> tokens,
                           Json structured, const std::optional<Ref>& source) {
  uint64_t limit = c.options.result_token_limit;
  std::string note = "[ctxkit: this result is ";
  note += tokens ? core::GroupedNumber(*tokens) + " tokens (" +
                       core::GroupedNumber(end - begin) + " bytes)"
                 : core::GroupedNumber(end - begin) + " bytes";
  note += ", more than the " + core::GroupedNumber(limit) +
          "-token limit for one result, so it is not returned whole. Shown: "
          "bytes " +
          std::to_string(begin) + "-" + std::to_string(cut.head_end) +
          " (head) and " + std::to_string(cut.tail_begin) + "-" +
          std::to_string(end) + " (tail).";
  if (source) {
    Json example = {{"ref", FormatRef(*source)},
                    {"byte_offset", cut.head_end},
                    {"byte_length",
                     std::min<uint64_t>(cut.tail_begin - cut.head_end,
                                        std::max<uint64_t>(limit * 2, 1024))}};
    note +=
        " Read the rest by handle instead of asking for it whole: call get "
        "with " +
        Serialize(example) +
        " (or line_start/line_end), peek it by lines, search it for what "
        "you need, or summarize it. The whole value is the resource " +
        ResourceLink(c, *source)["uri"].get<std::string>() + ".]";
  } else {
    note += " Ask for less (a smaller range, budget or limit).]";
  }
  std::string text = note + "\n" + cut.head;
  if (!text.empty() && text.back() != '\n') text += '\n';
  text += "[... " + core::GroupedNumber(cut.tail_begin - cut.head_end) +
          " bytes omitted ...]\n" + cut.tail;
  ToolResult r;
  r.content.push_back(TextContent(std::move(text)));
  if (source && c.options.resource_links) {
    r.content.push_back(ResourceLink(c, *source));
  }
  if (!structured.is_object()) structured = Json::object();
  Json t = {{"total_bytes", end - begin},
            {"head_bytes", Json::array({begin, cut.head_end})},
            {"tail_bytes", Json::array({cut.tail_begin, end})},
            {"limit_tokens", limit}};
  if (tokens) t["tokens"] = *tokens;
  if (source) {
    t["ref"] = FormatRef(*source);
    t["uri"] = ResourceLink(c, *source)["uri"];
  }
  structured["truncated"] = std::move(t);
  r.structured = std::move(structured);
  return r;
}

ToolResult WholeResult(std::string text, Json structured) {
  ToolResult r;
  r.content.push_back(TextContent(std::move(text)));
  r.structured = std::move(structured);
  return r;
}

}  // namespace

Result<uint64_t> CountTokens(std::string_view text) {
  Result<const Tokenizer*> tok = Tokenizer::Get();
  if (!tok.ok()) return tok.status();
  return static_cast<uint64_t>((*tok)->Count(text));
}

Json ResourceLink(ClientState& c, const Ref& ref) {
  std::optional<std::string> word =
      ScopeWord(ref.scope, c.binding.agent, c.binding.session);
  std::string uri = word ? ScopedUri(*word, ref.key, ref.version) : RefUri(ref);
  return {
      {"type", "resource_link"},
      {"uri", uri},
      {"name", ref.key},
      {"description",
       std::string(ValueTypeName(ref.type)) + " in " + ref.scope.ToString() +
           (ref.version ? ", version " + std::to_string(ref.version)
                        : std::string())},
      {"mimeType", MimeTypeFor(ref.type)},
      {"size", ref.size_bytes}};
}

Result<ToolResult> LimitedTextResult(ClientState& c, std::string text,
                                     Json structured,
                                     const std::optional<Ref>& source,
                                     uint64_t offset) {
  uint64_t limit = c.options.result_token_limit;
  // A token is at least one byte: short texts need no count.
  if (text.size() <= limit) {
    return WholeResult(std::move(text), std::move(structured));
  }
  Result<const Tokenizer*> tok = Tokenizer::Get();
  if (!tok.ok()) return tok.status();
  uint64_t tokens = (*tok)->Count(text);
  if (tokens <= limit) {
    return WholeResult(std::move(text), std::move(structured));
  }
  uint64_t budget = std::max<uint64_t>(1, limit * 45 / 100);
  uint64_t window =
      std::min<uint64_t>(text.size() / 2, budget * kWindowBytesPerToken);
  std::string_view all = text;
  Cut cut;
  size_t head = HeadLength(**tok, all.substr(0, window), budget);
  std::string_view tail_window = all.substr(all.size() - window);
  size_t tail = TailStart(**tok, tail_window, budget);
  cut.head = std::string(all.substr(0, head));
  cut.head_end = offset + head;
  cut.tail = std::string(tail_window.substr(tail));
  cut.tail_begin = offset + (all.size() - window) + tail;
  return TruncatedResult(c, cut, offset, offset + text.size(), tokens,
                         std::move(structured), source);
}

Result<ToolResult> WholeValueResult(ClientState& c, const Ref& ref,
                                    Json structured) {
  uint64_t limit = c.options.result_token_limit;
  uint64_t size = ref.size_bytes;
  if (size <= limit) {
    Result<std::string> text = c.view.Resolve(ref);
    if (!text.ok()) return text.status();
    // A dynamic ref may have grown since it was taken.
    return LimitedTextResult(c, std::move(*text), std::move(structured), ref,
                             0);
  }
  Result<uint64_t> tokens = c.view.CountTokens(ref);
  if (!tokens.ok()) return tokens.status();
  if (structured.is_object()) structured["tokens"] = *tokens;
  if (*tokens <= limit) {
    Result<std::string> text = c.view.Resolve(ref);
    if (!text.ok()) return text.status();
    return WholeResult(std::move(*text), std::move(structured));
  }
  Result<const Tokenizer*> tok = Tokenizer::Get();
  if (!tok.ok()) return tok.status();
  uint64_t budget = std::max<uint64_t>(1, limit * 45 / 100);
  uint64_t window = std::min<uint64_t>(size / 2, budget * kWindowBytesPerToken);
  Result<std::string> head = c.view.ReadRange(ref, 0, window);
  if (!head.ok()) return head.status();
  Result<std::string> tail = c.view.ReadRange(ref, size - window, window);
  if (!tail.ok()) return tail.status();
  Cut cut;
  size_t head_len = HeadLength(**tok, *head, budget);
  size_t tail_start = TailStart(**tok, *tail, budget);
  cut.head = head->substr(0, head_len);
  cut.head_end = head_len;
  cut.tail = tail->substr(tail_start);
  cut.tail_begin = size - tail->size() + tail_start;
  return TruncatedResult(c, cut, 0, size, *tokens, std::move(structured), ref);
}

}  // namespace ctxkit::mcp
