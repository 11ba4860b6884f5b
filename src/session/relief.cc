// Budget pressure: collapses and compactions (relief.h).

#include "session/relief.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/status_macros.h"
#include "session/compaction_summary.h"
#include "session/object_info.h"
#include "text/json_parse.h"
#include "text/json_write.h"

namespace ctxkit::session {
namespace {

using nlohmann::json;

// A compaction's block before its summary is known: the header and room
// for a summary of the policy's size for `budget`.
uint64_t BlockEstimate(const SessionPolicy& p, uint64_t budget) {
  return SummaryCapTokens(p, budget) + 48;
}

// What relief will do.
struct Plan {
  std::vector<size_t> collapse;  // Rendered message indices (relative).
  uint64_t collapse_freed = 0;
  size_t compact_end = 0;  // Relative; 0: no compaction.
  bool merge = false;      // The new compaction replaces all earlier ones.
  uint64_t compact_freed = 0;
  // What the compaction's summary must keep (a model's ctxkit_compact).
  std::string instructions;
};

// Tokens a shown output's message or tail block would use as a
// placeholder; the rest of its tokens can be freed.
uint64_t Freeable(SessionImpl& s, const Layout& layout, const Shown& sh) {
  if (sh.tail) {
    const uint64_t t = layout.tail[sh.index].block.tokens;
    return t > 48 ? t - 48 : 0;
  }
  const uint64_t hidden = s.Tokens(PlaceholderText(
      layout.message(sh.index), layout.first + sh.index, layout.texts));
  const uint64_t t = layout.chat_text[sh.index].tokens;
  return t > hidden ? t - hidden : 0;
}

// Collapse: the outputs the policy made active, older than the newest
// keep_tool_outputs and not among the newest outputs, oldest first, until
// `need` tokens are freed.
void PlanCollapse(SessionImpl& s, const Layout& layout, uint64_t need,
                  Plan* plan) {
  const std::set<std::string> kept = NewestOutputIds(
      layout.messages(), layout.first, s.state().policy.keep_tool_outputs);
  const auto& entries = s.state().entries;
  for (const Shown& sh : layout.shown) {
    if (plan->collapse_freed >= need) break;
    if (sh.tail || sh.newest) continue;
    const ChatMessage& m = layout.message(sh.index);
    auto it = entries.find(m.object_id);
    if (it == entries.end() || kept.count(m.object_id) != 0) continue;
    const PoolEntry& e = it->second;
    if (!e.auto_active || e.pinned_version != 0) continue;
    plan->collapse.push_back(sh.index);
    plan->collapse_freed += Freeable(s, layout, sh);
  }
}

// The rendered messages (relative) that start a turn, after the first.
std::vector<size_t> TurnStarts(const Layout& layout) {
  std::vector<size_t> starts;
  for (size_t rel = 1; rel < layout.chat_text.size(); ++rel) {
    if (layout.message(rel).role == "user" &&
        layout.message(rel - 1).role != "user") {
      starts.push_back(rel);
    }
  }
  return starts;
}

// Compaction: the smallest turn boundary that frees `need` tokens of the
// chat (else the last one allowed), never within the newest `keep_turns`
// turns (1 when the render must fit).
void PlanCompaction(SessionImpl& s, const Layout& layout, uint64_t budget,
                    uint64_t need, bool must_fit, Plan* plan) {
  const SessionPolicy& p = s.state().policy;
  const std::vector<size_t> starts = TurnStarts(layout);
  const size_t keep = must_fit ? 1 : p.keep_turns;
  if (starts.size() < keep) return;
  const size_t allowed = starts.size() + 1 - keep;  // starts[0, allowed).
  if (allowed == 0) return;
  plan->merge = must_fit ? !layout.compactions.empty()
                         : layout.compactions.size() + 1 > kMaxCompactions;
  uint64_t existing = 0;
  if (plan->merge) {
    for (const Block& b : layout.compactions) existing += b.tokens;
  }
  const uint64_t block = BlockEstimate(p, budget);
  // Placeholders the older tool messages from each rendered message on
  // would cost were every one hidden (the render may drop them): the
  // compaction reaches far enough that they stay within
  // kPlaceholderTargetPercent, so the render folds no more turns
  // (FoldPlaceholders) and asks an endpoint once.
  const size_t n = layout.chat_text.size();
  std::vector<uint64_t> later(n + 1, 0);
  for (size_t i = n; i-- > 0;) {
    const ChatMessage& m = layout.message(i);
    later[i] =
        later[i + 1] +
        (m.role == "tool" && i < layout.newest_from
             ? s.Tokens(PlaceholderText(m, layout.first + i, layout.texts))
             : 0);
  }
  const uint64_t placeholder_room = Share(budget, kPlaceholderTargetPercent);
  uint64_t removed = 0;
  size_t rel = 0;
  for (size_t k = 0; k < allowed; ++k) {
    for (; rel < starts[k]; ++rel) {
      // Measured as `need` is: a shown output's content is droppable
      // anyway (collapsed, or moved to the tail when a user keeps it), so a
      // compaction frees only its placeholder.
      removed += layout.call_tokens[rel];
      removed +=
          layout.modes[rel] == ToolMode::kShown
              ? s.Tokens(PlaceholderText(layout.message(rel),
                                         layout.first + rel, layout.texts))
              : layout.chat_text[rel].tokens;
    }
    plan->compact_end = starts[k];
    const uint64_t gain = removed + existing;
    plan->compact_freed = gain > block ? gain - block : 0;
    if (plan->compact_freed >= need && later[starts[k]] <= placeholder_room) {
      break;
    }
  }
}

// After an endpoint fails, compactions use the structural summary without
// asking it again for this long (a render may compact up to four times, and
// a mutation that loses to another writer runs again).
constexpr std::chrono::seconds kLlmRetryAfter{60};

// The summary of chat messages [first, end): the endpoint's when there is
// one (a merge sends it the summaries it replaces and the messages after
// them), else, or when it fails, the structural one.
CompactionSummary Summarize(SessionImpl& s,
                            const std::vector<ChatMessage>& chat, size_t first,
                            size_t end, const std::vector<std::string>& merged,
                            uint64_t cap, const std::optional<LlmEndpoint>& llm,
                            const std::string& instructions) {
  // The structural summary, built only when it is the one stored. It
  // cannot follow instructions: it quotes them first, so the model still
  // reads what it asked to keep.
  auto structural = [&](std::string notes) {
    std::string text = SummarizeTurns(chat, first, end, cap);
    if (!instructions.empty()) {
      text = "Asked to keep: " + instructions + "\n" + text;
    }
    return CompactionSummary{std::move(text), kStructuralSummarizer,
                             std::move(notes)};
  };
  if (!llm || !llm->configured()) return structural("");
  const std::string identity = "llm-v1:" + llm->model;
  SessionImpl::LlmSummaryMemo& memo = s.llm_summary_memo();
  const auto now = std::chrono::steady_clock::now();
  if (!memo.failure.empty() && memo.failed_identity == identity &&
      now - memo.failed_at < kLlmRetryAfter) {
    return structural(memo.failure);
  }
  std::vector<std::string> earlier;
  size_t from = first;
  for (const std::string& ref : merged) {
    Result<const std::string*> text = s.CompactionText(ref);
    if (!text.ok()) {
      earlier.clear();
      from = first;
      break;
    }
    // The block's summary, without its header line (which names the ref).
    const size_t nl = (*text)->find('\n');
    earlier.push_back(nl == std::string::npos ? **text
                                              : (*text)->substr(nl + 1));
    for (const CompactionInfo& c : s.state().compactions) {
      if (c.ref == ref) from = std::max<size_t>(from, c.end_message);
    }
  }
  std::string transcript =
      CompactionTranscript(chat, first, std::min(from, end), end, earlier);
  if (!instructions.empty()) {
    transcript += "\n\nThe summary must keep: " + instructions + "\n";
  }
  // The same request is not sent twice (a mutation run again).
  if (memo.identity == identity && memo.cap == cap &&
      memo.transcript == transcript) {
    return {memo.summary, identity, ""};
  }
  Result<std::string> text = LlmCompactionSummary(*llm, transcript, cap);
  if (!text.ok()) {
    memo.failed_identity = identity;
    memo.failed_at = now;
    memo.failure = identity + " failed (" + text.status().ToString() +
                   "); the structural summary stands in";
    return structural(memo.failure);
  }
  memo.identity = identity;
  memo.cap = cap;
  memo.transcript = transcript;
  memo.summary = *text;
  memo.failure.clear();
  return {*std::move(text), identity, ""};
}

// Writes the compaction object for chat messages [first, end) and returns
// its description.
Result<CompactionInfo> WriteCompaction(SessionImpl& s, size_t first, size_t end,
                                       const std::vector<std::string>& merged,
                                       uint64_t cap,
                                       const std::optional<LlmEndpoint>& llm,
                                       const std::string& instructions) {
  CTXKIT_ASSIGN_OR_RETURN(const auto* chat, s.Chat());
  const CompactionSummary summary =
      Summarize(s, *chat, first, end, merged, cap, llm, instructions);
  json outputs = json::array();
  std::set<std::string> seen;
  for (size_t i = first; i < end; ++i) {
    const ChatMessage& m = (*chat)[i];
    if (m.role == "tool" && seen.insert(m.ref).second) outputs.push_back(m.ref);
  }
  const uint64_t turns = TurnLines(*chat, first, end).size();
  CTXKIT_ASSIGN_OR_RETURN(std::string chat_ref, s.ChatRef());
  json content = {{"kind", "ctxkit.compaction"},
                  {"format", 1},
                  {"session", s.id()},
                  {"chat", chat_ref},
                  {"first", first},
                  {"end", end},
                  {"turns", turns},
                  {"summarizer", summary.summarizer},
                  {"summary", summary.text},
                  {"tool_outputs", std::move(outputs)},
                  {"replaces", merged}};
  if (!summary.notes.empty()) content["summary_notes"] = summary.notes;
  if (!instructions.empty()) content["instructions"] = instructions;
  SetOptions opts{.scope = "session",
                  .type = ValueType::kJson,
                  .producer = "session:" + s.id()};
  // An endpoint's error text may not be valid UTF-8: replace, not throw.
  CTXKIT_ASSIGN_OR_RETURN(Ref ref, s.view().Set(std::string(kCompactionPrefix) +
                                                    std::to_string(first) +
                                                    "-" + std::to_string(end),
                                                text::DumpJson(content), opts));
  return CompactionInfo{FormatRef(ref), first, end, turns};
}

// Applies `plan` to the state.
Status Apply(SessionImpl& s, const Layout& layout, const Plan& plan,
             uint64_t budget, const std::optional<LlmEndpoint>& llm,
             SessionChanges& ch, RenderResult* result) {
  State& st = s.state();
  s.TouchEntries();  // The lists of active and pinned ids change.
  auto hide = [&](PoolEntry& e) {
    if (!e.active || !e.auto_active) return false;
    e.active = false;
    e.auto_active = false;
    e.collapsed = true;
    ch.dirty.insert(e.id);
    return true;
  };
  for (size_t rel : plan.collapse) {
    auto it = st.entries.find(layout.message(rel).object_id);
    if (it != st.entries.end() && hide(it->second)) {
      result->collapsed.push_back(it->second.key);
    }
  }
  if (plan.compact_end == 0) return Status::Ok();
  const size_t first = plan.merge ? 0 : layout.first;
  const size_t end = layout.first + plan.compact_end;
  std::vector<std::string> merged;
  if (plan.merge) {
    for (const CompactionInfo& c : st.compactions) merged.push_back(c.ref);
  }
  CTXKIT_ASSIGN_OR_RETURN(CompactionInfo info,
                          WriteCompaction(s, first, end, merged,
                                          SummaryCapTokens(st.policy, budget),
                                          llm, plan.instructions));
  std::vector<std::string> outputs;
  for (size_t rel = 0; rel < plan.compact_end; ++rel) {
    const ChatMessage& m = layout.message(rel);
    if (m.role == "tool") outputs.push_back(m.object_id);
  }
  CTXKIT_RETURN_IF_ERROR(s.LoadEntries(outputs));
  for (size_t rel = 0; rel < plan.compact_end; ++rel) {
    const ChatMessage& m = layout.message(rel);
    if (m.role != "tool") continue;
    auto it = st.entries.find(m.object_id);
    if (it == st.entries.end() || !it->second.from_chat) continue;
    it->second.compacted = true;
    hide(it->second);
    ch.dirty.insert(m.object_id);
  }
  if (plan.merge) st.compactions.clear();
  // The compaction, and the chat version its messages are read from.
  CTXKIT_ASSIGN_OR_RETURN(Ref compaction, ParseRef(info.ref));
  ch.hold.push_back(std::move(compaction));
  CTXKIT_ASSIGN_OR_RETURN(std::string chat_text, s.ChatRef());
  if (!chat_text.empty()) {
    CTXKIT_ASSIGN_OR_RETURN(Ref chat, ParseRef(chat_text));
    ch.hold.push_back(std::move(chat));
  }
  st.compactions.push_back(info);
  result->compacted = info;
  ch.state = true;
  return Status::Ok();
}

}  // namespace

uint64_t Share(uint64_t budget, uint32_t percent) {
  return budget / 100 * percent + budget % 100 * percent / 100;
}

uint64_t MinCollapseTokens(const SessionPolicy& p, uint64_t budget) {
  return std::min(p.min_collapse_tokens, Share(budget, p.min_collapse_percent));
}

uint64_t IndexCapTokens(const SessionPolicy& p, uint64_t budget) {
  return std::max<uint64_t>(
      1, std::min(p.index_max_tokens, Share(budget, p.index_max_percent)));
}

uint64_t SummaryCapTokens(const SessionPolicy& p, uint64_t budget) {
  return std::max<uint64_t>(
      16, std::min<uint64_t>(p.compaction_summary_tokens, Share(budget, 5)));
}

Result<bool> RelievePressure(SessionImpl& s, const Layout& layout,
                             uint64_t budget, bool force, bool cold,
                             const std::optional<LlmEndpoint>& llm,
                             SessionChanges& ch, RenderResult* result) {
  const SessionPolicy& p = s.state().policy;
  const uint64_t total = layout.Total();
  const uint32_t trigger =
      cold ? p.compact_target_percent : p.compact_trigger_percent;
  if (!force && total <= Share(budget, trigger)) return false;
  const uint64_t target = Share(budget, p.compact_target_percent);
  Plan plan;
  PlanCollapse(s, layout, total - target, &plan);
  // What is left once everything a render may drop for budget is dropped:
  // compaction is for a chat that no longer fits, not for large outputs.
  uint64_t droppable = 0;
  std::set<size_t> collapsing(plan.collapse.begin(), plan.collapse.end());
  for (const Shown& sh : layout.shown) {
    // The newest outputs are never dropped: they count as fixed.
    if (sh.tail || (!sh.newest && collapsing.count(sh.index) == 0)) {
      droppable += Freeable(s, layout, sh);
    }
  }
  const uint64_t rest = total - plan.collapse_freed;
  const uint64_t fixed = rest > droppable ? rest - droppable : 0;
  const bool must_fit = force || fixed > budget;
  if (fixed > target || force) {
    PlanCompaction(s, layout, budget, fixed > target ? fixed - target : 0,
                   must_fit, &plan);
  }
  if (plan.collapse.empty() && plan.compact_end == 0) return false;
  if (!must_fit &&
      plan.collapse_freed + plan.compact_freed < MinCollapseTokens(p, budget)) {
    return false;
  }
  CTXKIT_RETURN_IF_ERROR(Apply(s, layout, plan, budget, llm, ch, result));
  return true;
}

Result<bool> FoldPlaceholders(SessionImpl& s, const Layout& layout,
                              uint64_t budget,
                              const std::optional<LlmEndpoint>& llm,
                              SessionChanges& ch, RenderResult* result) {
  // One compaction a render at most (an endpoint is asked once).
  if (!result->compacted.ref.empty()) return false;
  const uint64_t placeholders = layout.Breakdown().placeholders;
  if (placeholders <= Share(budget, kMaxPlaceholderPercent)) return false;
  const uint64_t target = Share(budget, kPlaceholderTargetPercent);
  const SessionPolicy& p = s.state().policy;
  const std::vector<size_t> starts = TurnStarts(layout);
  if (starts.size() < p.keep_turns) return false;
  const size_t allowed = starts.size() + 1 - p.keep_turns;
  Plan plan;
  plan.merge = layout.compactions.size() + 1 > kMaxCompactions;
  uint64_t left = placeholders;
  size_t rel = 0;
  for (size_t k = 0; k < allowed && left > target; ++k) {
    for (; rel < starts[k]; ++rel) {
      if (layout.modes[rel] == ToolMode::kHidden ||
          layout.modes[rel] == ToolMode::kPinned) {
        left -= std::min(left, layout.chat_text[rel].tokens);
      }
    }
    plan.compact_end = starts[k];
  }
  // Nothing to fold when the placeholders are all in the newest turns.
  if (plan.compact_end == 0 || left == placeholders) return false;
  CTXKIT_RETURN_IF_ERROR(Apply(s, layout, plan, budget, llm, ch, result));
  return true;
}

Result<bool> CompactOnRequest(SessionImpl& s, const Layout& layout,
                              uint64_t budget,
                              const std::optional<LlmEndpoint>& llm,
                              SessionChanges& ch, RenderResult* result) {
  State& st = s.state();
  if (!st.compact_request) return false;
  Plan plan;
  plan.instructions = *std::move(st.compact_request);
  st.compact_request.reset();
  ch.state = true;
  const std::vector<size_t> starts = TurnStarts(layout);
  const size_t keep = st.policy.keep_turns;
  if (starts.size() < keep) return false;
  plan.compact_end = starts[starts.size() - keep];
  plan.merge = layout.compactions.size() + 1 > kMaxCompactions;
  CTXKIT_RETURN_IF_ERROR(Apply(s, layout, plan, budget, llm, ch, result));
  return true;
}

Result<std::string> ExpandCompaction(SessionImpl& s,
                                     std::string_view compaction) {
  View& view = s.view();
  // A compaction's ref, or its key in the session's scope.
  Result<Target> target = Target::Parse(compaction);
  if (!target.ok()) return target.status();
  if (!target->is_ref()) {
    target = Target(target->key(), {.scope = s.session_scope()});
  }
  Result<std::string> text = view.Get(*target);
  if (!text.ok()) return text.status();
  json c = ctxkit::text::ParseJsonOrDiscarded(*text);
  if (!c.is_object() ||
      ctxkit::text::StringOr(c, "kind", "") != "ctxkit.compaction" ||
      !c.contains("chat") || !c["chat"].is_string() || !c.contains("first") ||
      !c["first"].is_number_unsigned() || !c.contains("end") ||
      !c["end"].is_number_unsigned()) {
    return Status::InvalidArgument("'" + std::string(compaction) +
                                   "' is not a compaction");
  }
  CTXKIT_ASSIGN_OR_RETURN(Ref chat_ref, ParseRef(c["chat"].get<std::string>()));
  CTXKIT_ASSIGN_OR_RETURN(std::string chat_text, view.Resolve(chat_ref));
  CTXKIT_ASSIGN_OR_RETURN(std::vector<ChatMessage> chat, DecodeChat(chat_text));
  const uint64_t first = c["first"].get<uint64_t>();
  const uint64_t end = c["end"].get<uint64_t>();
  if (first > end || end > chat.size()) {
    return Status::Corruption("compaction " + std::string(compaction) +
                              " names messages past its chat's end");
  }
  std::vector<ChatMessage> part(chat.begin() + first, chat.begin() + end);
  return EncodeChat(part);
}

}  // namespace ctxkit::session
