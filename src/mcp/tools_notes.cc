// Notes tools: agent context notes (include/ctxkit/notes.h) — markdown
// files with YAML frontmatter, written as this client's agent in its
// session, searchable by every agent.

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ctxkit/notes.h"
#include "mcp/result_limit.h"
#include "mcp/tool_registry.h"
#include "mcp/tool_util.h"
#include "notes/json_forms.h"

namespace ctxkit::mcp {

namespace {

// A note's absolute file path is the server's business: MCP clients (over
// HTTP, on other machines) address notes by their root-relative `path`.
Json WithoutServerPath(Json note) {
  note.erase("file");
  return note;
}

Result<ToolResult> RunAdd(ClientState& c, const Json& a,
                          const ProgressOptions&) {
  Result<Notebook*> nb = c.Notes();
  if (!nb.ok()) return nb.status();
  NewNote n;
  n.agent = c.binding.agent;
  n.session_id = c.binding.session;
  Result<NoteType> type = ParseNoteType(StrArg(a, "type", "finding"));
  if (!type.ok()) return type.status();
  n.type = *type;
  n.tags = StrListArg(a, "tags");
  n.links = StrListArg(a, "links");
  n.slug = StrArg(a, "slug");
  n.body = StrArg(a, "body");
  Result<std::string> path = (*nb)->Add(n);
  if (!path.ok()) return path.status();
  ToolResult r;
  r.content.push_back(TextContent(*path));
  r.structured =
      WithoutServerPath(notes::NoteWrittenToJson(c.view, **nb, *path));
  return r;
}

Result<ToolResult> RunUpdate(ClientState& c, const Json& a,
                             const ProgressOptions&) {
  Result<Notebook*> nb = c.Notes();
  if (!nb.ok()) return nb.status();
  std::optional<std::string> body;
  if (a.contains("body")) body = StrArg(a, "body");
  std::string path = StrArg(a, "path");
  Status s = (*nb)->Update(path, c.binding.agent, StrArg(a, "message"), body);
  if (!s.ok()) return s;
  Result<std::string> rel = (*nb)->RelativePath(path);
  if (!rel.ok()) return rel.status();
  ToolResult r;
  r.content.push_back(TextContent("updated " + *rel));
  r.structured =
      WithoutServerPath(notes::NoteWrittenToJson(c.view, **nb, *rel));
  r.structured["updated"] = true;
  return r;
}

Result<ToolResult> RunNotesSearch(ClientState& c, const Json& a,
                                  const ProgressOptions&) {
  Result<Notebook*> nb = c.Notes();
  if (!nb.ok()) return nb.status();
  NoteQuery q;
  q.agent = StrArg(a, "agent");
  q.type = StrArg(a, "type");
  q.tags = StrListArg(a, "tags");
  q.session = StrArg(a, "session");
  q.text = StrArg(a, "text");
  q.limit = U64Arg(a, "limit", 10);
  Result<std::vector<NoteHit>> hits = (*nb)->Search(q);
  if (!hits.ok()) return hits.status();
  Json items = Json::array();
  std::string text;
  for (const NoteHit& h : *hits) {
    items.push_back(WithoutServerPath(notes::NoteHitToJson(h)));
    text += h.path + (h.ref.empty() ? "" : "  " + h.ref) + "\n  " + h.snippet +
            "\n";
  }
  if (hits->empty()) text = "(no notes match)\n";
  return LimitedTextResult(c, std::move(text), {{"notes", std::move(items)}},
                           std::nullopt, 0);
}

}  // namespace

void AddNotesTools(std::vector<ToolDef>& tools) {
  Json types = EnumProp(
      "finding (default), decision, artifact, reference or "
      "summary.",
      {"finding", "decision", "artifact", "reference", "summary"});
  tools.push_back(
      {"notes_add", "Write a context note",
       "Write a markdown note (a finding, decision, artifact, reference or "
       "summary) that other agents and later sessions can find with "
       "notes_search or plain rg. It is written as your agent, in your "
       "session. Returns its path; its content is also readable with get "
       "(key \"note:<path>\").",
       ObjectSchema(
           {{"slug",
             StringProp("A short title; becomes the file name.", 1, 200)},
            {"body", StringProp("The note in markdown.", 1, 1 << 20)},
            {"type", types},
            {"tags", StringListProp("Tags (1-60 bytes each).", 32)},
            {"links", StringListProp("Paths of existing notes this one "
                                     "links to.",
                                     32)}},
           {"slug", "body"}),
       false, false, false, RunAdd});
  tools.push_back(
      {"notes_update", "Update a context note",
       "Append a changelog line to a note (never deletes), optionally "
       "replacing its body; the old content stays in the store as an "
       "earlier version.",
       ObjectSchema(
           {{"path", StringProp("The note's path, as notes_add or "
                                "notes_search returned it.",
                                1, 1024)},
            {"message", StringProp("One line saying what changed.", 1, 1000)},
            {"body", StringProp("New markdown body (optional).", 1, 1 << 20)}},
           {"path", "message"}),
       false, false, false, RunUpdate});
  tools.push_back(
      {"notes_search", "Search context notes",
       "Find notes by words (BM25 ranked), agent, type, tags or session. "
       "Returns paths, refs and snippets; read a note with get on its ref.",
       ObjectSchema(
           {{"text", StringProp("Words the note must contain.", 0, 4096)},
            {"agent", StringProp("Only notes by this agent.", 1, 64)},
            {"type", types},
            {"tags", StringListProp("Only notes with every one of these "
                                    "tags.",
                                    32)},
            {"session", StringProp("Only notes of this session.", 1, 64)},
            {"limit", IntProp("At most this many (default 10).", 1, 100)}},
           {}),
       true, false, true, RunNotesSearch});
}

}  // namespace ctxkit::mcp
