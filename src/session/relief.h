// Budget pressure (SessionPolicy): collapsing old tool outputs and folding
// the oldest turns of the chat into compactions, persisted in the session
// state so later renders keep the same prefix.

#ifndef CTXKIT_SESSION_RELIEF_H_
#define CTXKIT_SESSION_RELIEF_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ctxkit/session.h"
#include "ctxkit/status.h"
#include "session/render_layout.h"
#include "session/session_impl.h"

namespace ctxkit::session {

// Times a render re-plans after applying relief (each round sees the exact
// counts of the last one).
inline constexpr int kReliefRounds = 3;
// More compactions than this are merged into one.
inline constexpr size_t kMaxCompactions = 8;
// Placeholders (hidden outputs) may use at most this share of a render's
// budget; over it, the oldest turns holding them are compacted until they
// use at most kPlaceholderTargetPercent.
inline constexpr uint32_t kMaxPlaceholderPercent = 10;
inline constexpr uint32_t kPlaceholderTargetPercent = 5;

// `percent` of `budget`, without overflow.
uint64_t Share(uint64_t budget, uint32_t percent);
// The policy's thresholds for a render of `budget` tokens (SessionPolicy):
// the smallest relief (and drop group), min(min_collapse_tokens,
// min_collapse_percent of the budget); the metadata index's cap,
// min(index_max_tokens, index_max_percent of the budget, at least 1); a
// compaction summary's cap, min(compaction_summary_tokens, 5% of the
// budget, at least 16).
uint64_t MinCollapseTokens(const SessionPolicy& p, uint64_t budget);
uint64_t IndexCapTokens(const SessionPolicy& p, uint64_t budget);
uint64_t SummaryCapTokens(const SessionPolicy& p, uint64_t budget);

// When `layout` uses more than the policy's trigger share of `budget`
// (its target share when `cold`: the provider's cache expired, so relief
// costs no cached prefix), frees tokens down to its target share (see
// SessionPolicy): collapses outputs, then compacts turns, recording both in
// `changes` and `result`. Returns true when the state changed (gather the
// layout again). `must_fit`: the layout does not fit `budget` even with
// everything droppable dropped; compact down to the last turn, merging
// compactions, whatever the policy's minimums. `llm`: the endpoint that
// writes a compaction's summary (compaction_summary.h); unset: structural.
Result<bool> RelievePressure(SessionImpl& s, const Layout& layout,
                             uint64_t budget, bool must_fit, bool cold,
                             const std::optional<LlmEndpoint>& llm,
                             SessionChanges& changes, RenderResult* result);

// When the hidden outputs of `layout` (fitted to `budget`) use more than
// kMaxPlaceholderPercent of it, folds the oldest turns holding them (never
// the newest keep_turns) into a compaction until they use at most
// kPlaceholderTargetPercent. Nothing when this render compacted already
// (budget pressure's compaction reaches that far when it can: an endpoint
// is asked once a render). Returns true when the state changed.
Result<bool> FoldPlaceholders(SessionImpl& s, const Layout& layout,
                              uint64_t budget,
                              const std::optional<LlmEndpoint>& llm,
                              SessionChanges& changes, RenderResult* result);

// When the session holds a compaction request (Session::RequestCompaction),
// clears it and folds every turn but the newest keep_turns into a
// compaction whose summary follows the request's instructions. Returns
// true when the state changed beyond the cleared request (gather the
// layout again).
Result<bool> CompactOnRequest(SessionImpl& s, const Layout& layout,
                              uint64_t budget,
                              const std::optional<LlmEndpoint>& llm,
                              SessionChanges& changes, RenderResult* result);

// The chat messages a compaction replaces (Session::Expand).
Result<std::string> ExpandCompaction(SessionImpl& s,
                                     std::string_view compaction);

}  // namespace ctxkit::session

#endif  // CTXKIT_SESSION_RELIEF_H_
