#include "capture/json_forms.h"

#include <string>

#include "text/json_parse.h"

namespace ctxkit::capture {

using nlohmann::json;

namespace {

json RefOrNull(const std::optional<Ref>& ref) {
  return ref ? json(FormatRef(*ref)) : json(nullptr);
}

json StringOrNull(const std::string& s) {
  return s.empty() ? json(nullptr) : json(s);
}

}  // namespace

std::optional<Ref> OutputRef(View& view, std::string_view pointer) {
  // A pointer is a ref (an output kept in memory) or a file path.
  if (Target::IsRefText(pointer)) {
    Result<Target> target = Target::Parse(pointer);
    if (target.ok()) return *target->ref();
    return std::nullopt;
  }
  size_t dot = pointer.rfind(".json");
  size_t dash = pointer.rfind('-');
  if (dot == std::string_view::npos || dash == std::string_view::npos ||
      dash > dot) {
    return std::nullopt;
  }
  std::string key = "toolcall:ctx-";
  key += pointer.substr(dash + 1, dot - dash - 1);
  Result<Ref> pinned = view.Pin(key, {.scope = "session"});
  if (!pinned.ok()) return std::nullopt;
  return *pinned;
}

json PointerToJson(const ContextPointer& p, const std::optional<Ref>& ref) {
  return json{{"pointer", p.filepath},
              {"ref", RefOrNull(ref)},
              {"tool_name", p.tool_name},
              {"timestamp_ms", p.timestamp},
              {"size_bytes", p.size_bytes},
              {"in_memory", p.in_memory},
              {"query_id", StringOrNull(p.query_id)}};
}

json LoadedToJson(const LoadedContext& l, std::string_view pointer,
                  const std::optional<Ref>& ref) {
  return json{{"pointer", std::string(pointer)},
              {"ref", RefOrNull(ref)},
              {"tool_name", l.tool_name},
              {"args", ctxkit::text::ParseJsonOrDiscarded(l.args_json)},
              {"timestamp", l.timestamp},
              {"session_id", l.session_id},
              {"query_id", StringOrNull(l.query_id)},
              {"task_id", StringOrNull(l.task_id)}};
}

json LoadedWithResultToJson(const LoadedContext& l, std::string_view pointer,
                            const std::optional<Ref>& ref) {
  json j = LoadedToJson(l, pointer, ref);
  j["result"] = ctxkit::text::ParseJsonOrDiscarded(l.result_json);
  return j;
}

json SavedToJson(std::string_view pointer, uint64_t size_bytes,
                 const std::optional<Ref>& ref) {
  return json{{"pointer", std::string(pointer)},
              {"ref", RefOrNull(ref)},
              {"in_memory", Target::IsRefText(pointer)},
              {"size_bytes", size_bytes}};
}

json SelectionToJson(View& view, const Selection& sel, uint64_t candidates) {
  json selected = json::array();
  for (size_t i = 0; i < sel.selected.size(); ++i) {
    const ContextPointer& p = sel.selected[i];
    std::optional<Ref> ref = OutputRef(view, p.filepath);
    json j = PointerToJson(p, ref);
    if (i < sel.loaded.size()) {
      j["output"] = LoadedWithResultToJson(sel.loaded[i], p.filepath, ref);
    }
    selected.push_back(std::move(j));
  }
  return json{{"method", sel.method},
              {"candidates", candidates},
              {"selected", std::move(selected)},
              {"notes", sel.notes}};
}

}  // namespace ctxkit::capture
