// Rendering: the provider request the model sees, never over budget.
//
// Layout (stable-prefix order): the system text; one block per pinned
// object (seq order); the metadata index (join order, capped); the
// compactions (chat order); the chat from the first message no compaction
// holds, where each tool message carries its reference line and, while the
// output is active, the output itself; then one block per other active
// object (activation order). Tokens are the sum of the exact o200k_base
// counts of every text string emitted (see docs/sessions.md).

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/status_macros.h"
#include "ctxkit/session.h"
#include "session/relief.h"
#include "session/render_layout.h"
#include "session/render_record.h"
#include "session/session_impl.h"

namespace ctxkit {
namespace {

using nlohmann::json;
using session::Block;
using session::ChatMessage;
using session::Layout;
using session::MetadataIndexBlock;
using session::Shown;
using session::TailBlock;
using session::ToolMode;

std::string IndexLineText(const PoolEntry& e) {
  return "- " + e.key + " v" + std::to_string(e.version) + " | " + e.kind +
         " | " + std::to_string(e.tokens) + " tokens | " + e.title + " | " +
         e.ref;
}

// Latest version of an active entry (0 when removed from the store); a
// shared entry's own version (SessionImpl::IsShared).
Result<uint64_t> LatestVersion(SessionImpl& s, const PoolEntry& e) {
  if (s.IsShared(e)) return e.version;
  Result<ObjectMeta> m = s.view().Stat(e.key, {.scope = e.scope});
  if (m.ok()) return m->id == e.id ? m->version : 0;
  if (m.status().IsNotFound()) return uint64_t{0};
  return m.status();
}

// One block per pinned object, in seq order.
Status GatherPinned(SessionImpl& s, Layout* layout) {
  for (const std::string& id : s.PinnedIds()) {
    const PoolEntry& e = s.state().entries.at(id);
    CTXKIT_ASSIGN_OR_RETURN(auto content, s.EntryContent(e, e.pinned_version));
    CTXKIT_ASSIGN_OR_RETURN(Ref ref, s.EntryRef(e, e.pinned_version));
    session::PinnedSpec spec{FormatRef(ref), e.key, e.kind};
    Block b;
    b.text = session::PinnedBlockText(spec, e.pinned_version, *content);
    b.tokens = s.Tokens(b.text);
    layout->pinned.push_back(std::move(b));
    layout->pinned_specs.push_back(std::move(spec));
  }
  return Status::Ok();
}

// The tail block of an active object outside the chat at its latest
// version (0: removed), noting its content as droppable.
Status AddTailBlock(SessionImpl& s, const PoolEntry& e, uint64_t latest,
                    Layout* layout) {
  TailBlock t;
  t.key = e.key;
  t.kind = e.kind;
  if (latest == 0) {
    t.block.text = "[active " + e.key + " | removed from the store]";
  } else {
    CTXKIT_ASSIGN_OR_RETURN(auto content, s.EntryContent(e, latest));
    CTXKIT_ASSIGN_OR_RETURN(Ref ref, s.EntryRef(e, 0));
    CTXKIT_ASSIGN_OR_RETURN(Ref at, s.EntryRef(e, latest));
    t.shown = true;
    t.ref = FormatRef(at);
    t.printed_ref = FormatRef(ref);
    t.block.text =
        session::TailShownText(e.key, latest, e.kind, t.printed_ref, *content);
    Shown sh;
    sh.active_seq = e.active_seq;
    sh.tail = true;
    sh.index = layout->tail.size();
    sh.key = e.key;
    sh.version = latest;
    sh.content_tokens = s.Tokens(*content);
    sh.ref = t.printed_ref;
    layout->shown.push_back(std::move(sh));
  }
  t.block.tokens = s.Tokens(t.block.text);
  layout->tail.push_back(std::move(t));
  return Status::Ok();
}

// Active objects: those of the chat (not compacted) are shown in place
// (their latest versions returned by id), the others in the tail. Pins
// that lag behind the latest version are reported as conflicts.
Result<std::map<std::string, uint64_t>> GatherActive(SessionImpl& s,
                                                     Layout* layout,
                                                     RenderResult* result) {
  std::map<std::string, uint64_t> chat_latest;
  for (const std::string& id : s.ActiveIds()) {
    const PoolEntry& e = s.state().entries.at(id);
    CTXKIT_ASSIGN_OR_RETURN(uint64_t latest, LatestVersion(s, e));
    if (latest != 0 && e.pinned_version == latest) continue;  // Shown pinned.
    if (latest != 0 && e.pinned_version != 0) {
      result->conflicts.push_back({e.key, e.pinned_version, latest});
    }
    if (e.from_chat && !e.compacted) {
      if (latest != 0) chat_latest[id] = latest;
      continue;
    }
    CTXKIT_RETURN_IF_ERROR(AddTailBlock(s, e, latest, layout));
  }
  return chat_latest;
}

// The text of rendered chat message `rel`, a tool message: its output while
// active (at `chat_latest`'s version), else a pinned note or the
// placeholder.
Result<std::string> ToolMessageText(
    SessionImpl& s, size_t rel,
    const std::map<std::string, uint64_t>& chat_latest, Layout* layout) {
  const ChatMessage& m = layout->message(rel);
  const auto& entries = s.state().entries;
  auto it = entries.find(m.object_id);
  auto live = chat_latest.find(m.object_id);
  if (live != chat_latest.end()) {
    const PoolEntry& e = it->second;
    CTXKIT_ASSIGN_OR_RETURN(auto content, s.EntryContent(e, live->second));
    Shown sh;
    sh.active_seq = e.active_seq;
    sh.index = rel;
    sh.key = e.key;
    sh.version = live->second;
    sh.content_tokens = s.Tokens(*content);
    sh.ref = m.ref;
    sh.newest = rel >= layout->newest_from;
    layout->shown.push_back(std::move(sh));
    layout->modes[rel] = ToolMode::kShown;
    if (live->second != m.version) {
      CTXKIT_ASSIGN_OR_RETURN(Ref ref, s.EntryRef(e, live->second));
      layout->shown_refs[rel] = FormatRef(ref);
    }
    return session::ToolText(m, layout->first + rel, ToolMode::kShown,
                             live->second, *content, layout->texts);
  }
  if (it != entries.end() && it->second.pinned_version != 0) {
    layout->modes[rel] = ToolMode::kPinned;
    return session::ToolText(m, layout->first + rel, ToolMode::kPinned,
                             it->second.pinned_version, "", layout->texts);
  }
  layout->modes[rel] = ToolMode::kHidden;
  return session::ToolText(m, layout->first + rel, ToolMode::kHidden, 0, "",
                           layout->texts);
}

// The chat from the first uncompacted message, one block per message.
// Tool-call names and argument texts count as emitted strings.
Status GatherChat(SessionImpl& s, LogFormat format,
                  const std::map<std::string, uint64_t>& chat_latest,
                  Layout* layout) {
  CTXKIT_ASSIGN_OR_RETURN(layout->chat, s.Chat());
  layout->fragments = &s.fragments();
  layout->chat_epoch = s.chat_epoch();
  const std::vector<ChatMessage>& chat = *layout->chat;
  layout->first = std::min<size_t>(s.state().compacted_end(), chat.size());
  const size_t n = chat.size() - layout->first;
  layout->chat_text.resize(n);
  layout->modes.assign(n, ToolMode::kText);
  layout->shown_refs.assign(n, std::string());
  layout->call_tokens.assign(n, 0);
  layout->excerpts.assign(n, {});
  // The newest outputs answer the last message that called tools.
  layout->newest_from =
      session::NewestOutputsFrom(chat, layout->first) - layout->first;
  for (size_t rel = 0; rel < n; ++rel) {
    const ChatMessage& m = layout->message(rel);
    for (const auto& c : m.tool_calls) {
      layout->call_tokens[rel] += s.Tokens(c.name);
      layout->call_tokens[rel] +=
          s.Tokens(format == LogFormat::kAnthropic
                       ? session::ParsedArgumentsText(c.arguments)
                       : c.arguments);
    }
    Block& b = layout->chat_text[rel];
    if (m.role == session::kItemRole && format != LogFormat::kOpenAIResponses) {
      continue;  // Only a Responses request holds it: no text, no tokens.
    }
    if (m.role != "tool") {
      b.text = m.text;
    } else {
      CTXKIT_ASSIGN_OR_RETURN(b.text,
                              ToolMessageText(s, rel, chat_latest, layout));
    }
    b.tokens = s.Tokens(b.text);
  }
  return Status::Ok();
}

// One block per compaction, in chat order.
Status GatherCompactions(SessionImpl& s, Layout* layout) {
  for (const CompactionInfo& c : s.state().compactions) {
    CTXKIT_ASSIGN_OR_RETURN(const std::string* text,
                            s.CompactionText(c.ref, layout->texts));
    layout->compactions.push_back({*text, s.Tokens(*text)});
    layout->compaction_refs.push_back(c.ref);
  }
  return Status::Ok();
}

// The metadata index lines that fit the policy's cap, counted apart (each
// line's count cached per entry version).
MetadataIndexBlock CollectMetadataIndexLines(SessionImpl& s, uint64_t cap) {
  const session::State& st = s.state();
  MetadataIndexBlock index;
  auto& cache = s.index_lines();
  uint64_t used = s.Tokens(index.Text(0, false));
  for (const std::string& id : s.IndexIds()) {
    const PoolEntry& e = st.entries.at(id);
    auto& line = cache[id];
    if (line.version != e.version || line.line.empty()) {
      line.version = e.version;
      line.line = IndexLineText(e);
      line.tokens = s.Tokens(line.line) + 1;  // + the newline.
    }
    if (used + line.tokens > cap) {
      index.more = true;
      break;
    }
    used += line.tokens;
    index.lines.push_back(&line.line);
  }
  return index;
}

// The metadata index block within the policy's cap for `budget`.
Result<MetadataIndexBlock> BuildMetadataIndex(SessionImpl& s, uint64_t budget) {
  const uint64_t cap = session::IndexCapTokens(s.state().policy, budget);
  MetadataIndexBlock index = CollectMetadataIndexLines(s, cap);
  while (!index.more && !s.state().complete &&
         s.state().listed_through != UINT64_MAX) {
    // The cap holds more lines than the load brought: read more.
    CTXKIT_RETURN_IF_ERROR(s.LoadMoreListed());
    index = CollectMetadataIndexLines(s, cap);
  }
  index.listed = index.lines.size();
  index.present = !index.lines.empty() || index.more;
  if (!index.present) return index;
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
  if (sh.tail) {
    TailBlock& t = layout->tail[sh.index];
    t.shown = false;
    t.block.text = "[active " + sh.key + " v" + std::to_string(sh.version) +
                   " | " + std::to_string(sh.content_tokens) +
                   " tokens not shown to fit the token budget; activate " +
                   sh.ref + " or raise the budget to see it]";
    t.block.tokens = s.Tokens(t.block.text);
    return;
  }
  Block& b = layout->chat_text[sh.index];
  layout->modes[sh.index] = ToolMode::kHidden;
  layout->shown_refs[sh.index].clear();
  b.text = session::PlaceholderText(layout->message(sh.index),
                                    layout->first + sh.index, layout->texts);
  b.tokens = s.Tokens(b.text);
}

// Over budget: drops the oldest unpinned active content first, in whole
// groups, never one of the newest outputs. Group g holds the outputs
// whose cumulative content tokens (oldest first) start in [g*M, (g+1)*M),
// M the policy's smallest relief for this budget (MinCollapseTokens).
// Older outputs keep their order turn after turn, so the groups do too,
// and the set dropped (hence the prefix) changes only when one more whole
// group must go, not on every turn. Returns the layout's total.
uint64_t DropOldestContent(SessionImpl& s, uint64_t budget, Layout* layout,
                           RenderResult* result) {
  std::vector<Shown>& shown = layout->shown;
  std::stable_sort(shown.begin(), shown.end(),
                   [](const Shown& a, const Shown& b) {
                     return a.active_seq < b.active_seq;
                   });
  const uint64_t group_tokens = std::max<uint64_t>(
      1, session::MinCollapseTokens(s.state().policy, budget));
  uint64_t tokens = layout->Total();
  uint64_t cumulative = 0;
  uint64_t dropping_group = UINT64_MAX;
  for (const Shown& sh : shown) {
    if (sh.newest) continue;
    const uint64_t group = cumulative / group_tokens;
    cumulative += sh.content_tokens;
    if (tokens <= budget && group != dropping_group) break;
    dropping_group = group;
    const uint64_t before = sh.tail ? layout->tail[sh.index].block.tokens
                                    : layout->chat_text[sh.index].tokens;
    DropContent(s, sh, layout);
    const uint64_t after = sh.tail ? layout->tail[sh.index].block.tokens
                                   : layout->chat_text[sh.index].tokens;
    tokens = tokens - before + after;
    result->dropped.push_back({sh.key, sh.version, sh.content_tokens, sh.ref});
  }
  return tokens;
}

// Still over budget: lists fewer index entries (the largest count that
// fits), then none. Returns the layout's total.
uint64_t ShrinkMetadataIndex(SessionImpl& s, uint64_t budget, uint64_t tokens,
                             MetadataIndexBlock* index) {
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

// The excerpt of the output `sh` shows (chat message sh.index) with the
// most lines whose text fits `room` tokens (none when not even the note
// fits), as a block.
Result<Block> FitExcerpt(SessionImpl& s, const Shown& sh, uint64_t room,
                         Layout* layout, session::ExcerptSpec* spec) {
  const ChatMessage& m = layout->message(sh.index);
  const PoolEntry& e = s.state().entries.at(m.object_id);
  CTXKIT_ASSIGN_OR_RETURN(auto content, s.EntryContent(e, sh.version));
  const std::string& shown_ref = layout->shown_refs[sh.index];
  const std::string& ref = shown_ref.empty() ? m.ref : shown_ref;
  auto text_of = [&](uint64_t k) {
    // Two thirds head, one third tail: a log's start says what ran, its
    // end how it ended.
    const session::ExcerptSpec at{k - k / 3, k / 3};
    return session::ExcerptText(m, layout->first + sh.index, sh.version, ref,
                                *content, at, layout->texts);
  };
  // The largest line count k whose excerpt fits (the text grows with k).
  uint64_t lo = 0, hi = session::LineCount(*content);
  hi = hi > 0 ? hi - 1 : 0;  // All lines would be the whole output.
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo + 1) / 2;
    if (s.Tokens(text_of(mid)) <= room) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  *spec = {lo - lo / 3, lo / 3};
  Block b;
  b.text = text_of(lo);
  b.tokens = s.Tokens(b.text);
  return b;
}

// Still over budget with everything else dropped: shows the newest
// outputs that do not fit whole as excerpts, sharing the room left (the
// smallest outputs first, each whole when it fits its share). Returns the
// layout's total.
Result<uint64_t> ExcerptNewest(SessionImpl& s, uint64_t budget, uint64_t tokens,
                               Layout* layout) {
  std::vector<const Shown*> newest;
  uint64_t shown_tokens = 0;
  for (const Shown& sh : layout->shown) {
    if (sh.tail || !sh.newest || layout->modes[sh.index] != ToolMode::kShown) {
      continue;
    }
    newest.push_back(&sh);
    shown_tokens += layout->chat_text[sh.index].tokens;
  }
  if (newest.empty()) return tokens;
  const uint64_t rest = tokens - shown_tokens;
  uint64_t room = budget > rest ? budget - rest : 0;
  std::stable_sort(newest.begin(), newest.end(),
                   [](const Shown* a, const Shown* b) {
                     return a->content_tokens < b->content_tokens;
                   });
  uint64_t total = rest;
  for (size_t k = 0; k < newest.size(); ++k) {
    const Shown& sh = *newest[k];
    const uint64_t share = room / (newest.size() - k);
    Block& b = layout->chat_text[sh.index];
    if (b.tokens > share) {
      session::ExcerptSpec spec;
      CTXKIT_ASSIGN_OR_RETURN(Block excerpt,
                              FitExcerpt(s, sh, share, layout, &spec));
      b = std::move(excerpt);
      layout->modes[sh.index] = ToolMode::kExcerpt;
      layout->excerpts[sh.index] = spec;
    }
    room = room > b.tokens ? room - b.tokens : 0;
    total += b.tokens;
  }
  return total;
}

// Fits the layout to the budget (dropping older content, then index
// lines, then, when `excerpt`, showing the newest outputs as excerpts); returns
// its total, or FailedPrecondition with the smallest budget the session renders
// in.
Result<uint64_t> FitBudget(SessionImpl& s, uint64_t budget, bool excerpt,
                           Layout* layout, RenderResult* result) {
  uint64_t tokens = DropOldestContent(s, budget, layout, result);
  tokens = ShrinkMetadataIndex(s, budget, tokens, &layout->metadata_index);
  if (tokens > budget && excerpt) {
    CTXKIT_ASSIGN_OR_RETURN(tokens, ExcerptNewest(s, budget, tokens, layout));
  }
  if (tokens > budget) {
    // Everything droppable is gone and the chat is compacted down to its
    // last turn, so `tokens` is the smallest budget this session renders
    // in.
    return Status::FailedPrecondition(
        "render of session '" + s.id() + "' needs a budget of at least " +
        std::to_string(tokens) + " tokens, over the budget of " +
        std::to_string(budget) +
        " (the system prompt, pinned objects, the last turn and one "
        "compaction cannot be dropped; every unpinned active output and the "
        "index already were)");
  }
  return tokens;
}

// The provider's prompt cache has expired since the last recorded render
// (SessionPolicy::cache_ttl_seconds): a relief now costs no cached prefix.
Result<bool> CacheIsCold(SessionImpl& s) {
  const uint32_t ttl = s.state().policy.cache_ttl_seconds;
  if (ttl == 0) return false;
  CTXKIT_ASSIGN_OR_RETURN(std::optional<int64_t> last,
                          session::LastRecordTime(s));
  return last.has_value() &&
         core::NowUnixNanos() - *last > int64_t{ttl} * 1'000'000'000;
}

}  // namespace

namespace session {

Result<Layout> GatherLayout(SessionImpl& s, LogFormat format, uint64_t budget,
                            ToolTexts texts, RenderResult* result) {
  Layout layout;
  layout.texts = texts;
  CTXKIT_ASSIGN_OR_RETURN(layout.system.text, s.SystemText());
  layout.system.tokens = s.Tokens(layout.system.text);
  CTXKIT_ASSIGN_OR_RETURN(layout.system_ref, s.SystemRef());
  CTXKIT_ASSIGN_OR_RETURN(layout.chat_ref, s.ChatRef());
  CTXKIT_RETURN_IF_ERROR(GatherPinned(s, &layout));
  CTXKIT_ASSIGN_OR_RETURN(auto chat_latest, GatherActive(s, &layout, result));
  CTXKIT_RETURN_IF_ERROR(GatherChat(s, format, chat_latest, &layout));
  CTXKIT_RETURN_IF_ERROR(GatherCompactions(s, &layout));
  CTXKIT_ASSIGN_OR_RETURN(layout.metadata_index, BuildMetadataIndex(s, budget));
  return layout;
}

}  // namespace session

Result<RenderResult> Session::Render(const RenderOptions& options) {
  if (options.budget_tokens == 0) {
    return Status::InvalidArgument("render budget must be >= 1 token");
  }
  SessionImpl& s = *impl_;
  CTXKIT_ASSIGN_OR_RETURN(const std::string tools,
                          session::CanonicalTools(options.tools_json));
  // A render that carries the agent tools names them in its pointers.
  const session::ToolTexts texts = tools.empty() ? session::ToolTexts::kCompact
                                                 : session::ToolTexts::kHandles;
  RenderResult result;
  Layout layout;
  uint64_t tokens = 0;
  // Budget pressure persists what it frees, so the render runs as a
  // mutation; it writes nothing when there is no pressure.
  CTXKIT_RETURN_IF_ERROR(s.Mutate([&](SessionChanges& ch) -> Status {
    result = RenderResult();
    result.format = options.format;
    result.budget_tokens = options.budget_tokens;
    const uint64_t budget = options.budget_tokens;
    auto gather = [&]() -> Status {
      result.conflicts.clear();
      result.dropped.clear();
      CTXKIT_ASSIGN_OR_RETURN(
          layout,
          session::GatherLayout(s, options.format, budget, texts, &result));
      layout.tools = {tools, tools.empty() ? 0 : s.Tokens(tools)};
      return Status::Ok();
    };
    CTXKIT_RETURN_IF_ERROR(gather());
    CTXKIT_ASSIGN_OR_RETURN(const bool cold, CacheIsCold(s));
    // A compaction the model asked for (ctxkit_compact), first.
    CTXKIT_ASSIGN_OR_RETURN(
        bool asked,
        session::CompactOnRequest(s, layout, budget, options.llm, ch, &result));
    if (asked) CTXKIT_RETURN_IF_ERROR(gather());
    for (int round = 0; round < session::kReliefRounds; ++round) {
      CTXKIT_ASSIGN_OR_RETURN(
          bool changed,
          session::RelievePressure(s, layout, budget, /*must_fit=*/false, cold,
                                   options.llm, ch, &result));
      if (!changed) break;
      CTXKIT_RETURN_IF_ERROR(gather());
    }
    Result<uint64_t> fit =
        FitBudget(s, budget, /*excerpt=*/false, &layout, &result);
    if (!fit.ok()) {
      // Too large with everything older dropped: compact down to the last
      // turn, then show the newest outputs as excerpts if they still do
      // not fit whole.
      CTXKIT_ASSIGN_OR_RETURN(
          bool changed,
          session::RelievePressure(s, layout, budget, /*must_fit=*/true, cold,
                                   options.llm, ch, &result));
      (void)changed;
      CTXKIT_RETURN_IF_ERROR(gather());
      fit = FitBudget(s, budget, /*excerpt=*/true, &layout, &result);
      if (!fit.ok()) return fit.status();
    }
    // Placeholders over their share: fold the oldest turns holding them
    // into a compaction.
    CTXKIT_ASSIGN_OR_RETURN(
        bool folded,
        session::FoldPlaceholders(s, layout, budget, options.llm, ch, &result));
    if (folded) {
      CTXKIT_RETURN_IF_ERROR(gather());
      fit = FitBudget(s, budget, /*excerpt=*/true, &layout, &result);
      if (!fit.ok()) return fit.status();
    }
    tokens = *fit;
    return Status::Ok();
  }));
  result.index_listed =
      layout.metadata_index.present ? layout.metadata_index.listed : 0;
  result.index_total = s.IndexTotal();
  result.compacted_messages = s.state().compacted_end();

  uint64_t emitted = 0;
  std::string request = session::BuildRequest(
      layout, options.format, [&](std::string_view t) { return s.Tokens(t); },
      &emitted);
  if (emitted != tokens || emitted > options.budget_tokens) {
    return Status::Internal("render counted " + std::to_string(tokens) +
                            " tokens but emitted " + std::to_string(emitted));
  }
  result.tokens = emitted;
  result.breakdown = layout.Breakdown();
  result.request_json = std::move(request);
  result.bytes = result.request_json.size();
  if (options.record) {
    // The relief above is committed already (its own compare-and-set
    // mutation); a record that fails leaves it so, and says so.
    Status recorded = session::RecordRender(s, layout, options, &result);
    if (!recorded.ok()) {
      return recorded.WithContext(
          "render record not written (what this render collapsed or "
          "compacted stays so; render again to record one)");
    }
  }
  return result;
}

}  // namespace ctxkit
