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
  json j = json::parse(text, nullptr, false);
  if (j.is_object()) return j;
  return json{{"arguments", text}};
}

}  // namespace

Result<RenderResult> Session::Render(const RenderOptions& options) {
  if (options.budget_tokens == 0) {
    return Status::InvalidArgument("render budget must be >= 1 token");
  }
  SessionImpl& s = *impl_;
  CTXKIT_RETURN_IF_ERROR(s.Refresh());
  const session::State& st = s.state();
  View& view = s.view();
  const bool anthropic = options.format == LogFormat::kAnthropic;
  RenderResult result;
  result.budget_tokens = options.budget_tokens;

  // Locked system text.
  Block system;
  CTXKIT_ASSIGN_OR_RETURN(system.text, s.SystemText());
  system.tokens = s.Tokens(system.text);

  // Latest version of each active entry (0 when removed from the store).
  auto latest_of = [&](const PoolEntry& e) -> Result<uint64_t> {
    Result<ObjectMeta> m = view.Stat(e.key, {.scope = e.scope});
    if (m.ok()) return m->id == e.id ? m->version : 0;
    if (m.status().IsNotFound()) return uint64_t{0};
    return m.status();
  };

  // Pinned blocks.
  std::vector<Block> pinned;
  for (const std::string& id : s.PinnedIds()) {
    const PoolEntry& e = st.entries.at(id);
    CTXKIT_ASSIGN_OR_RETURN(auto content,
                            s.Content(e.key, e.scope, e.pinned_version));
    CTXKIT_ASSIGN_OR_RETURN(
        Ref ref,
        view.RefOf(e.key, {.scope = e.scope, .version = e.pinned_version}));
    Block b;
    b.text = "[pinned " + e.key + " v" + N(e.pinned_version) + " | " + e.kind +
             " | " + FormatRef(ref) + "]\n" + *content;
    b.tokens = s.Tokens(b.text);
    pinned.push_back(std::move(b));
  }

  // Active objects: in place in the chat, or in the tail.
  std::vector<Shown> shown;
  std::vector<Block> tail;
  std::vector<uint64_t> tail_latest;
  std::vector<std::string> tail_id;
  std::map<std::string, uint64_t> chat_latest;  // Shown chat outputs.
  for (const std::string& id : s.ActiveIds()) {
    const PoolEntry& e = st.entries.at(id);
    CTXKIT_ASSIGN_OR_RETURN(uint64_t latest, latest_of(e));
    if (latest != 0 && e.pinned_version == latest) continue;  // Shown pinned.
    if (latest != 0 && e.pinned_version != 0) {
      result.conflicts.push_back({e.key, e.pinned_version, latest});
    }
    if (e.from_chat) {
      if (latest != 0) chat_latest[id] = latest;
      continue;
    }
    Block b;
    if (latest == 0) {
      b.text = "[active " + e.key + " | removed from the store]";
    } else {
      CTXKIT_ASSIGN_OR_RETURN(auto content, s.Content(e.key, e.scope, latest));
      CTXKIT_ASSIGN_OR_RETURN(Ref ref, view.RefOf(e.key, {.scope = e.scope}));
      b.text = "[active " + e.key + " v" + N(latest) + " (latest) | " + e.kind +
               " | " + FormatRef(ref) + "]\n" + *content;
      Shown sh;
      sh.active_seq = e.active_seq;
      sh.tail = true;
      sh.index = tail.size();
      sh.key = e.key;
      sh.version = latest;
      sh.content_tokens = s.Tokens(*content);
      sh.ref = FormatRef(ref);
      shown.push_back(std::move(sh));
    }
    b.tokens = s.Tokens(b.text);
    tail.push_back(std::move(b));
    tail_latest.push_back(latest);
    tail_id.push_back(id);
  }

  // The chat. Tool-call names and argument texts count as emitted strings.
  CTXKIT_ASSIGN_OR_RETURN(const auto* chat, s.Chat());
  std::vector<Block> chat_text(chat->size());
  std::vector<uint64_t> chat_version(chat->size(), 0);
  uint64_t chat_tokens = 0;
  for (size_t i = 0; i < chat->size(); ++i) {
    const ChatMessage& m = (*chat)[i];
    Block& b = chat_text[i];
    for (const auto& c : m.tool_calls) {
      chat_tokens += s.Tokens(c.name);
      chat_tokens += s.Tokens(anthropic ? ParsedArguments(c.arguments).dump()
                                        : c.arguments);
    }
    if (m.role != "tool") {
      b.text = m.text;
    } else {
      auto it = st.entries.find(m.object_id);
      auto live = chat_latest.find(m.object_id);
      if (live != chat_latest.end()) {
        const PoolEntry& e = it->second;
        CTXKIT_ASSIGN_OR_RETURN(auto content,
                                s.Content(e.key, e.scope, live->second));
        b.text = ToolText(m, Mode::kShown, live->second, *content);
        chat_version[i] = live->second;
        Shown sh;
        sh.active_seq = e.active_seq;
        sh.index = i;
        sh.key = e.key;
        sh.version = live->second;
        sh.content_tokens = s.Tokens(*content);
        sh.ref = m.ref;
        shown.push_back(std::move(sh));
      } else if (it != st.entries.end() && it->second.pinned_version != 0) {
        b.text = ToolText(m, Mode::kPinned, it->second.pinned_version, "");
      } else {
        b.text = ToolText(m, Mode::kCollapsed, 0, "");
      }
    }
    b.tokens = s.Tokens(b.text);
  }

  // The metadata index: lines in join order up to the policy's cap.
  std::vector<const std::string*> lines;
  std::vector<uint64_t> line_tokens;
  bool more = false;
  {
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
        more = true;
        break;
      }
      used += line.tokens;
      lines.push_back(&line.line);
      line_tokens.push_back(line.tokens);
    }
  }
  auto index_text = [&](size_t k, bool more_line) {
    std::string t = kIndexHeader;
    for (size_t i = 0; i < k; ++i) t += "\n" + *lines[i];
    if (more_line) t += std::string("\n") + kIndexMore;
    return t;
  };
  Block index;
  size_t listed = lines.size();
  bool has_index = !lines.empty() || more;
  if (has_index) {
    index.text = index_text(listed, more);
    index.tokens = s.Tokens(index.text);
    // Pieces joined by newlines may merge differently than counted apart:
    // trim by exact count.
    while (index.tokens > st.policy.index_max_tokens && listed > 0) {
      --listed;
      index.text = index_text(listed, true);
      index.tokens = s.Tokens(index.text);
    }
    if (listed < lines.size()) more = true;
  }

  auto total = [&]() {
    uint64_t t = system.tokens + chat_tokens + (has_index ? index.tokens : 0);
    for (const Block& b : pinned) t += b.tokens;
    for (const Block& b : chat_text) t += b.tokens;
    for (const Block& b : tail) t += b.tokens;
    return t;
  };

  // Over budget: drop the oldest unpinned active content first.
  std::stable_sort(shown.begin(), shown.end(),
                   [](const Shown& a, const Shown& b) {
                     return a.active_seq < b.active_seq;
                   });
  // Drops come in whole groups: group g holds the outputs whose cumulative
  // content tokens (oldest first) start in [g*M, (g+1)*M), M the policy's
  // min_collapse_tokens. Older outputs keep their order turn after turn,
  // so the groups do too, and the set dropped (hence the prefix) changes
  // only when one more whole group must go, not on every turn.
  const uint64_t group_tokens =
      std::max<uint64_t>(1, st.policy.min_collapse_tokens);
  uint64_t tokens = total();
  uint64_t cumulative = 0;
  uint64_t dropping_group = UINT64_MAX;
  for (const Shown& sh : shown) {
    const uint64_t group = cumulative / group_tokens;
    cumulative += sh.content_tokens;
    if (tokens <= options.budget_tokens && group != dropping_group) break;
    dropping_group = group;
    Block& b = sh.tail ? tail[sh.index] : chat_text[sh.index];
    tokens -= b.tokens;
    if (sh.tail) {
      b.text = "[active " + sh.key + " v" + N(sh.version) + " | " +
               N(sh.content_tokens) +
               " tokens not shown to fit the token budget; activate " + sh.ref +
               " or raise the budget to see it]";
    } else {
      b.text = ToolText((*chat)[sh.index], Mode::kDropped, sh.version, "");
    }
    b.tokens = s.Tokens(b.text);
    tokens += b.tokens;
    result.dropped.push_back({sh.key, sh.version, sh.content_tokens, sh.ref});
  }
  // Still over: list fewer index entries (largest count that fits), then
  // none.
  if (tokens > options.budget_tokens && has_index) {
    const uint64_t rest = tokens - index.tokens;
    size_t lo = 0, hi = listed;  // Find the largest k in [0, listed] fitting.
    auto fits = [&](size_t k) {
      return rest + s.Tokens(index_text(k, true)) <= options.budget_tokens;
    };
    if (!fits(0)) {
      has_index = false;
      tokens = rest;
      listed = 0;
    } else {
      while (lo < hi) {
        size_t mid = (lo + hi + 1) / 2;
        if (fits(mid)) {
          lo = mid;
        } else {
          hi = mid - 1;
        }
      }
      listed = lo;
      more = true;
      index.text = index_text(listed, true);
      index.tokens = s.Tokens(index.text);
      tokens = rest + index.tokens;
    }
  }
  if (tokens > options.budget_tokens) {
    // Everything droppable is gone, so `tokens` is the smallest budget
    // this session renders in.
    return Status::FailedPrecondition(
        "render of session '" + s.id() + "' needs a budget of at least " +
        N(tokens) + " tokens, over the budget of " + N(options.budget_tokens) +
        " (the system prompt, pinned objects and the chat cannot be dropped; "
        "every unpinned active output and the index already were)");
  }
  result.index_listed = has_index ? listed : 0;
  result.index_total = s.IndexTotal();

  // Assemble the request; count every string emitted as we go.
  uint64_t emitted = 0;
  auto emit = [&](const std::string& text) {
    emitted += s.Tokens(text);
    return text;
  };
  json request;
  if (!anthropic) {
    json messages = json::array();
    auto sys = [&](const std::string& text) {
      messages.push_back({{"role", "system"}, {"content", emit(text)}});
    };
    if (!system.text.empty()) sys(system.text);
    for (const Block& b : pinned) sys(b.text);
    if (has_index) sys(index.text);
    for (size_t i = 0; i < chat->size(); ++i) {
      const ChatMessage& m = (*chat)[i];
      json j = {{"role", m.role}};
      if (m.role == "tool") {
        j["tool_call_id"] = m.call_id;
        j["content"] = emit(chat_text[i].text);
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
        j["content"] = emit(chat_text[i].text);
      }
      messages.push_back(std::move(j));
    }
    for (const Block& b : tail) {
      messages.push_back({{"role", "user"}, {"content", emit(b.text)}});
    }
    request = {{"messages", std::move(messages)}};
  } else {
    json sys_blocks = json::array();
    auto sys = [&](const std::string& text) {
      if (text.empty()) return;  // The API refuses empty text blocks.
      sys_blocks.push_back({{"type", "text"}, {"text", emit(text)}});
    };
    sys(system.text);
    for (const Block& b : pinned) sys(b.text);
    if (has_index) sys(index.text);
    json messages = json::array();
    auto add = [&](const std::string& role, json block) {
      if (messages.empty() || messages.back()["role"] != role) {
        messages.push_back({{"role", role}, {"content", json::array()}});
      }
      messages.back()["content"].push_back(std::move(block));
    };
    for (size_t i = 0; i < chat->size(); ++i) {
      const ChatMessage& m = (*chat)[i];
      if (m.role == "tool") {
        json b = {{"type", "tool_result"},
                  {"tool_use_id", m.call_id},
                  {"content", emit(chat_text[i].text)}};
        if (m.status == "error") b["is_error"] = true;
        add("user", std::move(b));
        continue;
      }
      if (!m.text.empty()) {
        add(m.role, {{"type", "text"}, {"text", emit(m.text)}});
      }
      for (const auto& c : m.tool_calls) {
        json input = ParsedArguments(c.arguments);
        emit(input.dump());
        add("assistant", {{"type", "tool_use"},
                          {"id", c.id},
                          {"name", emit(c.name)},
                          {"input", std::move(input)}});
      }
    }
    // Cache breakpoints at the end of the stable part: the system blocks,
    // and the chat (the tail of active objects changes turn by turn).
    if (!sys_blocks.empty()) {
      sys_blocks.back()["cache_control"] = {{"type", "ephemeral"}};
    }
    if (!messages.empty()) {
      messages.back()["content"].back()["cache_control"] = {
          {"type", "ephemeral"}};
    }
    for (const Block& b : tail) {
      add("user", {{"type", "text"}, {"text", emit(b.text)}});
    }
    request = {{"messages", std::move(messages)}};
    if (!sys_blocks.empty()) request["system"] = std::move(sys_blocks);
  }
  if (emitted != tokens || emitted > options.budget_tokens) {
    return Status::Internal("render counted " + N(tokens) +
                            " tokens but emitted " + N(emitted));
  }
  result.tokens = emitted;
  result.request_json = request.dump();
  return result;
}

}  // namespace ctxkit
