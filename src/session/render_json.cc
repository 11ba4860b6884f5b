#include "session/render_json.h"

#include <string>

namespace ctxkit::session {

using nlohmann::json;

json RenderToJson(std::string_view session_id, LogFormat format,
                  const RenderResult& r) {
  json dropped = json::array();
  for (const RenderDrop& d : r.dropped) {
    dropped.push_back({{"ref", d.ref},
                       {"key", d.key},
                       {"version", d.version},
                       {"tokens", d.tokens}});
  }
  json conflicts = json::array();
  for (const RenderConflict& c : r.conflicts) {
    conflicts.push_back({{"key", c.key},
                         {"pinned_version", c.pinned_version},
                         {"active_version", c.active_version}});
  }
  return json{{"session", std::string(session_id)},
              {"format", std::string(LogFormatName(format))},
              {"budget_tokens", r.budget_tokens},
              {"tokens", r.tokens},
              {"dropped", std::move(dropped)},
              {"conflicts", std::move(conflicts)},
              {"index_listed", r.index_listed},
              {"index_total", r.index_total}};
}

}  // namespace ctxkit::session
