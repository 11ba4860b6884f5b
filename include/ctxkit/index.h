// find_relevant: ranked chunks of stored variables for a free-text query,
// each returned as a ref to a byte range of one version, never a copy.
//
//   ctxkit::FindOptions o;
//   o.top_k = 5;
//   auto found = ctxkit::FindRelevant(view, "how is the token refreshed", o);
//   for (const ctxkit::FindHit& h : found->hits) {
//     // h.ref is static (pinned to the version indexed); read just the
//     // chunk with view.ReadRange(h.ref, h.byte_offset, h.byte_length).
//   }
//
// Ranking. BM25 (SQLite FTS5, porter stemming over unicode61) over
// token-bounded chunks: at most FindOptions::chunk_tokens o200k tokens
// each, cut on natural boundaries (paragraphs, lines, top-level JSON
// items) exactly as Chunk (ctxkit/chunk.h) cuts them. When an
// OpenAI-compatible embeddings endpoint is configured
// (FindOptions::embeddings; the CLI and MCP server fill it from
// CTXKIT_EMBED_URL, CTXKIT_EMBED_MODEL and optional CTXKIT_EMBED_API_KEY),
// every chunk also gets a vector; the query's
// vector ranks chunks by cosine similarity and the two rankings are fused
// by reciprocal-rank fusion (k = 60). FindHit::method says how each hit was
// ranked. Any embeddings error falls back to BM25 and is reported in
// FindResult::notes, never as a failure.
//
// The index. A separate SQLite database, <store home>/index.db (WAL),
// owned by this layer and not by the store's backend (docs/index.md). It
// is brought up to date lazily by each call, before ranking: the variables
// the call covers are listed, each one whose latest version differs from
// the version indexed is re-chunked (in one write transaction), and rows
// of removed variables in the view's scopes are dropped. So a Set, Append
// or Remove by any process is reflected by the next call, and a call costs
// work proportional to what changed since the last one. Several processes
// may share one index (SQLite serializes the writers).
//
// Scope isolation. Hits come only from variables the view can see
// (global, its agent scope, its session scope).
//
// Limits. Values larger than FindOptions::max_value_bytes are not indexed
// and are listed in FindResult::skipped. Session-only (persist=false)
// values are never indexed (their content must never reach index.db);
// they are listed in FindResult::skipped too.
//
// Errors. No exceptions. InvalidArgument for an empty query (no word in
// it) or bad option; NotFound for a missing FindOptions::key or ::ref;
// PermissionDenied for another agent's scope named explicitly; IoError when
// index.db cannot be opened or written.
//
// Thread safety: FindRelevant is thread-safe; calls on one index are
// serialized by a per-database mutex in this process.

#ifndef CTXKIT_INDEX_H_
#define CTXKIT_INDEX_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ctxkit/progress.h"
#include "ctxkit/ref.h"
#include "ctxkit/status.h"
#include "ctxkit/store.h"

namespace ctxkit {

// An OpenAI-compatible /embeddings endpoint.
struct EmbeddingsConfig {
  std::string base_url;  // e.g. "http://127.0.0.1:8000/v1"; empty: none.
  std::string model;
  std::string api_key;  // Optional bearer token.
  int timeout_ms = 30000;
  // Chunks sent per request.
  size_t batch_size = 64;
};

struct FindOptions {
  // Non-empty: only this variable (looked up with `lookup.scope`; the
  // latest version). Empty: every variable the view sees.
  std::string key;
  LookupOptions lookup;
  // Set (instead of `key`): only the object this ref names, a capability
  // read whatever its scope; its latest version, as for `key`.
  std::optional<Ref> ref;
  // Listing filters when neither `key` nor `ref` is given.
  ScopeName scope;
  std::string key_prefix;
  // How many hits to return, 1-1000.
  size_t top_k = 5;
  // Target chunk size in o200k tokens, 16-8192. Chunks of an existing
  // index keep the size they were built with until their variable changes.
  uint32_t chunk_tokens = 256;
  // Larger values are skipped (reported in FindResult::skipped).
  uint64_t max_value_bytes = 64ull << 20;
  // Bound on FindHit::preview, in bytes.
  size_t preview_bytes = 240;
  // Widen the query with related words from WordNet (Debian's
  // wordnet-base, read from /usr/share/wordnet): for each query word and
  // each run of words WordNet knows as one ("coffee maker"), its base
  // forms, synonyms, derived, more general and more specific words
  // (stand-ins), each counting for less than the word itself; one query
  // word's stand-ins count once together, as its best match
  // (docs/index.md, "Ranking"). Without the database the query is not
  // widened and FindResult::notes says why. false: the query's own words
  // only.
  bool widen = true;
  // The embeddings endpoint; base_url or model empty: BM25 only. The
  // library never reads the environment.
  EmbeddingsConfig embeddings;
  // Reports of the index's catch-up (ctxkit/progress.h): task "indexing"
  // (or "rebuilding the index"), counted in changes of the store's change
  // feed read since the last call.
  ProgressOptions progress;
};

// The method names used in FindHit::method and FindResult::method.
inline constexpr std::string_view kMethodBm25 = "bm25";
inline constexpr std::string_view kMethodFused = "bm25+embeddings (rrf)";

struct FindHit {
  // A static ref to the version indexed.
  Ref ref;
  std::string key;
  // The chunk: bytes [byte_offset, byte_offset + byte_length) of ref.
  uint64_t byte_offset = 0;
  uint64_t byte_length = 0;
  uint32_t tokens = 0;  // o200k tokens of the chunk.
  // Higher is better. BM25: BM25 over the query's words and their
  // stand-ins plus a proximity term (docs/index.md, "Ranking"). Fused:
  // the RRF score, sum of 1/(60 + rank) over the methods that ranked the
  // chunk.
  double score = 0;
  std::string method;  // kMethodBm25 or kMethodFused.
  // 1-based rank of the chunk in each ranking; 0 when it ranked nowhere
  // in the top candidates of that method.
  uint32_t bm25_rank = 0;
  uint32_t embedding_rank = 0;
  // The matching passage: the chunk's text from the start of its line that
  // holds the most of the query, the asker's own words counting more than
  // their stand-ins (the chunk's start when none does), at most
  // FindOptions::preview_bytes, cut before a split UTF-8 character, line
  // breaks kept.
  std::string preview;
};

struct SkippedValue {
  std::string key;
  std::string reason;
};

struct FindResult {
  std::vector<FindHit> hits;  // Best first.
  std::string method;         // How this call ranked.
  uint64_t variables_covered = 0;
  // Work the lazy sync did in this call. A call without a key or ref reads
  // the store's changes since the last call over the same scopes, prefix
  // and size limit (`changes_read`): none when nothing changed, whatever
  // the number of variables.
  uint64_t changes_read = 0;
  uint64_t variables_indexed = 0;
  uint64_t chunks_indexed = 0;
  uint64_t variables_dropped = 0;
  std::vector<SkippedValue> skipped;
  // Human-readable remarks, e.g. why embeddings were not used.
  std::vector<std::string> notes;
};

// Ranks chunks of the variables `options` covers by relevance to `query`.
Result<FindResult> FindRelevant(View& view, std::string_view query,
                                const FindOptions& options = {});

}  // namespace ctxkit

#endif  // CTXKIT_INDEX_H_
