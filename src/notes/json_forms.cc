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

}  // namespace ctxkit::notes
