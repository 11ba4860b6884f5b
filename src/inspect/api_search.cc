// Inspector API: search (literal, regex, find_relevant) and agent notes
// (docs/inspector.md).

#include <string>
#include <vector>

#include "core/status_macros.h"
#include "ctxkit/explore.h"
#include "ctxkit/index.h"
#include "ctxkit/notes.h"
#include "explore/json_forms.h"
#include "index/find_hit_json.h"
#include "inspect/api_internal.h"
#include "notes/changelog.h"
#include "notes/frontmatter.h"
#include "notes/json_forms.h"

namespace ctxkit::inspect {
namespace {

// Notes are indexed as global objects "note:<path>" tagged "kind:note"
// (notes.h), so the inspector reads them from the store, not the files.
constexpr std::string_view kNotePrefix = "note:";
constexpr size_t kMaxNotes = 1000;

struct StoredNote {
  std::string path, key;
  Ref ref;
  NoteHeader header;
  notes::NoteParts parts;
  std::vector<std::string> problems;
};

Result<StoredNote> ReadNote(View& view, const std::string& key) {
  StoredNote n;
  n.key = key;
  n.path = key.substr(kNotePrefix.size());
  CTXKIT_ASSIGN_OR_RETURN(n.ref, view.Pin(key, {.scope = "global"}));
  CTXKIT_ASSIGN_OR_RETURN(std::string content, view.Resolve(n.ref));
  n.parts = notes::SplitNote(content);
  notes::ParseHeader(n.parts.yaml, &n.header, &n.problems);
  return n;
}

json NoteSummary(const StoredNote& n) {
  return {{"path", n.path},
          {"key", n.key},
          {"ref", FormatRef(n.ref)},
          {"header", notes::NoteHeaderToJson(n.header)}};
}

// The items ("- ..." lines) of the body's changelog section.
std::vector<std::string> ChangelogLines(std::string_view body) {
  std::vector<std::string> lines;
  notes::ChangelogSpan span = notes::FindChangelog(body);
  if (span.start == std::string_view::npos) return lines;
  std::string_view section = body.substr(span.start, span.end - span.start);
  size_t at = 0;
  while (at < section.size()) {
    size_t nl = section.find('\n', at);
    if (nl == std::string_view::npos) nl = section.size();
    std::string_view line = section.substr(at, nl - at);
    if (line.starts_with("- ")) lines.emplace_back(line.substr(2));
    at = nl + 1;
  }
  return lines;
}

}  // namespace

Result<json> SearchValues(const Request& r) {
  CTXKIT_RETURN_IF_ERROR(r.params.Only(
      {kAgent, kSession, "q", "mode", "scope", "prefix", "limit"}));
  CTXKIT_ASSIGN_OR_RETURN(std::string q, r.params.Required("q"));
  const std::string mode = r.params.Get("mode").value_or("literal");
  CTXKIT_ASSIGN_OR_RETURN(uint64_t limit,
                          r.params.Number("limit", 50, 1, 1000));
  CTXKIT_ASSIGN_OR_RETURN(View view, RequestView(r));
  const std::string scope = r.params.Get("scope").value_or("");
  const std::string prefix = r.params.Get("prefix").value_or("");
  if (mode == "relevant") {
    FindOptions o;
    o.scope = scope;
    o.key_prefix = prefix;
    o.top_k = std::min<uint64_t>(limit, 100);
    CTXKIT_ASSIGN_OR_RETURN(FindResult found, FindRelevant(view, q, o));
    json hits = json::array();
    for (const FindHit& h : found.hits) hits.push_back(index::FindHitToJson(h));
    return json{
        {"mode", mode}, {"hits", std::move(hits)}, {"method", found.method}};
  }
  if (mode != "literal" && mode != "regex") {
    return Status::InvalidArgument(
        "parameter 'mode' must be literal, regex or relevant");
  }
  SearchOptions o;
  o.regex = mode == "regex";
  o.max_results = limit;
  o.context_lines = 2;
  o.scope = scope;
  o.key_prefix = prefix;
  CTXKIT_ASSIGN_OR_RETURN(SearchResult found, Search(view, q, o));
  json out = explore::SearchResultToJson(found);
  out["mode"] = mode;
  return out;
}

Result<json> NoteList(const Request& r) {
  CTXKIT_RETURN_IF_ERROR(r.params.Only({"q"}));
  CTXKIT_ASSIGN_OR_RETURN(View view, r.store.OpenView("", ""));
  std::vector<std::string> keys;
  if (std::optional<std::string> q = r.params.Get("q"); q && !q->empty()) {
    SearchOptions o;
    o.max_results = kMaxNotes;
    o.scope = "global";
    o.key_prefix = std::string(kNotePrefix);
    CTXKIT_ASSIGN_OR_RETURN(SearchResult found, Search(view, *q, o));
    for (const SearchMatch& m : found.matches) {
      if (keys.empty() || keys.back() != m.key) keys.push_back(m.key);
    }
  } else {
    ListFilter filter{.scope = "global",
                      .key_prefix = std::string(kNotePrefix),
                      .tags = {"kind:note"},
                      .limit = kMaxNotes};
    CTXKIT_ASSIGN_OR_RETURN(ListPage page, view.List(filter));
    for (const ObjectMeta& m : page.items) keys.push_back(m.key);
  }
  json notes = json::array();
  for (const std::string& key : keys) {
    Result<StoredNote> n = ReadNote(view, key);
    if (n.status().IsNotFound()) continue;  // Removed meanwhile.
    if (!n.ok()) return n.status();
    notes.push_back(NoteSummary(*n));
  }
  return json{{"notes", std::move(notes)}};
}

Result<json> NoteShow(const Request& r) {
  CTXKIT_RETURN_IF_ERROR(r.params.Only({"path"}));
  CTXKIT_ASSIGN_OR_RETURN(std::string path, r.params.Required("path"));
  CTXKIT_ASSIGN_OR_RETURN(View view, r.store.OpenView("", ""));
  CTXKIT_ASSIGN_OR_RETURN(StoredNote n,
                          ReadNote(view, std::string(kNotePrefix) + path));
  json links = json::array();
  for (const std::string& link : n.header.links) {
    const std::string key = std::string(kNotePrefix) + link;
    Result<ObjectMeta> target = view.Stat(key, {.scope = "global"});
    if (!target.ok() && !target.status().IsNotFound() &&
        !target.status().IsInvalidArgument()) {
      return target.status();
    }
    links.push_back({{"path", link}, {"key", key}, {"exists", target.ok()}});
  }
  json out = NoteSummary(n);
  out["body"] = n.parts.body;
  out["changelog"] = ChangelogLines(n.parts.body);
  out["links"] = std::move(links);
  out["problems"] = n.problems;
  return out;
}

}  // namespace ctxkit::inspect
