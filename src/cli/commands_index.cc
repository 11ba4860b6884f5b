// The find verb: ranked chunks for a free-text query, as refs to ranges
// (include/ctxkit/index.h).

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/cli_app.h"
#include "cli/flags.h"
#include "cli/io.h"
#include "cli/output.h"
#include "ctxkit/index.h"
#include "ctxkit/ref.h"
#include "ctxkit/store.h"

namespace ctxkit::cli {

namespace {

struct FindArgs {
  std::string query;
  std::string key;
  std::string scope;
  std::string prefix;
  uint64_t top = 5;
  uint64_t chunk_tokens = 256;
  uint64_t preview = 240;
};

// One line per hit for people: the preview's line breaks would break the
// layout, so they are shown as spaces.
std::string OneLine(std::string s) {
  for (char& c : s) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  return s;
}

int RunFind(Context& ctx, const FindArgs& a) {
  if (!a.key.empty()) {
    Status s = ValidateKey(a.key);
    if (!s.ok()) return ReportError(s.WithContext("--key"));
  }
  Status s = CheckScopeName(a.scope, ctx.options());
  if (!s.ok()) return ReportError(s);
  FindOptions o;
  o.key = a.key;
  if (!a.key.empty()) {
    o.lookup.scope = a.scope;
  } else {
    o.scope = a.scope;
  }
  o.key_prefix = a.prefix;
  o.top_k = a.top;
  o.chunk_tokens =
      static_cast<uint32_t>(std::min<uint64_t>(a.chunk_tokens, UINT32_MAX));
  o.preview_bytes = a.preview;
  Result<View*> view = ctx.OpenView();
  if (!view.ok()) return ReportError(view.status());
  Result<FindResult> r = FindRelevant(**view, a.query, o);
  if (!r.ok()) return ReportError(r.status());
  if (ctx.json()) {
    nlohmann::json hits = nlohmann::json::array();
    for (const FindHit& h : r->hits) {
      hits.push_back({{"key", h.key},
                      {"ref", FormatRef(h.ref)},
                      {"byte_offset", h.byte_offset},
                      {"byte_length", h.byte_length},
                      {"tokens", h.tokens},
                      {"score", h.score},
                      {"method", h.method},
                      {"bm25_rank", h.bm25_rank},
                      {"embedding_rank", h.embedding_rank},
                      {"preview", h.preview}});
    }
    nlohmann::json skipped = nlohmann::json::array();
    for (const SkippedValue& v : r->skipped) {
      skipped.push_back({{"key", v.key}, {"reason", v.reason}});
    }
    PrintJson({{"hits", std::move(hits)},
               {"method", r->method},
               {"variables_covered", r->variables_covered},
               {"variables_indexed", r->variables_indexed},
               {"chunks_indexed", r->chunks_indexed},
               {"variables_dropped", r->variables_dropped},
               {"skipped", std::move(skipped)},
               {"notes", r->notes}});
    return kExitOk;
  }
  // KEY@START+LENGTH  score  preview; the ref is what an agent keeps.
  std::string out;
  for (const FindHit& h : r->hits) {
    char score[32];
    std::snprintf(score, sizeof score, "%.4g", h.score);
    out += FormatRef(h.ref) + " @" + std::to_string(h.byte_offset) + "+" +
           std::to_string(h.byte_length) + "  " + score + "  " +
           OneLine(h.preview) + "\n";
  }
  // Remarks go to stderr, as summarize's do, so stdout stays the hits.
  for (const std::string& n : r->notes) {
    std::fprintf(stderr, "ctxkit: note: %s\n", n.c_str());
  }
  for (const SkippedValue& v : r->skipped) {
    std::fprintf(stderr, "ctxkit: note: %s: %s\n", v.key.c_str(),
                 v.reason.c_str());
  }
  s = WriteStdout(out);
  return s.ok() ? kExitOk : ReportError(s);
}

}  // namespace

void RegisterIndexCommands(CLI::App& app, CommandTable& table) {
  auto a = std::make_shared<FindArgs>();
  CLI::App* sub = app.add_subcommand(
      "find",
      "Rank chunks of every variable the view sees (or of --key) by "
      "relevance to QUERY: BM25 over a full-text index kept in "
      "<home>/index.db, fused with embeddings when CTXKIT_EMBED_URL and "
      "CTXKIT_EMBED_MODEL are set. Each hit is a ref to a byte range");
  sub->alias("find-relevant");
  sub->add_option("QUERY", a->query, "Free text")->required();
  sub->add_option("--key,-k", a->key, "Only this variable")->type_name("KEY");
  sub->add_option("--top,-n", a->top, "Hits to return, 1-1000 (default 5)")
      ->type_name("N")
      ->check(UnsignedNumber());
  sub->add_option("--scope,-s", a->scope, "Only this scope")
      ->type_name("SCOPE");
  sub->add_option("--prefix", a->prefix, "Only keys starting with P")
      ->type_name("P");
  sub->add_option("--chunk-tokens", a->chunk_tokens,
                  "Chunk size for variables (re)indexed now, 16-8192 "
                  "(default 256)")
      ->type_name("N")
      ->check(UnsignedNumber());
  sub->add_option("--preview", a->preview,
                  "Preview bytes per hit (default 240)")
      ->type_name("N")
      ->check(UnsignedNumber());
  table.Add(sub, [a](Context& ctx) { return RunFind(ctx, *a); });
}

}  // namespace ctxkit::cli
