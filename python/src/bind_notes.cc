// ctxkit.Notebook: agent context notes (markdown with YAML frontmatter,
// indexed in the store).
#include <optional>

#include "binding.h"
#include "ctxkit/notes.h"
#include "os/filename.h"

namespace ctxkit::python {
namespace {

using PyNotebook = Serialized<Notebook>;

void BindNoteTypes(py::module_& m) {
  py::class_<NoteHeader>(m, "NoteHeader", "A note's frontmatter.")
      .def_readonly("agent", &NoteHeader::agent)
      .def_readonly("session_id", &NoteHeader::session_id)
      .def_readonly("timestamp", &NoteHeader::timestamp)
      .def_readonly("type", &NoteHeader::type)
      .def_readonly("tags", &NoteHeader::tags)
      .def_readonly("links", &NoteHeader::links);
  py::class_<Note>(m, "Note", "One note as stored.")
      .def_readonly("path", &Note::path, "Relative to the root.")
      .def_readonly("file", &Note::file)
      .def_readonly("header", &Note::header)
      .def_property_readonly("body", [](const Note& n) { return Text(n.body); })
      .def_property_readonly("content",
                             [](const Note& n) { return Text(n.content); })
      .def_readonly("problems", &Note::problems);
  py::class_<NoteHit>(m, "NoteHit", "One hit of Notebook.search, best first.")
      .def_readonly("path", &NoteHit::path)
      .def_readonly("file", &NoteHit::file)
      .def_readonly("header", &NoteHit::header)
      .def_readonly("score", &NoteHit::score)
      .def_property_readonly("snippet",
                             [](const NoteHit& h) { return Text(h.snippet); })
      .def_readonly("ref", &NoteHit::ref);
  py::class_<ScanStats>(m, "ScanStats", "What Notebook.scan found.")
      .def_readonly("files_checked", &ScanStats::files_checked)
      .def_readonly("notes_indexed", &ScanStats::notes_indexed)
      .def_readonly("notes_removed", &ScanStats::notes_removed)
      .def_readonly("notes_total", &ScanStats::notes_total);
  py::class_<GcReport>(m, "NotesGcReport", "Notes older than the retention.")
      .def_readonly("applied", &GcReport::applied)
      .def_property_readonly(
          "expired",
          [](const GcReport& r) {
            py::list out;
            for (const GcEntry& e : r.expired)
              out.append(py::make_tuple(e.path, e.age_seconds));
            return out;
          },
          "(path, age_seconds) pairs.")
      .def_readonly("kept", &GcReport::kept);
  py::class_<ExecutionLogEntry>(m, "ExecutionLogEntry",
                                "One invocation in the execution log.")
      .def_readonly("timestamp", &ExecutionLogEntry::timestamp)
      .def_readonly("agent", &ExecutionLogEntry::agent)
      .def_readonly("session_id", &ExecutionLogEntry::session_id)
      .def_readonly("command", &ExecutionLogEntry::command)
      .def_readonly("status", &ExecutionLogEntry::status)
      .def_readonly("exit_code", &ExecutionLogEntry::exit_code)
      .def_readonly("duration_ms", &ExecutionLogEntry::duration_ms)
      .def_readonly("input", &ExecutionLogEntry::input)
      .def_readonly("output", &ExecutionLogEntry::output)
      .def_readonly("context_files", &ExecutionLogEntry::context_files);
}

}  // namespace

void BindNotes(py::module_& m) {
  BindNoteTypes(m);
  m.def(
      "read_execution_log",
      [](Store& store, size_t limit) {
        return Call([&] { return ReadExecutionLog(store, limit); });
      },
      py::arg("store"), py::kw_only(),
      py::arg("limit") = kExecutionLogDefaultLimit,
      "The execution log (`ctxkit log`): the last `limit` entries, "
      "oldest first.");
  py::class_<PyNotebook>(m, "Notebook", R"doc(
Agent context notes: markdown files with YAML frontmatter under a root
directory (default <store home>/notes-root, as the CLI), indexed in the
store for search. Calls on one Notebook are serialized.)doc")
      .def_static(
          "open",
          [](View& view, const std::optional<std::string>& root) {
            NotebookOptions options{
                .root = root.value_or(
                    storage::HomeNotesRoot(view.store()->home()))};
            return std::make_unique<PyNotebook>(
                Call([&] { return Notebook::Open(view, options); }));
          },
          py::arg("view"), py::arg("root") = py::none(), py::keep_alive<0, 1>())
      .def_property_readonly("root",
                             [](const PyNotebook& n) { return n.get().root(); })
      .def(
          "add",
          [](PyNotebook& n, const std::string& agent, const std::string& slug,
             const std::string& body, const std::string& session,
             const std::string& type, std::vector<std::string> tags,
             std::vector<std::string> links) {
            NewNote note;
            note.agent = agent;
            note.slug = slug;
            note.body = body;
            note.session_id = session;
            note.type = Unwrap(ParseNoteType(type));
            note.tags = std::move(tags);
            note.links = std::move(links);
            return n.Run([&](Notebook& x) { return x.Add(note); });
          },
          py::arg("agent"), py::arg("slug"), py::arg("body"), py::kw_only(),
          py::arg("session") = "", py::arg("type") = "finding",
          py::arg("tags") = std::vector<std::string>{},
          py::arg("links") = std::vector<std::string>{},
          "Writes a new note; returns its path relative to the root.\n"
          "type: finding, decision, artifact, reference or summary.")
      .def(
          "update",
          [](PyNotebook& n, const std::string& path, const std::string& agent,
             const std::string& message,
             const std::optional<std::string>& body) {
            n.Run([&](Notebook& x) {
              return x.Update(path, agent, message, body);
            });
          },
          py::arg("path"), py::arg("agent"), py::arg("message"), py::kw_only(),
          py::arg("body") = py::none(),
          "Appends a changelog line (and replaces the body when given).")
      .def(
          "link",
          [](PyNotebook& n, const std::string& path, const std::string& target,
             const std::string& agent) {
            n.Run([&](Notebook& x) { return x.Link(path, target, agent); });
          },
          py::arg("path"), py::arg("target"), py::arg("agent"))
      .def(
          "supersede",
          [](PyNotebook& n, const std::string& old_path,
             const std::string& new_path, const std::string& agent) {
            n.Run([&](Notebook& x) {
              return x.Supersede(old_path, new_path, agent);
            });
          },
          py::arg("old_path"), py::arg("new_path"), py::arg("agent"))
      .def(
          "show",
          [](PyNotebook& n, const std::string& path) {
            return n.Run([&](Notebook& x) { return x.Show(path); });
          },
          py::arg("path"))
      .def(
          "search",
          [](PyNotebook& n, const std::string& text, const std::string& agent,
             const std::string& type, std::vector<std::string> tags,
             const std::string& session, size_t limit) {
            NoteQuery query;
            query.text = text;
            query.agent = agent;
            query.type = type;
            query.tags = std::move(tags);
            query.session = session;
            query.limit = limit;
            return n.Run([&](Notebook& x) { return x.Search(query); });
          },
          py::arg("text") = "", py::kw_only(), py::arg("agent") = "",
          py::arg("type") = "", py::arg("tags") = std::vector<std::string>{},
          py::arg("session") = "", py::arg("limit") = 20,
          "Notes by words (BM25) and filters.")
      .def(
          "scan",
          [](PyNotebook& n, bool full) {
            return n.Run([&](Notebook& x) { return x.Scan(full); });
          },
          py::kw_only(), py::arg("full") = false,
          "Indexes notes written or changed outside this Notebook.")
      .def(
          "gc",
          [](PyNotebook& n, int64_t older_than_seconds, bool apply) {
            return n.Run(
                [&](Notebook& x) { return x.Gc(older_than_seconds, apply); });
          },
          py::arg("older_than_seconds"), py::kw_only(),
          py::arg("apply") = false);
}

}  // namespace ctxkit::python
