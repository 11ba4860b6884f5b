#include "notes/json_forms.h"

#include <string>

namespace ctxkit::notes {

using nlohmann::json;

json NoteHeaderToJson(const NoteHeader& h) {
  return json{{"agent", h.agent},         {"session_id", h.session_id},
              {"timestamp", h.timestamp}, {"type", h.type},
              {"tags", h.tags},           {"links", h.links}};
}

json NoteHitToJson(const NoteHit& h) {
  json j = NoteHeaderToJson(h.header);
  j["path"] = h.path;
  j["file"] = h.file;
  j["ref"] = h.ref.empty() ? json(nullptr) : json(h.ref);
  j["score"] = h.score;
  j["snippet"] = h.snippet;
  return j;
}

json NoteWrittenToJson(View& view, const Notebook& book, std::string_view rel) {
  // Every note is the global object "note:<path>" (notebook.cc).
  std::string key = "note:" + std::string(rel);
  Result<ObjectMeta> meta = view.Stat(key, {.scope = "global"});
  return json{
      {"path", std::string(rel)},
      {"file", book.root() + "/" + std::string(rel)},
      {"key", key},
      {"ref", meta.ok() ? json(FormatRef(StaticRefOf(*meta))) : json(nullptr)}};
}

json NoteToJson(const Note& note) {
  return json{{"path", note.path},
              {"file", note.file},
              {"frontmatter", NoteHeaderToJson(note.header)},
              {"body", note.body},
              {"problems", note.problems}};
}

json ScanStatsToJson(const ScanStats& s) {
  return json{{"directories_listed", s.directories_listed},
              {"files_checked", s.files_checked},
              {"notes_indexed", s.notes_indexed},
              {"notes_removed", s.notes_removed},
              {"notes_total", s.notes_total}};
}

json GcReportToJson(const GcReport& r) {
  json expired = json::array();
  for (const GcEntry& e : r.expired) {
    expired.push_back({{"path", e.path}, {"age_seconds", e.age_seconds}});
  }
  return json{{"applied", r.applied}, {"expired", expired}, {"kept", r.kept}};
}

nlohmann::json ExecutionLogToJson(
    const std::vector<ExecutionLogEntry>& entries) {
  nlohmann::json out = nlohmann::json::array();
  for (const ExecutionLogEntry& e : entries) {
    out.push_back(nlohmann::json::parse(ExecutionLogLine(e)));
  }
  return out;
}

}  // namespace ctxkit::notes
