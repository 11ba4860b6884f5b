// The find verb: ranked chunks for a free-text query, as refs to ranges
// (include/ctxkit/index.h); the chunk verb: one value's chunks, as ranges
// (include/ctxkit/chunk.h).

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
#include "core/status_macros.h"
#include "ctxkit/chunk.h"
#include "ctxkit/index.h"
#include "ctxkit/ref.h"
#include "ctxkit/store.h"
#include "face/environment.h"
#include "index/find_hit_json.h"

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
  bool literal = false;
};

// One line per hit for people: the preview's line breaks would break the
// layout, so they are shown as spaces.
Status RunFind(Context& ctx, const FindArgs& a) {
  if (!a.key.empty()) {
    Status s = ValidateKey(a.key);
    if (!s.ok()) return s.WithContext("--key");
  }
  CTXKIT_RETURN_IF_ERROR(CheckScopeName(a.scope, ctx.options()));
  FindOptions o;
  o.embeddings = env::EmbeddingsFromEnv();
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
  o.widen = !a.literal;
  Result<View*> view = ctx.OpenView();
  if (!view.ok()) return view.status();
  o.progress = ctx.Progress();
  Result<FindResult> r = FindRelevant(**view, a.query, o);
  if (!r.ok()) return r.status();
  if (ctx.json()) {
    nlohmann::json hits = nlohmann::json::array();
    for (const FindHit& h : r->hits) {
      hits.push_back(index::FindHitToJson(h));
    }
    nlohmann::json skipped = nlohmann::json::array();
    for (const SkippedValue& v : r->skipped) {
      skipped.push_back({{"key", v.key}, {"reason", v.reason}});
    }
    PrintJson({{"hits", std::move(hits)},
               {"method", r->method},
               {"variables_covered", r->variables_covered},
               {"changes_read", r->changes_read},
               {"variables_indexed", r->variables_indexed},
               {"chunks_indexed", r->chunks_indexed},
               {"variables_dropped", r->variables_dropped},
               {"skipped", std::move(skipped)},
               {"notes", r->notes}});
    return Status::Ok();
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
  return WriteStdout(out);
}

struct ChunkArgs {
  std::string target;
  std::string scope;
  uint64_t version = 0;
  uint64_t max_tokens = 0;
};

// Output is written in batches while chunking, so a value with millions of
// chunks never has its whole listing in memory.
constexpr size_t kFlushBytes = 1u << 16;

Status RunChunk(Context& ctx, const ChunkArgs& a) {
  Result<Target> target =
      ParseKeyOrRef(a.target, a.scope, a.version, ctx.options());
  if (!target.ok()) return target.status();
  if (a.max_tokens < 1 || a.max_tokens > kMaxChunkTokens) {
    return Status::InvalidArgument("--max-tokens must be 1-" +
                                   std::to_string(kMaxChunkTokens));
  }
  Result<View*> view = ctx.OpenView();
  if (!view.ok()) return view.status();
  ChunkOptions o;
  o.lookup.scope = a.scope;
  o.lookup.version = a.version;
  const bool json = ctx.json();
  std::string out = json ? "[" : "";
  std::string wire;  // The ref, formatted once.
  Status s = ForEachChunk(
      **view, a.target, static_cast<uint32_t>(a.max_tokens),
      [&](const Ref& ref, const ChunkRange& c) -> Status {
        if (wire.empty()) wire = FormatRef(ref);
        const uint64_t length = c.byte_end - c.byte_begin;
        if (json) {
          if (c.index > 0) out += ",";
          nlohmann::json j = {{"index", c.index},
                              {"ref", wire},
                              {"byte_offset", c.byte_begin},
                              {"byte_length", length},
                              {"line_begin", c.line_begin},
                              {"line_end", c.line_end},
                              {"tokens", c.tokens},
                              {"valid_utf8", c.valid_utf8}};
          out += j.dump();
        } else {
          // INDEX  REF @OFFSET+LENGTH  lines B-E  N tokens
          out += std::to_string(c.index) + "  " + wire + " @" +
                 std::to_string(c.byte_begin) + "+" + std::to_string(length) +
                 "  lines " + std::to_string(c.line_begin) + "-" +
                 std::to_string(c.line_end) + "  " + std::to_string(c.tokens) +
                 " tokens" + (c.valid_utf8 ? "" : "  (not UTF-8)") + "\n";
        }
        if (out.size() < kFlushBytes) return Status::Ok();
        Status w = WriteStdout(out);
        out.clear();
        return w;
      },
      o);
  CTXKIT_RETURN_IF_ERROR(s);
  if (json) out += "]\n";
  return WriteStdout(out);
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
  sub->add_flag("--literal", a->literal,
                "Match only the query's own words (by default related words "
                "from WordNet count too, for less)");
  table.Add(sub, [a](Context& ctx) { return RunFind(ctx, *a); });

  auto c = std::make_shared<ChunkArgs>();
  sub = app.add_subcommand(
      "chunk",
      "Split a value into chunks of at most --max-tokens o200k tokens on "
      "natural boundaries (paragraphs, lines, top-level JSON items); each "
      "chunk is a static ref plus a byte range, not a copy");
  sub->add_option("KEY", c->target, "The key, or a ref (ck:...)")->required();
  sub->add_option(
         "--max-tokens,-t", c->max_tokens,
         "Tokens per chunk at most, 1-" + std::to_string(kMaxChunkTokens))
      ->type_name("N")
      ->required()
      ->check(UnsignedNumber());
  sub->add_option("--scope,-s", c->scope, "Scope to look the key up in")
      ->type_name("SCOPE");
  sub->add_option("--version", c->version, "Version (default: the latest)")
      ->type_name("N")
      ->check(UnsignedNumber());
  table.Add(sub, [c](Context& ctx) { return RunChunk(ctx, *c); });
}

}  // namespace ctxkit::cli
