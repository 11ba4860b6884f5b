// summarize(var) as a deferred operation and find_relevant(var, query)
// (SPEC-25.03).

#include <algorithm>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/format.h"
#include "core/status_macros.h"
#include "ctxkit/externalize.h"
#include "ctxkit/index.h"
#include "ctxkit/summary.h"
#include "externalize/internal.h"
#include "text/summarize_budget.h"

namespace ctxkit {

namespace {

using externalize::CountTextTokens;
using externalize::FitTokens;

// Each member's summary gets at least this many tokens; fewer members are
// summarized when the budget cannot give them that.
constexpr size_t kMinMemberTokens = 48;

FindOptions BaseFindOptions(const VariableFindOptions& options) {
  FindOptions fo;
  fo.chunk_tokens = options.chunk_tokens;
  fo.embeddings = options.embeddings;
  fo.widen = options.widen;
  return fo;
}

Result<FindResult> FindInOneCall(View& sv, const std::vector<Ref>& targets,
                                 std::string_view query,
                                 const VariableFindOptions& options) {
  std::string prefix = targets[0].key;
  std::set<std::string> keys;
  for (const Ref& ref : targets) {
    size_t n = 0;
    while (n < prefix.size() && n < ref.key.size() && prefix[n] == ref.key[n]) {
      ++n;
    }
    prefix.resize(n);
    keys.insert(ref.key);
  }
  // Cut the prefix back to a UTF-8 character boundary.
  while (!prefix.empty() &&
         (static_cast<unsigned char>(prefix.back()) & 0x80) != 0) {
    prefix.pop_back();
  }
  FindOptions fo = BaseFindOptions(options);
  fo.scope = targets[0].scope.ToString();
  fo.key_prefix = prefix;
  fo.top_k = std::min<size_t>(
      1000, std::max<size_t>(options.top_k * 4, options.top_k + 64));
  while (true) {
    CTXKIT_ASSIGN_OR_RETURN(FindResult r, ctxkit::FindRelevant(sv, query, fo));
    const bool exhausted = r.hits.size() < fo.top_k || fo.top_k == 1000;
    std::vector<FindHit> kept;
    for (FindHit& h : r.hits) {
      if (keys.count(h.key) != 0 && h.ref.scope == targets[0].scope) {
        kept.push_back(std::move(h));
      }
    }
    if (kept.size() >= options.top_k || exhausted) {
      if (kept.size() > options.top_k) kept.resize(options.top_k);
      r.hits = std::move(kept);
      std::erase_if(r.skipped, [&](const SkippedValue& s) {
        return keys.count(s.key) == 0;
      });
      return r;
    }
    fo.top_k = 1000;
  }
}

}  // namespace

bool DeferredVariableSummary::Ready() const {
  for (const auto& [key, part] : parts_) {
    if (!part.Ready()) return false;
  }
  return true;
}

Result<Summary> DeferredVariableSummary::Get() const {
  if (parts_.empty()) return Status::FailedPrecondition("no summary started");
  if (parts_.size() == 1 && parts_[0].first.empty()) {
    return parts_[0].second.Get();  // A single value: its summary as is.
  }
  Summary out;
  out.kind = "collection";
  std::string header = variable_ + ": " +
                       core::GroupedNumber(parts_.size() + omitted_) + " items";
  std::vector<std::string> lines;
  for (const auto& [key, part] : parts_) {
    CTXKIT_ASSIGN_OR_RETURN(Summary s, part.Get());
    if (out.summarizer.empty()) out.summarizer = s.summarizer;
    if (s.summarizer != out.summarizer) out.summarizer = "mixed";
    out.cached = out.cached || s.cached;
    out.sampled = out.sampled || s.sampled;
    if (!s.notes.empty())
      out.notes += (out.notes.empty() ? "" : "; ") + s.notes;
    std::string one = s.text;
    std::replace(one.begin(), one.end(), '\n', ' ');
    lines.push_back("- " + key + ": " + one);
  }
  // Drop whole member lines from the end until the joined text fits.
  uint64_t omitted = omitted_;
  while (true) {
    std::string text = header;
    for (const std::string& l : lines) text += "\n" + l;
    if (omitted > 0) {
      text += "\n(" + core::GroupedNumber(omitted) + " more not summarized)";
    }
    if (CountTextTokens(text) <= max_tokens_) {
      out.text = std::move(text);
      break;
    }
    if (lines.empty()) {
      out.text = FitTokens(std::move(text), max_tokens_);
      break;
    }
    lines.pop_back();
    ++omitted;
  }
  out.tokens = CountTextTokens(out.text);
  return out;
}

Result<DeferredVariableSummary> ExternalizedContext::Summarize(
    View& view, std::string_view name, size_t max_tokens,
    const std::optional<LlmEndpoint>& llm) const {
  if (max_tokens == 0) {
    return Status::InvalidArgument("summarize max_tokens must be >= 1");
  }
  CTXKIT_ASSIGN_OR_RETURN(const ContextVariable* v, Find(name));
  DeferredVariableSummary d;
  d.variable_ = v->name;
  d.max_tokens_ = max_tokens;
  SummarizeOptions so;
  so.llm = llm;
  if (v->members.empty()) {
    so.max_tokens = max_tokens;
    d.parts_.emplace_back("", SummarizeDeferred(view, FormatRef(v->ref), so));
    return d;
  }
  const size_t n = v->members.size();
  const size_t fit = std::max<size_t>(1, max_tokens / kMinMemberTokens);
  const size_t take = std::min(n, fit);
  // Each line also carries "- <key>: " and the text a header: leave room.
  const size_t share = max_tokens > 16 ? (max_tokens - 16) / take : 0;
  so.max_tokens = std::max<size_t>(8, share > 12 ? share - 12 : 0);
  for (size_t i = 0; i < take; ++i) {
    d.parts_.emplace_back(
        v->members[i].name,
        SummarizeDeferred(view, FormatRef(v->members[i].ref), so));
  }
  d.omitted_ = n - take;
  return d;
}

Result<FindResult> ExternalizedContext::FindRelevant(
    View& view, std::string_view name, std::string_view query,
    const VariableFindOptions& options) const {
  CTXKIT_ASSIGN_OR_RETURN(const ContextVariable* v, Find(name));
  if (options.top_k < 1 || options.top_k > 1000) {
    return Status::InvalidArgument("top_k must be 1-1000");
  }
  // Keys are looked up in their own scopes, which the session's view names.
  CTXKIT_ASSIGN_OR_RETURN(View sv, externalize::SessionView(view, session_id_));
  std::vector<Ref> targets;
  if (v->members.empty()) {
    if (v->item_count.has_value() && *v->item_count == 0 &&
        v->type != VariableType::kCustom) {
      FindResult empty;
      empty.method = std::string(kMethodBm25);
      return empty;
    }
    targets.push_back(v->ref);
  } else {
    for (const VariableMember& m : v->members) targets.push_back(m.ref);
  }
  const bool embeddings = !options.embeddings.base_url.empty();
  bool one_scope = targets.size() > 1;
  for (const Ref& ref : targets) {
    one_scope = one_scope && ref.scope == targets[0].scope;
  }
  if (embeddings && one_scope) {
    // Fused (RRF) scores are ranks within one call, so members ranked in
    // separate calls would not compare: rank them in one call over their
    // scope and longest common key prefix, and keep only the members.
    return FindInOneCall(sv, targets, query, options);
  }
  FindResult out;
  for (const Ref& ref : targets) {
    FindOptions fo = BaseFindOptions(options);
    fo.key = ref.key;
    fo.lookup.scope = ref.scope.ToString();
    fo.top_k = options.top_k;
    CTXKIT_ASSIGN_OR_RETURN(FindResult r, ctxkit::FindRelevant(sv, query, fo));
    if (out.method.empty() || r.method != std::string(kMethodBm25)) {
      out.method = r.method;
    }
    out.variables_covered += r.variables_covered;
    out.variables_indexed += r.variables_indexed;
    out.chunks_indexed += r.chunks_indexed;
    out.variables_dropped += r.variables_dropped;
    for (SkippedValue& s : r.skipped) out.skipped.push_back(std::move(s));
    for (std::string& note : r.notes) {
      if (std::find(out.notes.begin(), out.notes.end(), note) ==
          out.notes.end()) {
        out.notes.push_back(std::move(note));
      }
    }
    for (FindHit& h : r.hits) out.hits.push_back(std::move(h));
  }
  // Best first across elements: BM25 scores share one index's statistics.
  // (Fused scores of members in several scopes are each member's own
  // ranking; see docs/externalize.md.)
  std::stable_sort(
      out.hits.begin(), out.hits.end(),
      [](const FindHit& a, const FindHit& b) { return a.score > b.score; });
  if (out.hits.size() > options.top_k) out.hits.resize(options.top_k);
  if (out.method.empty()) out.method = std::string(kMethodBm25);
  return out;
}

}  // namespace ctxkit
