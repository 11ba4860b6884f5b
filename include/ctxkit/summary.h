// Summaries of stored values, by handle: what an agent reads instead of the
// value itself.
//
//   ctxkit::SummarizeOptions opts;
//   opts.max_tokens = 200;
//   ctxkit::Result<ctxkit::Summary> s = ctxkit::Summarize(view, "report",
//   opts); if (s.ok()) prompt += s->text;            // at most 200 tokens
//
//   // Start now, collect later (SPEC-25.03: summarize is deferred).
//   ctxkit::DeferredSummary d = ctxkit::SummarizeDeferred(view, "logs/ci");
//   ...
//   if (d.Ready()) use(d.Get());
//
// Length. Summary::text is never longer than max_tokens tokens, counted
// exactly with the o200k_base tokenizer, whichever summarizer wrote it.
//
// Summarizers. The structural summarizer ("structural-v1") needs no model:
// for JSON the shape (key paths, types, counts, sample values); for code an
// outline of definitions; for text the counts, the head, the most
// informative lines and the tail; for streams an index of chunks; for
// binary data the size, format and first bytes. The LLM summarizer
// ("llm-v1:<model>") asks an OpenAI-compatible chat-completions endpoint;
// on any error (not configured, connection, timeout, HTTP status, malformed
// reply, empty answer) the structural summary is returned instead, with
// Summary::notes saying why.
//
// Reading. Values are read by range: at most SummarizeOptions::sample_bytes
// of the head (plus a tail sample) feed the summarizer; whole-value counts
// are streamed up to count_limit_bytes and estimated beyond (marked "~").
// A sampled summary says so in its text.
//
// Cache. Summaries are cached by (content hash, max_tokens, summarizer
// identity) in <store home>/cache/summaries/, one file per entry written
// atomically, shared by every process using the store (format in
// docs/summaries.md). A cache hit reads no value and runs no summarizer.
//
// Thread safety: every function here is thread-safe. A DeferredSummary is a
// handle to shared state; copies refer to the same operation.

#ifndef CTXKIT_SUMMARY_H_
#define CTXKIT_SUMMARY_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <future>
#include <optional>
#include <string>
#include <string_view>

#include "ctxkit/ref.h"
#include "ctxkit/status.h"
#include "ctxkit/store.h"

namespace ctxkit {

enum class SummarizerKind : uint8_t {
  kAuto = 0,    // llm when an endpoint is configured, else structural.
  kStructural,  // Never calls a model.
  kLlm,         // The endpoint; structural fallback on any error.
};

// "auto", "structural", "llm".
std::string_view SummarizerKindName(SummarizerKind kind);
// Parses SummarizerKindName's form; InvalidArgument otherwise.
Result<SummarizerKind> ParseSummarizerKind(std::string_view name);

// An OpenAI-compatible chat-completions endpoint.
struct LlmEndpoint {
  // e.g. "http://127.0.0.1:8000/v1": requests go to
  // <base_url>/chat/completions (a base_url that already ends with
  // /chat/completions is used as is).
  std::string base_url;
  std::string model;
  std::string api_key;     // Sent as "Authorization: Bearer <key>" when set.
  int timeout_ms = 60000;  // Whole request.
  int connect_timeout_ms = 5000;

  bool configured() const { return !base_url.empty() && !model.empty(); }
};

struct SummarizeOptions {
  // Upper bound on the summary's tokens (o200k_base). Must be >= 1.
  size_t max_tokens = 500;
  SummarizerKind summarizer = SummarizerKind::kAuto;
  // For a key: which scope to look in (see ScopeName in store.h).
  ScopeName scope;
  // The endpoint; unset or not configured(): none, so kAuto is structural
  // and kLlm falls back to structural with a note. The library never reads
  // the environment; the CLI and MCP server fill this from CTXKIT_LLM_*.
  std::optional<LlmEndpoint> llm;
  // false: neither read nor write the cache.
  bool use_cache = true;
  // Bytes of the value's head given to the summarizer.
  uint64_t sample_bytes = 8ull << 20;
  // Whole-value line/word/token counts are streamed up to this size and
  // estimated from the sample above it.
  uint64_t count_limit_bytes = 64ull << 20;
  // Largest input (tokens) sent to the LLM: a larger value is sent as its
  // structural summary of this size instead.
  size_t llm_input_tokens = 12000;
};

struct Summary {
  std::string text;
  size_t tokens = 0;  // Exact o200k_base count of `text`.
  // Identity of what wrote `text`: "structural-v1" or "llm-v1:<model>".
  std::string summarizer;
  // What the value was summarized as: empty, binary, json, code, text,
  // stream (structural), or "llm".
  std::string kind;
  bool cached = false;   // Served from the cache.
  bool sampled = false;  // Only part of the value was read.
  // Why the summarizer differs from the one asked for, or other remarks.
  std::string notes;
  // A static ref to the version summarized, and its content identity.
  Ref ref;
  std::string content_hash;
};

// Summarizes the value named by `key_or_ref`: a ref's wire form
// ("ck:..."; a capability, any scope) or a key looked up in the view
// (options.scope). InvalidArgument for max_tokens == 0 or a malformed
// key; NotFound / PermissionDenied as View::RefOf and View::Resolve.
Result<Summary> Summarize(View& view, std::string_view key_or_ref,
                          const SummarizeOptions& options = {});

// A summary being computed on another thread (the deferred operation of
// SPEC-25.03). Destroying the last copy of a pending handle waits for it.
class DeferredSummary {
 public:
  DeferredSummary() = default;
  explicit DeferredSummary(std::shared_future<Result<Summary>> future)
      : future_(std::move(future)) {}

  // False for a default-constructed handle.
  bool valid() const { return future_.valid(); }
  // True once the result is available (Get will not block).
  bool Ready() const;
  // Waits up to `timeout`; true when ready.
  bool WaitFor(std::chrono::milliseconds timeout) const;
  // Waits and returns the result. REQUIRES: valid().
  Result<Summary> Get() const;

 private:
  std::shared_future<Result<Summary>> future_;
};

// Starts Summarize on a background thread and returns at once.
// REQUIRES: the view's Store outlives the operation (Get it, or let the
// last handle go, before closing the Store).
DeferredSummary SummarizeDeferred(const View& view, std::string key_or_ref,
                                  SummarizeOptions options = {});

// Process-wide counters, for tests and benchmarks.
struct SummarizerStats {
  uint64_t structural_runs = 0;  // Structural summaries computed.
  uint64_t llm_requests = 0;     // Chat-completions requests sent.
  uint64_t llm_failures = 0;     // Of those, failed (fell back).
  uint64_t cache_hits = 0;
  uint64_t cache_misses = 0;
  uint64_t cache_writes = 0;
  uint64_t bytes_read = 0;  // Value bytes read to summarize or count.
};
SummarizerStats GetSummarizerStats();
void ResetSummarizerStats();

// Exact token count of a stored value, streamed by range (the value is
// never held whole). `encoding_name`: "o200k_base" (default) or
// "cl100k_base". o200k_base counts are View::CountTokens: kept in the
// version's metadata, so only the first call reads the content.
Result<uint64_t> CountValueTokens(View& view, std::string_view key_or_ref,
                                  std::string_view encoding_name = "o200k_base",
                                  const ScopeName& scope = {});

}  // namespace ctxkit

#endif  // CTXKIT_SUMMARY_H_
