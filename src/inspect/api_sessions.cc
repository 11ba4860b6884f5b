// Inspector API: sessions, their recorded renders, diffs, compactions and
// tool outputs (docs/inspector.md).

#include <filesystem>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include "capture/json_forms.h"
#include "core/status_macros.h"
#include "ctxkit/capture.h"
#include "ctxkit/session.h"
#include "inspect/api_internal.h"
#include "session/render_json.h"
#include "text/json_parse.h"

namespace ctxkit::inspect {
namespace {

// A record number in a path segment or parameter.
Result<uint64_t> RecordNumber(std::string_view what, const std::string& text) {
  uint64_t n = 0;
  bool ok = !text.empty() && text.size() <= 19;
  for (char c : text) {
    ok = ok && c >= '0' && c <= '9';
    if (ok) n = n * 10 + static_cast<uint64_t>(c - '0');
  }
  if (!ok || n == 0) {
    return Status::InvalidArgument(std::string(what) +
                                   " must be a record number (1, 2, ...)");
  }
  return n;
}

Result<std::unique_ptr<Session>> OpenSession(const Request& r,
                                             const std::string& id) {
  return Session::Open(r.store, id);
}

}  // namespace

Result<json> SessionList(const Request& r) {
  CTXKIT_RETURN_IF_ERROR(r.params.Only({}));
  CTXKIT_ASSIGN_OR_RETURN(std::vector<std::string> ids, Session::List(r.store));
  json sessions = json::array();
  for (const std::string& id : ids) {
    Result<std::unique_ptr<Session>> s = OpenSession(r, id);
    if (s.status().IsNotFound()) continue;  // Removed meanwhile.
    if (!s.ok()) return s.status();
    CTXKIT_ASSIGN_OR_RETURN(SessionSnapshot snap, (*s)->Snapshot());
    const size_t entries = snap.entries.size();
    snap.entries.clear();  // Only the figures are listed, not the pool.
    json figures = session::SnapshotToJson(snap);
    sessions.push_back({{"id", id},
                        {"chat_messages", snap.chat_messages},
                        {"entries", entries},
                        {"compactions", snap.compactions.size()},
                        {"renders", snap.renders},
                        {"last_render", std::move(figures["last_render"])}});
  }
  return json{{"sessions", std::move(sessions)}};
}

Result<json> SessionShow(const Request& r, const std::string& id) {
  CTXKIT_RETURN_IF_ERROR(r.params.Only({"entries"}));
  CTXKIT_ASSIGN_OR_RETURN(
      uint64_t max_entries,
      r.params.Number("entries", UINT64_MAX, 0, UINT64_MAX));
  CTXKIT_ASSIGN_OR_RETURN(std::unique_ptr<Session> s, OpenSession(r, id));
  CTXKIT_ASSIGN_OR_RETURN(SessionSnapshot snap, s->Snapshot());
  const size_t total = snap.entries.size();
  if (snap.entries.size() > max_entries) snap.entries.resize(max_entries);
  json out = session::SnapshotToJson(snap);
  out["entries_total"] = total;
  return out;
}

Result<json> SessionRenders(const Request& r, const std::string& id) {
  CTXKIT_RETURN_IF_ERROR(r.params.Only({}));
  CTXKIT_ASSIGN_OR_RETURN(std::unique_ptr<Session> s, OpenSession(r, id));
  CTXKIT_ASSIGN_OR_RETURN(std::vector<RenderFigures> history,
                          s->RenderHistory());
  json renders = json::array();
  for (const RenderFigures& f : history) {
    renders.push_back(session::FiguresToJson(f));
  }
  return json{{"session", id}, {"renders", std::move(renders)}};
}

Result<json> SessionRender(const Request& r, const std::string& id,
                           const std::string& n_text) {
  CTXKIT_RETURN_IF_ERROR(r.params.Only({}));
  CTXKIT_ASSIGN_OR_RETURN(uint64_t n, RecordNumber("the render", n_text));
  CTXKIT_ASSIGN_OR_RETURN(std::unique_ptr<Session> s, OpenSession(r, id));
  CTXKIT_ASSIGN_OR_RETURN(RenderResult render, s->Replay(n));
  json out = session::RenderToJson(id, render.format, render);
  out["request"] = render.request_json;
  out["diff"] = nullptr;
  if (n > 1) {
    // The render replays even when the comparison cannot be made (a
    // version only the previous record names was collected): say why.
    Result<RenderDiff> diff = s->Diff(n - 1, n);
    if (diff.ok()) {
      out["diff"] = session::DiffToJson(id, *diff);
    } else {
      out["diff_error"] = diff.status().ToString();
    }
  }
  return out;
}

Result<json> SessionDiff(const Request& r, const std::string& id) {
  CTXKIT_RETURN_IF_ERROR(r.params.Only({"from", "to"}));
  CTXKIT_ASSIGN_OR_RETURN(std::string from_text, r.params.Required("from"));
  CTXKIT_ASSIGN_OR_RETURN(std::string to_text, r.params.Required("to"));
  CTXKIT_ASSIGN_OR_RETURN(uint64_t from, RecordNumber("from", from_text));
  CTXKIT_ASSIGN_OR_RETURN(uint64_t to, RecordNumber("to", to_text));
  CTXKIT_ASSIGN_OR_RETURN(std::unique_ptr<Session> s, OpenSession(r, id));
  CTXKIT_ASSIGN_OR_RETURN(RenderDiff diff, s->Diff(from, to));
  return session::DiffToJson(id, diff);
}

Result<json> SessionExpand(const Request& r, const std::string& id) {
  CTXKIT_RETURN_IF_ERROR(r.params.Only({"compaction"}));
  CTXKIT_ASSIGN_OR_RETURN(std::string compaction,
                          r.params.Required("compaction"));
  CTXKIT_ASSIGN_OR_RETURN(std::unique_ptr<Session> s, OpenSession(r, id));
  CTXKIT_ASSIGN_OR_RETURN(std::string lines, s->Expand(compaction));
  json messages = json::array();
  size_t at = 0;
  while (at < lines.size()) {
    size_t nl = lines.find('\n', at);
    if (nl == std::string::npos) nl = lines.size();
    json m =
        text::ParseJsonOrDiscarded(std::string_view(lines).substr(at, nl - at));
    if (m.is_discarded()) {
      return Status::Corruption("compaction '" + compaction +
                                "': a stored chat message is not JSON");
    }
    messages.push_back(std::move(m));
    at = nl + 1;
  }
  return json{{"compaction", compaction}, {"messages", std::move(messages)}};
}

Result<json> SessionToolOutputs(const Request& r, const std::string& id) {
  CTXKIT_RETURN_IF_ERROR(r.params.Only({}));
  // The session must exist (and the id be well formed).
  CTXKIT_ASSIGN_OR_RETURN(std::unique_ptr<Session> s, OpenSession(r, id));
  json outputs = json::array();
  std::error_code ec;
  const std::string& root = r.options.tool_output_dir;
  // Opened read-only: the root is not created and nothing in it is
  // cleaned up; a missing one simply holds nothing.
  if (root.empty() || !std::filesystem::is_directory(root, ec)) {
    return json{{"session", id}, {"outputs", std::move(outputs)}};
  }
  CTXKIT_ASSIGN_OR_RETURN(View view, r.store.OpenView("", id));
  CTXKIT_ASSIGN_OR_RETURN(
      std::unique_ptr<ToolOutputCapture> cm,
      ToolOutputCapture::Open(view, {.root = root, .read_only = true}));
  CTXKIT_ASSIGN_OR_RETURN(std::vector<ContextPointer> pointers,
                          cm->ListContexts(id));
  for (const ContextPointer& p : pointers) {
    outputs.push_back(
        capture::PointerToJson(p, capture::OutputRef(view, p.filepath)));
  }
  return json{{"session", id}, {"outputs", std::move(outputs)}};
}

Result<std::vector<std::string>> SessionsHolding(Store& store,
                                                 const std::string& object_id,
                                                 size_t max_sessions,
                                                 bool* truncated) {
  CTXKIT_ASSIGN_OR_RETURN(std::vector<std::string> ids, Session::List(store));
  *truncated = ids.size() > max_sessions;
  if (*truncated) ids.resize(max_sessions);
  std::vector<std::string> holding;
  for (const std::string& id : ids) {
    Result<std::unique_ptr<Session>> s = Session::Open(store, id);
    if (s.status().IsNotFound()) continue;
    if (!s.ok()) return s.status();
    CTXKIT_ASSIGN_OR_RETURN(SessionSnapshot snap, (*s)->Snapshot());
    for (const PoolEntry& e : snap.entries) {
      if (e.id == object_id) {
        holding.push_back(id);
        break;
      }
    }
  }
  return holding;
}

}  // namespace ctxkit::inspect
