// The notes verbs (agent context notes, include/ctxkit/notes.h) and
// `ctxkit log` (the execution log they and the tools verbs append to).

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cli/cli_app.h"
#include "cli/flags.h"
#include "cli/io.h"
#include "cli/output.h"
#include "core/status_macros.h"
#include "ctxkit/environment.h"
#include "ctxkit/notes.h"
#include "ctxkit/store.h"
#include "face/environment.h"
#include "notes/invocation_log.h"
#include "notes/json_forms.h"

namespace ctxkit::cli {

namespace {

struct NotesArgs {
  std::string root;
  // add / update / link / supersede
  std::string agent;
  std::string type;
  std::vector<std::string> tags;
  std::vector<std::string> links;
  std::string slug;
  std::string path;
  std::string target;
  std::string message;
  std::string old_path;
  std::string new_path;
  // search
  std::string session;
  std::string text;
  uint64_t limit = 20;
  // gc / scan
  std::string older_than = std::string(kDefaultContextRetention);
  bool apply = false;
  bool full = false;
};

// The notes agent: --agent on the verb, else the global --agent.
std::string AgentOf(const Context& ctx, const NotesArgs& a) {
  return a.agent.empty() ? ctx.options().agent : a.agent;
}

// SFA_SESSION_ID as the spec says, else ctxkit's own --session.
std::string SessionOf(const Context& ctx) {
  std::string s = env::Get("SFA_SESSION_ID");
  return s.empty() ? ctx.options().session : s;
}

Result<std::unique_ptr<Notebook>> OpenBook(Context& ctx, const NotesArgs& a) {
  Result<View*> view = ctx.OpenView();
  if (!view.ok()) return view.status();
  NotebookOptions o;
  Result<std::string> root = ctx.NotesRoot(a.root);
  if (!root.ok()) return root.status();
  o.root = *root;
  return Notebook::Open(**view, o);
}

Status PrintPaths(Context& ctx, Notebook& book,
                  const std::vector<std::string>& rels) {
  if (ctx.json()) {
    Result<View*> view = ctx.OpenView();
    if (!view.ok()) return view.status();
    nlohmann::json arr = nlohmann::json::array();
    for (const std::string& r : rels) {
      arr.push_back(notes::NoteWrittenToJson(**view, book, r));
    }
    PrintJson(rels.size() == 1 ? arr[0] : arr);
    return Status::Ok();
  }
  std::string out;
  for (const std::string& r : rels) out += book.root() + "/" + r + "\n";
  return WriteStdout(out);
}

Status RunAdd(Context& ctx, const NotesArgs& a, notes::Invocation& inv) {
  NewNote n;
  n.agent = AgentOf(ctx, a);
  n.session_id = SessionOf(ctx);
  inv.agent = n.agent;
  inv.session_id = n.session_id;
  if (n.agent.empty()) {
    return Status::InvalidArgument(
        "notes add needs --agent (or the global --agent / CTXKIT_AGENT)");
  }
  Result<NoteType> type = ParseNoteType(a.type);
  if (!type.ok()) return type.status().WithContext("--type");
  n.type = *type;
  n.tags = a.tags;
  n.links = a.links;
  n.slug = a.slug;
  Result<std::string> body = ReadStdin();
  if (!body.ok()) return body.status();
  n.body = std::move(*body);
  inv.input = "type=" + a.type + " slug=" + a.slug +
              " body=" + std::to_string(n.body.size()) + "B";
  Result<std::unique_ptr<Notebook>> book = OpenBook(ctx, a);
  if (!book.ok()) return book.status();
  Result<std::string> rel = (*book)->Add(n);
  if (!rel.ok()) return rel.status();
  inv.output = *rel;
  inv.context_files.push_back(*rel);
  return PrintPaths(ctx, **book, {*rel});
}

Status RunUpdate(Context& ctx, const NotesArgs& a, notes::Invocation& inv) {
  std::string agent = AgentOf(ctx, a);
  inv.agent = agent;
  inv.session_id = SessionOf(ctx);
  inv.input = a.path + ": " + a.message;
  std::optional<std::string> body;
  // The new body is optional: read stdin only when it is not a terminal,
  // and treat empty input as "no new body".
  if (!::isatty(STDIN_FILENO)) {
    Result<std::string> in = ReadStdin();
    if (!in.ok()) return in.status();
    if (!in->empty()) body = std::move(*in);
  }
  Result<std::unique_ptr<Notebook>> book = OpenBook(ctx, a);
  if (!book.ok()) return book.status();
  CTXKIT_RETURN_IF_ERROR((*book)->Update(a.path, agent, a.message, body));
  Result<std::string> rel = (*book)->RelativePath(a.path);
  inv.output = *rel;
  inv.context_files.push_back(*rel);
  return PrintPaths(ctx, **book, {*rel});
}

Status RunLink(Context& ctx, const NotesArgs& a, notes::Invocation& inv) {
  std::string agent = AgentOf(ctx, a);
  inv.agent = agent;
  inv.session_id = SessionOf(ctx);
  inv.input = a.path + " -> " + a.target;
  if (agent.empty()) {
    return Status::InvalidArgument(
        "notes link needs --agent (or the global --agent / CTXKIT_AGENT): "
        "the change is recorded in the changelog");
  }
  Result<std::unique_ptr<Notebook>> book = OpenBook(ctx, a);
  if (!book.ok()) return book.status();
  CTXKIT_RETURN_IF_ERROR((*book)->Link(a.path, a.target, agent));
  Result<std::string> rel = (*book)->RelativePath(a.path);
  inv.output = *rel;
  inv.context_files.push_back(*rel);
  return PrintPaths(ctx, **book, {*rel});
}

Status RunSupersede(Context& ctx, const NotesArgs& a, notes::Invocation& inv) {
  std::string agent = AgentOf(ctx, a);
  inv.agent = agent;
  inv.session_id = SessionOf(ctx);
  inv.input = a.old_path + " superseded by " + a.new_path;
  Result<std::unique_ptr<Notebook>> book = OpenBook(ctx, a);
  if (!book.ok()) return book.status();
  CTXKIT_RETURN_IF_ERROR((*book)->Supersede(a.old_path, a.new_path, agent));
  std::string new_rel = *(*book)->RelativePath(a.new_path);
  std::string old_rel = *(*book)->RelativePath(a.old_path);
  inv.output = new_rel;
  inv.context_files = {new_rel, old_rel};
  return PrintPaths(ctx, **book, {new_rel, old_rel});
}

Status RunSearch(Context& ctx, const NotesArgs& a, notes::Invocation& inv) {
  inv.agent = ctx.options().agent;
  inv.session_id = SessionOf(ctx);
  NoteQuery q;
  q.agent = a.agent;
  q.type = a.type;
  q.tags = a.tags;
  q.session = a.session;
  q.text = a.text;
  q.limit = a.limit;
  inv.input = "agent=" + a.agent + " type=" + a.type + " session=" + a.session +
              " text=" + a.text;
  Result<std::unique_ptr<Notebook>> book = OpenBook(ctx, a);
  if (!book.ok()) return book.status();
  Result<std::vector<NoteHit>> hits = (*book)->Search(q);
  if (!hits.ok()) return hits.status();
  inv.output = std::to_string(hits->size()) + " hits";
  if (ctx.json()) {
    nlohmann::json arr = nlohmann::json::array();
    for (const NoteHit& h : *hits) arr.push_back(notes::NoteHitToJson(h));
    PrintJson(arr);
    return Status::Ok();
  }
  std::string out;
  for (const NoteHit& h : *hits) {
    std::string tags;
    for (const std::string& t : h.header.tags)
      tags += (tags.empty() ? "" : ",") + t;
    out += h.file + "  " + h.header.type + "  " + h.header.agent + "  [" +
           tags + "]  " + OneLine(h.snippet).substr(0, 160) + "\n";
  }
  return WriteStdout(out);
}

Status RunShow(Context& ctx, const NotesArgs& a, notes::Invocation& inv) {
  inv.agent = ctx.options().agent;
  inv.session_id = SessionOf(ctx);
  inv.input = a.path;
  Result<std::unique_ptr<Notebook>> book = OpenBook(ctx, a);
  if (!book.ok()) return book.status();
  Result<Note> note = (*book)->Show(a.path);
  if (!note.ok()) return note.status();
  inv.output = note->path;
  if (ctx.json()) {
    PrintJson(notes::NoteToJson(*note));
    return Status::Ok();
  }
  for (const std::string& p : note->problems) {
    std::fprintf(stderr, "ctxkit: note: %s: %s\n", note->path.c_str(),
                 p.c_str());
  }
  return WriteStdout(note->content);
}

Status RunGc(Context& ctx, const NotesArgs& a, notes::Invocation& inv) {
  inv.agent = ctx.options().agent;
  inv.input = "older-than=" + a.older_than + (a.apply ? " apply" : " dry-run");
  Result<int64_t> seconds = ParseRetention(a.older_than);
  if (!seconds.ok()) {
    return seconds.status().WithContext("--older-than");
  }
  Result<std::unique_ptr<Notebook>> book = OpenBook(ctx, a);
  if (!book.ok()) return book.status();
  Result<GcReport> r = (*book)->Gc(*seconds, a.apply);
  if (!r.ok()) return r.status();
  inv.output = std::to_string(r->expired.size()) +
               (r->applied ? " removed" : " expired");
  if (ctx.json()) {
    nlohmann::json j = notes::GcReportToJson(*r);
    j["older_than"] = a.older_than;
    PrintJson(j);
    return Status::Ok();
  }
  std::string out;
  for (const GcEntry& e : r->expired) {
    out += (r->applied ? "removed " : "would remove ") + e.path + "  (" +
           std::to_string(e.age_seconds / 86400) + "d old)\n";
  }
  out += std::to_string(r->expired.size()) + " notes older than " +
         a.older_than +
         (r->applied ? " removed" : " (dry run; --apply to remove)") + ", " +
         std::to_string(r->kept) + " kept\n";
  return WriteStdout(out);
}

Status RunScan(Context& ctx, const NotesArgs& a, notes::Invocation& inv) {
  inv.agent = ctx.options().agent;
  inv.input = a.full ? "full" : "incremental";
  Result<std::unique_ptr<Notebook>> book = OpenBook(ctx, a);
  if (!book.ok()) return book.status();
  Result<ScanStats> r = (*book)->Scan(a.full);
  if (!r.ok()) return r.status();
  inv.output = std::to_string(r->notes_indexed) + " indexed";
  nlohmann::json j = notes::ScanStatsToJson(*r);
  if (ctx.json()) {
    PrintJson(j);
    return Status::Ok();
  }
  return WriteStdout(std::to_string(r->notes_total) + " notes in " +
                     (*book)->root() + ": " + std::to_string(r->notes_indexed) +
                     " indexed, " + std::to_string(r->notes_removed) +
                     " removed, " + std::to_string(r->files_checked) +
                     " files checked\n");
}

Status RunLog(Context& ctx, uint64_t limit) {
  Result<Store*> store = ctx.OpenStore();
  if (!store.ok()) return store.status();
  Result<std::vector<ExecutionLogEntry>> entries =
      ReadExecutionLog(**store, limit);
  if (!entries.ok()) return entries.status();
  if (ctx.json()) {
    PrintJson(notes::ExecutionLogToJson(*entries));
    return Status::Ok();
  }
  Table t({"TIME", "AGENT", "COMMAND", "STATUS", "MS", "OUTPUT"}, {4});
  for (const ExecutionLogEntry& e : *entries) {
    t.AddRow({e.timestamp, e.agent.empty() ? "-" : e.agent, e.command, e.status,
              std::to_string(e.duration_ms), e.output});
  }
  return WriteStdout(t.Render());
}

// Adds `sub` to the table, logging each run under `name`.
void AddLogged(CommandTable& table, CLI::App* sub, const std::string& name,
               std::shared_ptr<NotesArgs> a,
               Status (*fn)(Context&, const NotesArgs&, notes::Invocation&)) {
  table.Add(sub, [a, name, fn](Context& ctx) {
    Status result;
    // Logs the exit code Main exits with; Main reports the failure.
    notes::RunLogged([&ctx] { return LogStore(ctx); }, name,
                     [&](notes::Invocation& inv) {
                       result = fn(ctx, *a, inv);
                       return ExitCodeFor(result);
                     });
    return result;
  });
}

}  // namespace

void RegisterNotesCommands(CLI::App& app, CommandTable& table) {
  auto a = std::make_shared<NotesArgs>();
  CLI::App* notes = app.add_subcommand(
      "notes",
      "Agent context notes: markdown files with YAML frontmatter under "
      "$SFA_CONTEXT_STORE (else the shared config's contextStore.path, else "
      "~/.local/share/single-file-agents/context; with an explicit --home "
      "or $CTXKIT_HOME, <home>/notes-root), indexed for search");
  notes->require_subcommand(1);
  notes->add_option("--root", a->root, "Notes root directory")
      ->type_name("DIR");

  CLI::App* add = notes->add_subcommand(
      "add", "Write a new note (body on stdin); prints its path");
  add->add_option("--agent", a->agent, "Writing agent (default: --agent)")
      ->type_name("A");
  add->add_option("--type", a->type,
                  "finding, decision, artifact, reference or summary")
      ->required()
      ->type_name("T");
  AddRepeatableOption(add, "--tag", &a->tags, "A tag (repeatable)")
      ->type_name("X");
  AddRepeatableOption(add, "--link", &a->links, "Link to a note (repeatable)")
      ->type_name("PATH");
  add->add_option("--slug", a->slug, "Short description for the file name")
      ->required()
      ->type_name("S");
  AddLogged(table, add, "notes add", a, RunAdd);

  CLI::App* update = notes->add_subcommand(
      "update",
      "Append a changelog entry; a new body may come on stdin (the "
      "changelog is kept)");
  update->add_option("PATH", a->path, "Note path (root-relative)")->required();
  update->add_option("--agent", a->agent, "Updating agent")->type_name("A");
  update->add_option("--message,-m", a->message, "What changed")
      ->required()
      ->type_name("M");
  AddLogged(table, update, "notes update", a, RunUpdate);

  CLI::App* link = notes->add_subcommand("link", "Link PATH to TARGET");
  link->add_option("PATH", a->path, "Note path")->required();
  link->add_option("TARGET", a->target, "Linked note path")->required();
  link->add_option("--agent", a->agent, "Linking agent")->type_name("A");
  AddLogged(table, link, "notes link", a, RunLink);

  CLI::App* sup = notes->add_subcommand(
      "supersede",
      "NEW replaces OLD: NEW links to OLD, OLD's changelog says so");
  sup->add_option("OLD", a->old_path, "Superseded note")->required();
  sup->add_option("NEW", a->new_path, "Replacement note")->required();
  sup->add_option("--agent", a->agent, "Agent recording it")->type_name("A");
  AddLogged(table, sup, "notes supersede", a, RunSupersede);

  CLI::App* search = notes->add_subcommand(
      "search", "Search by agent, type, tag, session and full text");
  search->add_option("TEXT", a->text, "Words that must all occur");
  search->add_option("--agent", a->agent, "Only this agent's notes")
      ->type_name("A");
  search->add_option("--type", a->type, "Only this type")->type_name("T");
  AddRepeatableOption(search, "--tag", &a->tags,
                      "Only notes with this tag (repeatable)")
      ->type_name("X");
  search->add_option("--session", a->session, "Only this session's notes")
      ->type_name("S");
  search->add_option("--limit,-n", a->limit, "At most N hits (default 20)")
      ->type_name("N")
      ->check(UnsignedNumber());
  AddLogged(table, search, "notes search", a, RunSearch);

  CLI::App* show = notes->add_subcommand("show", "Print a note");
  show->add_option("PATH", a->path, "Note path")->required();
  AddLogged(table, show, "notes show", a, RunShow);

  CLI::App* gc = notes->add_subcommand(
      "gc", "Remove notes older than a retention (dry run unless --apply)");
  gc->add_option("--older-than", a->older_than,
                 "Retention, e.g. 30d, 12h, 2w (default 30d)")
      ->type_name("AGE");
  gc->add_flag("--apply", a->apply, "Really remove them");
  AddLogged(table, gc, "notes gc", a, RunGc);

  CLI::App* scan = notes->add_subcommand(
      "scan", "Bring the index up to date with the files");
  scan->add_flag("--full", a->full,
                 "Check every file, not only changed "
                 "directories");
  AddLogged(table, scan, "notes scan", a, RunScan);

  auto limit = std::make_shared<uint64_t>(kExecutionLogDefaultLimit);
  CLI::App* log = app.add_subcommand(
      "log", "The execution log: one JSON line per notes/tools invocation");
  log->add_option("--limit,-n", *limit,
                  "The last N entries (default " +
                      std::to_string(kExecutionLogDefaultLimit) + ")")
      ->type_name("N")
      ->check(UnsignedNumber());
  table.Add(log, [limit](Context& ctx) { return RunLog(ctx, *limit); });
}

}  // namespace ctxkit::cli
