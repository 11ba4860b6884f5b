// SPEC-25 verbs: `externalize` prints a session's root prompt (the query,
// variable summaries, helpers; never the content), and `var` runs the
// helpers (peek, search, summarize, find, len) on its variables by name.
// See docs/externalize.md.

#include <CLI/CLI.hpp>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/cli_app.h"
#include "cli/flags.h"
#include "cli/io.h"
#include "cli/output.h"
#include "core/status_macros.h"
#include "ctxkit/externalize.h"
#include "ctxkit/ref.h"
#include "ctxkit/store.h"
#include "face/environment.h"
#include "index/find_hit_json.h"

namespace ctxkit::cli {

namespace {

// What every verb needs to rebuild the context.
struct ContextArgs {
  std::vector<std::string> vars;  // NAME=REF custom variables.
};

struct ExternalizeArgs {
  ContextArgs c;
  std::string query;
  std::string template_file;
  bool auto_chunk = false;
  bool compare = false;
  bool with_members = false;
  uint64_t warn_bytes = SizeConfig{}.warn_bytes;
  uint64_t chunk_bytes = SizeConfig{}.chunk_bytes;
  uint64_t total_bytes = SizeConfig{}.total_bytes;
};

struct VarArgs {
  ContextArgs c;
  std::string name;
  int64_t start = 0;
  int64_t end = 10;
  std::string unit = "auto";
  uint64_t max_bytes = 64ull << 10;
  std::string pattern;
  bool regex = false;
  bool ignore_case = false;
  uint64_t max_results = 10;
  uint64_t max_tokens = 500;
  std::string query;
  uint64_t top_k = 5;
};

// The custom variables given as NAME=REF, each checked before the store
// is opened.
Result<std::vector<CustomVariable>> ParseVars(const ContextArgs& a) {
  std::vector<CustomVariable> custom;
  for (const std::string& nv : a.vars) {
    const size_t eq = nv.find('=');
    if (eq == std::string::npos) {
      return Status::InvalidArgument("--var expects NAME=REF, got '" + nv +
                                     "'");
    }
    Result<Ref> ref = ParseRef(nv.substr(eq + 1));
    if (!ref.ok()) return ref.status().WithContext("--var " + nv.substr(0, eq));
    custom.push_back({nv.substr(0, eq), *ref, ""});
  }
  return custom;
}

// Rebuilds the context of --session (the global option) with the custom
// variables given as NAME=REF. FromSession resolves them before it writes
// the session's manifests, so a refused one leaves the store as it was.
Result<ExternalizedContext> Load(Context& ctx, const ContextArgs& a,
                                 std::string query) {
  const std::string& session = ctx.options().session;
  if (session.empty()) {
    return Status::InvalidArgument(
        "--session is required: the session to externalize");
  }
  Result<std::vector<CustomVariable>> custom = ParseVars(a);
  if (!custom.ok()) return custom.status();
  Result<View*> view = ctx.OpenView();
  if (!view.ok()) return view.status();
  return ExternalizedContext::FromSession(**view, "", session, std::move(query),
                                          {}, *custom);
}

void AddContextOptions(CLI::App* sub, ContextArgs* a) {
  AddRepeatableOption(sub, "--var", &a->vars,
                      "Add a custom variable NAME=REF (repeatable)")
      ->type_name("NAME=REF");
}

Status RunExternalize(Context& ctx, const ExternalizeArgs& a) {
  if (a.query.empty()) {
    return Status::InvalidArgument("--query must not be empty");
  }
  SizeConfig size;
  size.warn_bytes = a.warn_bytes;
  size.chunk_bytes = a.chunk_bytes;
  size.total_bytes = a.total_bytes;
  if (size.warn_bytes == 0 || size.chunk_bytes == 0 || size.total_bytes == 0) {
    return Status::InvalidArgument("size limits must be >= 1 byte");
  }
  RootPromptOptions po;
  if (!a.template_file.empty()) {
    Result<std::string> t = ReadFile(a.template_file);
    if (!t.ok()) return t.status().WithContext("--template");
    po.template_text = *t;
    if (po.template_text.empty()) {
      return Status::InvalidArgument("--template: the file is empty");
    }
    // A bad template is refused before the session's manifests are
    // written: the prompt of an empty context meets every template error.
    Result<ExternalizedContext> empty = ExternalizedContext::Empty(a.query);
    if (!empty.ok()) return empty.status();
    CTXKIT_RETURN_IF_ERROR(BuildRootPrompt(*empty, po).status());
  }
  Result<ExternalizedContext> ext = Load(ctx, a.c, a.query);
  if (!ext.ok()) return ext.status();
  Result<View*> view = ctx.OpenView();
  if (!view.ok()) return view.status();
  if (a.auto_chunk) {
    CTXKIT_RETURN_IF_ERROR(ext->AutoChunk(**view, size));
  }
  Result<RootPrompt> prompt = BuildRootPrompt(*ext, po);
  if (!prompt.ok()) return prompt.status();
  std::optional<uint64_t> inlined;
  if (a.compare) {
    Result<uint64_t> n = InlinedPromptTokens(**view, *ext, po);
    if (!n.ok()) return n.status();
    inlined = *n;
  }
  if (ctx.json()) {
    nlohmann::json j =
        ext->ToJson(size, &*prompt, /*with_prompt_text=*/true, a.with_members);
    if (inlined.has_value()) {
      j["inlined_tokens"] = *inlined;
      j["reduction"] = *inlined == 0
                           ? 0.0
                           : 1.0 - static_cast<double>(prompt->tokens) /
                                       static_cast<double>(*inlined);
    }
    PrintJson(j);
    return Status::Ok();
  }
  // Warnings and counts go to stderr so stdout is the prompt alone.
  for (const SizeWarning& w : ext->CheckSizeLimits(size)) {
    std::fprintf(stderr, "ctxkit: warning: %s\n", w.message.c_str());
  }
  std::fprintf(stderr, "ctxkit: root prompt: %llu tokens (o200k_base)\n",
               static_cast<unsigned long long>(prompt->tokens));
  if (inlined.has_value()) {
    std::fprintf(stderr, "ctxkit: inlined: %llu tokens\n",
                 static_cast<unsigned long long>(*inlined));
  }
  return WriteStdout(prompt->text);
}

nlohmann::json PeekJson(const VariablePeek& p) {
  nlohmann::json items = nlohmann::json::array();
  for (const PeekedItem& it : p.items) {
    items.push_back({{"index", it.index},
                     {"key", it.key},
                     {"ref", FormatRef(it.ref)},
                     {"text", it.text},
                     {"size_bytes", it.size_bytes},
                     {"truncated", it.truncated}});
  }
  nlohmann::json j = {{"variable", p.variable},
                      {"shape", std::string(VariableShapeName(p.shape))},
                      {"unit", std::string(PeekUnitName(p.unit))},
                      {"start", p.start},
                      {"end", p.end},
                      {"total", p.total.has_value() ? nlohmann::json(*p.total)
                                                    : nlohmann::json(nullptr)},
                      {"truncated", p.truncated}};
  if (p.shape == VariableShape::kString) {
    j["text"] = p.text;
  } else {
    j["items"] = std::move(items);
  }
  return j;
}

Status RunPeek(Context& ctx, const VarArgs& a) {
  Result<PeekUnit> unit = ParsePeekUnit(a.unit);
  if (!unit.ok()) return unit.status().WithContext("--unit");
  Result<ExternalizedContext> ext = Load(ctx, a.c, "");
  if (!ext.ok()) return ext.status();
  VariablePeekOptions o;
  o.start = a.start;
  o.end = a.end;
  o.unit = *unit;
  o.max_bytes = a.max_bytes;
  Result<VariablePeek> p = ext->Peek(**ctx.OpenView(), a.name, o);
  if (!p.ok()) return p.status();
  if (ctx.json()) {
    PrintJson(PeekJson(*p));
    return Status::Ok();
  }
  if (p->shape == VariableShape::kString) return WriteStdout(p->text);
  std::string out;
  for (const PeekedItem& it : p->items) {
    out += p->shape == VariableShape::kDict
               ? it.key + ": "
               : "[" + std::to_string(it.index) + "] ";
    out += it.text;
    if (it.truncated) out += " [... truncated]";
    if (out.empty() || out.back() != '\n') out += '\n';
  }
  return WriteStdout(out);
}

Status RunSearch(Context& ctx, const VarArgs& a) {
  Result<ExternalizedContext> ext = Load(ctx, a.c, "");
  if (!ext.ok()) return ext.status();
  VariableSearchOptions o;
  o.regex = a.regex;
  o.case_insensitive = a.ignore_case;
  o.max_results = a.max_results;
  Result<VariableSearch> r =
      ext->Search(**ctx.OpenView(), a.name, a.pattern, o);
  if (!r.ok()) return r.status();
  if (ctx.json()) {
    nlohmann::json ms = nlohmann::json::array();
    for (const VariableMatch& m : r->matches) {
      ms.push_back({{"index", m.index},
                    {"key", m.key},
                    {"ref", FormatRef(m.ref)},
                    {"line", m.line},
                    {"byte_offset", m.byte_offset},
                    {"preview", m.preview}});
    }
    PrintJson({{"variable", r->variable},
               {"matches", std::move(ms)},
               {"truncated", r->truncated}});
    return Status::Ok();
  }
  std::string out;
  for (const VariableMatch& m : r->matches) {
    out += (m.key.empty() ? "[" + std::to_string(m.index) + "]" : m.key) + ":" +
           std::to_string(m.line) + ": " + m.preview + "\n";
  }
  if (r->truncated) out += "(more matches: raise --max-results)\n";
  return WriteStdout(out);
}

Status RunSummarize(Context& ctx, const VarArgs& a) {
  if (a.max_tokens == 0) {
    return Status::InvalidArgument("--max-tokens must be >= 1");
  }
  Result<ExternalizedContext> ext = Load(ctx, a.c, "");
  if (!ext.ok()) return ext.status();
  Result<DeferredVariableSummary> d = ext->Summarize(
      **ctx.OpenView(), a.name, a.max_tokens, env::LlmEndpointFromEnv());
  if (!d.ok()) return d.status();
  // The CLI is the orchestrator: it resolves the deferred operation now.
  Result<Summary> s = d->Get();
  if (!s.ok()) return s.status();
  if (ctx.json()) {
    PrintJson({{"variable", a.name},
               {"summary", s->text},
               {"tokens", s->tokens},
               {"max_tokens", a.max_tokens},
               {"summarizer", s->summarizer},
               {"notes", s->notes}});
    return Status::Ok();
  }
  return WriteStdout(s->text + "\n");
}

Status RunFind(Context& ctx, const VarArgs& a) {
  if (a.top_k < 1 || a.top_k > 1000) {
    return Status::InvalidArgument("--top-k must be 1-1000");
  }
  Result<ExternalizedContext> ext = Load(ctx, a.c, "");
  if (!ext.ok()) return ext.status();
  VariableFindOptions o;
  o.top_k = a.top_k;
  o.embeddings = env::EmbeddingsFromEnv();
  Result<FindResult> r =
      ext->FindRelevant(**ctx.OpenView(), a.name, a.query, o);
  if (!r.ok()) return r.status();
  if (ctx.json()) {
    nlohmann::json hits = nlohmann::json::array();
    for (const FindHit& h : r->hits) {
      hits.push_back(index::FindHitToJson(h));
    }
    PrintJson({{"variable", a.name},
               {"method", r->method},
               {"hits", std::move(hits)},
               {"notes", r->notes}});
    return Status::Ok();
  }
  std::string out;
  for (const FindHit& h : r->hits) {
    out += h.key + " [" + std::to_string(h.byte_offset) + "+" +
           std::to_string(h.byte_length) + "] " + FormatRef(h.ref) + "\n  " +
           h.preview.substr(0, 160) + "\n";
  }
  return WriteStdout(out);
}

Status RunLen(Context& ctx, const VarArgs& a) {
  Result<ExternalizedContext> ext = Load(ctx, a.c, "");
  if (!ext.ok()) return ext.status();
  Result<VariableLen> n = ext->Len(a.name);
  if (!n.ok()) return n.status();
  if (ctx.json()) {
    PrintJson({{"variable", n->variable},
               {"shape", std::string(VariableShapeName(n->shape))},
               {"items", n->items.has_value() ? nlohmann::json(*n->items)
                                              : nlohmann::json(nullptr)},
               {"bytes", n->bytes},
               {"tokens", n->tokens}});
    return Status::Ok();
  }
  std::string out;
  if (n->items.has_value()) out += std::to_string(*n->items) + " items, ";
  out += std::to_string(n->bytes) + " bytes, " + std::to_string(n->tokens) +
         " tokens\n";
  return WriteStdout(out);
}

}  // namespace

void RegisterExternalizeCommands(CLI::App& app, CommandTable& table) {
  {
    auto a = std::make_shared<ExternalizeArgs>();
    CLI::App* sub = app.add_subcommand(
        "externalize",
        "Print the root prompt for --session: the query, the variables' "
        "summaries and the helpers, never the content (SPEC-25); --json: "
        "variables, warnings and token counts");
    sub->add_option("--query,-q", a->query, "The task for the root LLM")
        ->required();
    AddContextOptions(sub, &a->c);
    sub->add_option("--template", a->template_file,
                    "Prompt template file with {query}, "
                    "{variable_summaries} and optional {helpers}")
        ->type_name("FILE");
    sub->add_flag("--auto-chunk", a->auto_chunk,
                  "Chunk variables above --chunk-bytes (refs to byte "
                  "ranges)");
    sub->add_flag("--compare", a->compare,
                  "Also count the tokens of the same prompt with every "
                  "variable inlined");
    sub->add_flag("--members", a->with_members,
                  "--json: list each collection's elements and refs");
    sub->add_option("--warn-bytes", a->warn_bytes,
                    "LargeVariable threshold (default 102400)")
        ->type_name("N")
        ->check(UnsignedNumber());
    sub->add_option("--chunk-bytes", a->chunk_bytes,
                    "RequiresChunking threshold (default 1048576)")
        ->type_name("N")
        ->check(UnsignedNumber());
    sub->add_option("--total-bytes", a->total_bytes,
                    "TotalSizeExceeded threshold (default 10485760)")
        ->type_name("N")
        ->check(UnsignedNumber());
    table.Add(sub, [a](Context& ctx) { return RunExternalize(ctx, *a); });
  }
  CLI::App* var = app.add_subcommand(
      "var",
      "Helpers on the variables of --session's externalized context: peek, "
      "search, summarize, find, len (see docs/externalize.md)");
  var->require_subcommand(1);
  {
    auto a = std::make_shared<VarArgs>();
    CLI::App* sub = var->add_subcommand(
        "peek",
        "Items [START, END) of NAME (list items, dict entries; strings: "
        "lines or --unit bytes); Python slice rules");
    sub->add_option("NAME", a->name, "The variable")->required();
    sub->add_option("START", a->start, "First item (default 0)");
    sub->add_option("END", a->end, "End, exclusive (default 10)");
    sub->add_option("--unit", a->unit, "Strings: auto (lines) or bytes")
        ->type_name("U");
    sub->add_option("--max-bytes", a->max_bytes,
                    "Content bytes returned in all (default 65536)")
        ->type_name("N")
        ->check(UnsignedNumber());
    AddContextOptions(sub, &a->c);
    table.Add(sub, [a](Context& ctx) { return RunPeek(ctx, *a); });
  }
  {
    auto a = std::make_shared<VarArgs>();
    CLI::App* sub = var->add_subcommand(
        "search", "Matches of PATTERN in NAME (literal, or --regex RE2)");
    sub->add_option("NAME", a->name, "The variable")->required();
    sub->add_option("PATTERN", a->pattern, "Literal text or RE2 regex")
        ->required();
    sub->add_flag("--regex,-E", a->regex, "PATTERN is an RE2 regex");
    sub->add_flag("--ignore-case,-i", a->ignore_case, "Case-insensitive");
    sub->add_option("--max-results,-m", a->max_results,
                    "Stop after N matches (default 10)")
        ->type_name("N")
        ->check(UnsignedNumber());
    AddContextOptions(sub, &a->c);
    table.Add(sub, [a](Context& ctx) { return RunSearch(ctx, *a); });
  }
  {
    auto a = std::make_shared<VarArgs>();
    CLI::App* sub = var->add_subcommand(
        "summarize",
        "Summary of NAME in at most --max-tokens tokens (the deferred "
        "operation, resolved here)");
    sub->add_option("NAME", a->name, "The variable")->required();
    sub->add_option("--max-tokens,-n", a->max_tokens, "Default 500")
        ->type_name("N")
        ->check(UnsignedNumber());
    AddContextOptions(sub, &a->c);
    table.Add(sub, [a](Context& ctx) { return RunSummarize(ctx, *a); });
  }
  {
    auto a = std::make_shared<VarArgs>();
    CLI::App* sub = var->add_subcommand(
        "find",
        "Chunks of NAME most relevant to QUERY (BM25; fused with embeddings "
        "when CTXKIT_EMBED_* is set)");
    sub->add_option("NAME", a->name, "The variable")->required();
    sub->add_option("QUERY", a->query, "Free text")->required();
    sub->add_option("--top-k,-k", a->top_k, "Hits (default 5)")
        ->type_name("N")
        ->check(UnsignedNumber());
    AddContextOptions(sub, &a->c);
    table.Add(sub, [a](Context& ctx) { return RunFind(ctx, *a); });
  }
  {
    auto a = std::make_shared<VarArgs>();
    CLI::App* sub = var->add_subcommand(
        "len", "Items, bytes and tokens of NAME, from metadata only");
    sub->add_option("NAME", a->name, "The variable")->required();
    AddContextOptions(sub, &a->c);
    table.Add(sub, [a](Context& ctx) { return RunLen(ctx, *a); });
  }
}

}  // namespace ctxkit::cli
