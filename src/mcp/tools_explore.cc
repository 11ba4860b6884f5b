// Explore tools: peek, search, find_relevant, summarize — reading a value
// by handle without loading it into the context.

#include <string>
#include <utility>
#include <vector>

#include "ctxkit/explore.h"
#include "ctxkit/index.h"
#include "ctxkit/summary.h"
#include "explore/json_forms.h"
#include "face/environment.h"
#include "index/find_hit_json.h"
#include "mcp/result_limit.h"
#include "mcp/tool_registry.h"
#include "mcp/tool_util.h"
#include "summary/json_forms.h"

namespace ctxkit::mcp {

namespace {

Result<ToolResult> RunPeek(ClientState& c, const Json& a,
                           const ProgressOptions&) {
  Result<Ref> ref = ResolveTarget(c, a);
  if (!ref.ok()) return ref.status();
  PeekOptions o;
  o.start = I64Arg(a, "start", 0);
  o.end = a.contains("end") ? I64Arg(a, "end", 10) : o.start + 10;
  if (o.start < 0 && !a.contains("end")) o.end = kPeekToEnd;
  Result<PeekUnit> unit = ParsePeekUnit(StrArg(a, "unit", "auto"));
  if (!unit.ok()) return unit.status();
  o.unit = *unit;
  o.max_bytes = U64Arg(a, "max_bytes", 256ull << 10);
  Result<PeekResult> p = Peek(c.view, *ref, o);
  if (!p.ok()) return p.status();
  Json s = explore::PeekToJson(*p);
  return LimitedTextResult(c, std::move(p->text), std::move(s), p->ref,
                           p->byte_begin);
}

Result<ToolResult> RunSearch(ClientState& c, const Json& a,
                             const ProgressOptions&) {
  SearchOptions o;
  o.regex = BoolArg(a, "regex", false);
  o.case_insensitive = BoolArg(a, "case_insensitive", false);
  o.max_results = U64Arg(a, "max_results", 20);
  o.context_lines = static_cast<uint32_t>(U64Arg(a, "context_lines", 0));
  o.keys = StrListArg(a, "keys");
  for (const std::string& r : StrListArg(a, "refs")) {
    Result<Ref> ref = ParseRef(r);
    if (!ref.ok()) return ref.status().WithContext("refs");
    o.refs.push_back(*ref);
  }
  o.scope = StrArg(a, "scope");
  o.key_prefix = StrArg(a, "key_prefix");
  Result<SearchResult> r = Search(c.view, StrArg(a, "pattern"), o);
  if (!r.ok()) return r.status();
  std::string text;
  for (const SearchMatch& m : r->matches) {
    for (const SearchLine& l : m.before) {
      text += FormatRef(m.ref) + ":" + std::to_string(l.line) + "- " + l.text +
              "\n";
    }
    text += FormatRef(m.ref) + ":" + std::to_string(m.line) + ": " + m.preview +
            "\n";
    for (const SearchLine& l : m.after) {
      text += FormatRef(m.ref) + ":" + std::to_string(l.line) + "- " + l.text +
              "\n";
    }
  }
  if (r->matches.empty()) text = "(no matches)\n";
  if (r->truncated) {
    text += "[stopped at max_results; more matches may exist]\n";
  }
  return LimitedTextResult(c, std::move(text), explore::SearchResultToJson(*r),
                           std::nullopt, 0);
}

Result<ToolResult> RunFindRelevant(ClientState& c, const Json& a,
                                   const ProgressOptions& progress) {
  FindOptions o;
  o.embeddings = c.options.embeddings.value_or(env::EmbeddingsFromEnv());
  o.top_k = U64Arg(a, "top_k", 5);
  o.key_prefix = StrArg(a, "key_prefix");
  o.widen = BoolArg(a, "widen", true);
  if (a.contains("key") || a.contains("ref")) {
    // One variable, named as every key-or-ref tool names it ("scope" is
    // where a key is looked up).
    Result<Ref> ref = ResolveTarget(c, a);
    if (!ref.ok()) return ref.status();
    o.ref = *ref;
  } else {
    o.scope = StrArg(a, "scope");
  }
  o.progress = progress;
  Result<FindResult> r = FindRelevant(c.view, StrArg(a, "query"), o);
  if (!r.ok()) return r.status();
  Json hits = Json::array();
  std::string text;
  for (const FindHit& h : r->hits) {
    hits.push_back(index::FindHitToJson(h));
    text += FormatRef(h.ref) + " bytes " + std::to_string(h.byte_offset) + "+" +
            std::to_string(h.byte_length) + " (" + std::to_string(h.tokens) +
            " tokens): " + h.preview + "\n";
  }
  if (r->hits.empty()) text = "(nothing relevant found)\n";
  Json s = {{"hits", std::move(hits)},
            {"method", r->method},
            {"variables_covered", r->variables_covered}};
  return LimitedTextResult(c, std::move(text), std::move(s), std::nullopt, 0);
}

Result<ToolResult> RunSummarize(ClientState& c, const Json& a,
                                const ProgressOptions&) {
  Result<Ref> ref = ResolveTarget(c, a);
  if (!ref.ok()) return ref.status();
  SummarizeOptions o;
  o.llm = c.options.llm.value_or(env::LlmEndpointFromEnv());
  o.max_tokens = U64Arg(a, "max_tokens", 500);
  Result<SummarizerKind> kind =
      ParseSummarizerKind(StrArg(a, "summarizer", "auto"));
  if (!kind.ok()) return kind.status();
  o.summarizer = *kind;
  Result<Summary> sum = Summarize(c.view, FormatRef(*ref), o);
  if (!sum.ok()) return sum.status();
  Json s = summary::SummaryToJson(*sum);
  return LimitedTextResult(c, std::move(sum->text), std::move(s), std::nullopt,
                           0);
}

}  // namespace

void AddExploreTools(std::vector<ToolDef>& tools) {
  tools.push_back(
      {"peek", "Look at a slice of a value",
       "Return a slice of a stored value without reading the rest: lines "
       "(text), items (JSON arrays and objects), chunks (streams) or bytes, "
       "with Python slice semantics (start inclusive, end exclusive, "
       "negative counts from the end). Default: the first 10 units. Use it "
       "to look inside large values you hold as refs.",
       ObjectSchema(
           {{"key", KeyProp()},
            {"ref", RefProp()},
            {"scope", ScopeProp(kScopeLookup)},
            {"version", VersionProp()},
            {"start", IntProp("First unit (default 0).", INT64_MIN, INT64_MAX)},
            {"end", IntProp("Unit to stop before (default start + 10).",
                            INT64_MIN, INT64_MAX)},
            {"unit", EnumProp("What start/end count (default auto: items "
                              "for JSON, chunks for streams, else lines).",
                              {"auto", "lines", "bytes", "items", "chunks"})},
            {"max_bytes", IntProp("Cut the slice at this many bytes "
                                  "(default 262144).",
                                  1, 16 << 20)}},
           {}),
       true, false, true, RunPeek});
  tools.push_back(
      {"search", "Search values for a pattern",
       "grep over stored values: every line matching a literal string or an "
       "RE2 regex, with the ref of the value, the 1-based line number and "
       "a preview. Searches the given keys or refs, else every value you "
       "can see. Follow up with get (line_start/line_end) or peek.",
       ObjectSchema(
           {{"pattern", StringProp("Literal text, or a regex when regex is "
                                   "true. One line.",
                                   1, 4096)},
            {"regex", BoolProp("Treat pattern as an RE2 regular expression.")},
            {"case_insensitive", BoolProp("Ignore case.")},
            {"max_results", IntProp("Stop after this many matching lines "
                                    "(default 20).",
                                    1, 1000)},
            {"context_lines", IntProp("Lines of context before and after "
                                      "each match.",
                                      0, 20)},
            {"keys", StringListProp("Only these keys.", 100)},
            {"refs", StringListProp("Only these refs (capabilities).", 100)},
            {"scope", ScopeProp("Only this scope (with keys: where to look "
                                "them up).")},
            {"key_prefix",
             StringProp("Only keys starting with this.", 0, 256)}},
           {"pattern"}),
       true, false, true, RunSearch});
  tools.push_back(
      {"find_relevant", "Find the chunks relevant to a question",
       "Rank token-bounded chunks of your stored values by relevance to a "
       "free-text query (BM25, plus embeddings when configured), or of one "
       "value named by key or ref. Each hit is "
       "a static ref with a byte range: read just that chunk with get "
       "(ref, byte_offset, byte_length).",
       ObjectSchema(
           {{"query",
             StringProp("What you are looking for, in words.", 1, 4096)},
            {"top_k", IntProp("How many chunks (default 5).", 1, 100)},
            {"key", KeyProp()},
            {"ref", RefProp()},
            {"scope", ScopeProp("Only this scope (with key: where to look it "
                                "up).")},
            {"key_prefix", StringProp("Only keys starting with this.", 0, 256)},
            {"widen",
             BoolProp("Also match related words (synonyms, more general and "
                      "more specific words; default true). false: only the "
                      "query's own words.")}},
           {"query"}),
       true, false, true, RunFindRelevant});
  tools.push_back(
      {"summarize", "Summarize a value",
       "A summary of a stored value within max_tokens (structural: JSON "
       "shape, code outline, text head/key lines/tail; or an LLM summary "
       "when one is configured). Cached per version. Read this instead of "
       "the value to decide what to look at.",
       ObjectSchema(
           {{"key", KeyProp()},
            {"ref", RefProp()},
            {"scope", ScopeProp(kScopeLookup)},
            {"version", VersionProp()},
            {"max_tokens", IntProp("Upper bound on the summary (default "
                                   "500).",
                                   1, 8000)},
            {"summarizer", EnumProp("auto (LLM when configured, else "
                                    "structural), structural or llm.",
                                    {"auto", "structural", "llm"})}},
           {}),
       true, false, true, RunSummarize});
}

}  // namespace ctxkit::mcp
