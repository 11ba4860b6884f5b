// Summarize / SummarizeDeferred / CountValueTokens: the by-handle API.

#include "ctxkit/summary.h"

#include <cstdlib>
#include <exception>
#include <future>
#include <string>
#include <utility>

#include "summary/llm_summarizer.h"
#include "summary/stats.h"
#include "summary/summary_cache.h"
#include "summary/value_source.h"
#include "text/summarize_structural.h"

namespace ctxkit {

namespace {

constexpr char kStructuralId[] = "structural-v1";

// The key's extension steers the code outline, the type the choice of
// summarizer, the sample size what is read: all part of the cache key.
std::string Hints(const summary::PinnedValue& t, const SummarizeOptions& o,
                  bool llm) {
  std::string_view key = t.ref.key;
  size_t slash = key.rfind('/');
  std::string_view base =
      slash == std::string_view::npos ? key : key.substr(slash + 1);
  size_t dot = base.rfind('.');
  std::string ext =
      dot == std::string_view::npos ? "" : std::string(base.substr(dot + 1));
  std::string h = "type=" + std::string(ValueTypeName(t.type)) + ";ext=" + ext +
                  ";sample=" + std::to_string(o.sample_bytes);
  if (llm) h += ";input=" + std::to_string(o.llm_input_tokens);
  return h;
}

void JoinNote(std::string* notes, std::string_view more) {
  if (more.empty()) return;
  if (!notes->empty()) *notes += "; ";
  *notes += more;
}

}  // namespace

namespace summary {
Counters& GlobalCounters() {
  static Counters counters;
  return counters;
}
}  // namespace summary

std::string_view SummarizerKindName(SummarizerKind kind) {
  switch (kind) {
    case SummarizerKind::kAuto:
      return "auto";
    case SummarizerKind::kStructural:
      return "structural";
    case SummarizerKind::kLlm:
      return "llm";
  }
  return "auto";
}

Result<SummarizerKind> ParseSummarizerKind(std::string_view name) {
  for (SummarizerKind k : {SummarizerKind::kAuto, SummarizerKind::kStructural,
                           SummarizerKind::kLlm}) {
    if (name == SummarizerKindName(k)) return k;
  }
  return Status::InvalidArgument(
      "summarizer must be auto, structural or llm, not '" + std::string(name) +
      "'");
}

Result<Summary> Summarize(View& view, std::string_view key_or_ref,
                          const SummarizeOptions& options) {
  if (options.max_tokens == 0) {
    return Status::InvalidArgument("max_tokens must be at least 1");
  }
  // The tokenizer is built on first use (tens of milliseconds): a cache
  // hit does not need it.
  const Tokenizer* tok = nullptr;
  summary::Counters& counters = summary::GlobalCounters();

  Result<summary::PinnedValue> target_or =
      summary::ResolveTarget(view, key_or_ref, options.scope);
  if (!target_or.ok()) return target_or.status();
  const summary::PinnedValue& target = *target_or;

  const LlmEndpoint endpoint = options.llm.value_or(LlmEndpoint{});
  const bool want_llm =
      options.summarizer == SummarizerKind::kLlm ||
      (options.summarizer == SummarizerKind::kAuto && endpoint.configured());
  summary::SummaryCache cache(view.store()->home());

  Summary out;
  out.ref = target.ref;
  out.content_hash = target.content_id;
  std::string notes;

  auto from_cache = [&](const summary::CacheEntry& e,
                        const std::string& id) -> Summary {
    counters.cache_hits.fetch_add(1, std::memory_order_relaxed);
    out.text = e.text;
    out.tokens = e.tokens;
    out.summarizer = id;
    out.kind = e.kind;
    out.sampled = e.sampled;
    out.cached = true;
    JoinNote(&notes, e.notes);
    out.notes = notes;
    return out;
  };
  auto store = [&](const summary::CacheKey& key, const Summary& s) {
    if (!options.use_cache) return;
    summary::CacheEntry e{s.text, s.tokens, s.kind, s.notes, s.sampled};
    // A cache that cannot be written (read-only home) only costs time.
    if (cache.Store(key, e).ok()) {
      counters.cache_writes.fetch_add(1, std::memory_order_relaxed);
    }
  };

  summary::Material material;
  bool have_material = false;
  auto load = [&]() -> Status {
    if (have_material) return Status::Ok();
    Result<const Tokenizer*> got = Tokenizer::Get(Encoding::kO200kBase);
    if (!got.ok()) return got.status();
    tok = *got;
    Status s =
        summary::ReadMaterial(view, target, options.sample_bytes,
                              options.count_limit_bytes, *tok, &material);
    if (s.ok()) have_material = true;
    return s;
  };

  if (want_llm && !endpoint.configured()) {
    notes =
        "llm summarizer not configured (set CTXKIT_LLM_BASE_URL and "
        "CTXKIT_LLM_MODEL); structural fallback";
  } else if (want_llm) {
    const std::string id = summary::LlmIdentity(endpoint);
    const summary::CacheKey key{target.content_id, options.max_tokens, id,
                                Hints(target, options, true)};
    if (options.use_cache) {
      if (auto hit = cache.Lookup(key)) return from_cache(*hit, id);
      counters.cache_misses.fetch_add(1, std::memory_order_relaxed);
    }
    Status s = load();
    if (!s.ok()) return s;
    bool partial = false;
    Result<std::string> text =
        summary::LlmSummarize(endpoint, target, material, options.max_tokens,
                              options.llm_input_tokens, *tok, &partial);
    if (text.ok()) {
      out.text = std::move(*text);
      out.tokens = tok->Count(out.text);
      out.summarizer = id;
      out.kind = "llm";
      out.sampled = material.input.sampled;
      if (partial) {
        out.notes = "the model saw a structural digest, not the whole value";
      }
      store(key, out);
      return out;
    }
    counters.llm_failures.fetch_add(1, std::memory_order_relaxed);
    notes =
        "llm failed (" + text.status().ToString() + "); structural fallback";
  }

  const summary::CacheKey key{target.content_id, options.max_tokens,
                              kStructuralId, Hints(target, options, false)};
  if (options.use_cache) {
    if (auto hit = cache.Lookup(key)) return from_cache(*hit, kStructuralId);
    counters.cache_misses.fetch_add(1, std::memory_order_relaxed);
  }
  Status s = load();
  if (!s.ok()) return s;
  counters.structural_runs.fetch_add(1, std::memory_order_relaxed);
  text::StructuralSummary structural =
      text::SummarizeStructural(*tok, material.input, options.max_tokens);
  out.text = std::move(structural.text);
  out.tokens = tok->Count(out.text);
  out.summarizer = kStructuralId;
  out.kind = std::move(structural.kind);
  out.sampled = material.input.sampled;
  store(key, out);  // Without this call's fallback note.
  out.notes = notes;
  return out;
}

bool DeferredSummary::Ready() const {
  return future_.valid() &&
         future_.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
}

bool DeferredSummary::WaitFor(std::chrono::milliseconds timeout) const {
  return future_.valid() &&
         future_.wait_for(timeout) == std::future_status::ready;
}

Result<Summary> DeferredSummary::Get() const {
  if (!future_.valid()) {
    return Status::FailedPrecondition("empty DeferredSummary");
  }
  return future_.get();
}

DeferredSummary SummarizeDeferred(const View& view, std::string key_or_ref,
                                  SummarizeOptions options) {
  try {
    return DeferredSummary(
        std::async(std::launch::async, [v = View(view),
                                        key = std::move(key_or_ref),
                                        options =
                                            std::move(options)]() mutable {
          try {
            return Summarize(v, key, options);
          } catch (const std::exception& e) {
            return Result<Summary>(Status::Internal(e.what()));
          }
        }).share());
  } catch (const std::exception& e) {
    // No thread to run it on: a handle that is ready with the error.
    std::promise<Result<Summary>> failed;
    failed.set_value(Status::ResourceExhausted(
        std::string("cannot start a summary thread: ") + e.what()));
    return DeferredSummary(failed.get_future().share());
  }
}

SummarizerStats GetSummarizerStats() {
  const summary::Counters& c = summary::GlobalCounters();
  SummarizerStats s;
  s.structural_runs = c.structural_runs.load();
  s.llm_requests = c.llm_requests.load();
  s.llm_failures = c.llm_failures.load();
  s.cache_hits = c.cache_hits.load();
  s.cache_misses = c.cache_misses.load();
  s.cache_writes = c.cache_writes.load();
  s.bytes_read = c.bytes_read.load();
  return s;
}

void ResetSummarizerStats() {
  summary::Counters& c = summary::GlobalCounters();
  c.structural_runs = 0;
  c.llm_requests = 0;
  c.llm_failures = 0;
  c.cache_hits = 0;
  c.cache_misses = 0;
  c.cache_writes = 0;
  c.bytes_read = 0;
}

Result<uint64_t> CountValueTokens(View& view, std::string_view key_or_ref,
                                  std::string_view encoding_name,
                                  const ScopeName& scope) {
  Result<const Tokenizer*> tok = Tokenizer::Get(encoding_name);
  if (!tok.ok()) return tok.status();
  Result<Target> target = Target::Parse(key_or_ref, {.scope = scope});
  if (!target.ok()) return target.status();
  // Pinned, so a concurrent set cannot mix two versions.
  Result<Ref> pinned = view.Pin(*target);
  if (!pinned.ok()) return pinned.status();
  const Ref& ref = *pinned;
  // The store keeps o200k_base counts in version metadata: count once.
  if ((*tok)->encoding() == Encoding::kO200kBase) return view.CountTokens(ref);
  TokenCounter counter(**tok);
  Status s = summary::StreamValue(
      view, ref, UINT64_MAX, [&](std::string_view p) { counter.Append(p); });
  if (!s.ok()) return s;
  return static_cast<uint64_t>(counter.Finish());
}

}  // namespace ctxkit
