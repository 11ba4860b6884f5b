#include "capture/context_file.h"

#include <atomic>
#include <string>

#include "core/clock.h"
#include "text/json_parse.h"
#include "text/json_write.h"

namespace ctxkit::capture {

namespace {

std::string_view StripSessionPrefix(std::string_view sid) {
  if (sid.starts_with("session-") && sid.size() > 8) sid.remove_prefix(8);
  return sid;
}

std::string FileTool(std::string_view tool) {
  std::string out;
  for (char c : tool.substr(0, 64)) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (c >= '0' && c <= '9') || c == '_';
    out += ok ? c : '_';
  }
  return out;
}

// Compact JSON: what was given, with no indentation added. (Indenting a
// deeply nested result multiplied its size by its depth: a 40 KB result
// became an 800 MB file.)
template <typename Json>
std::string Compact(const Json& j) {
  return text::DumpJson(j);
}

}  // namespace

std::string SessionFilePrefix(std::string_view session_id) {
  return "session-" + std::string(StripSessionPrefix(session_id)) + "-";
}

std::string ContextFileName(std::string_view session_id,
                            std::string_view tool_name, std::string_view hash) {
  return SessionFilePrefix(session_id) + FileTool(tool_name) + "-" +
         std::string(hash) + ".json";
}

std::string RenderContextFile(const LoadedContext& c,
                              const nlohmann::json& args,
                              const nlohmann::json& result) {
  // The envelope one field per line, for people reading the file; each
  // value compact, so the file is the size of what was given plus a
  // constant.
  using nlohmann::json;
  std::string out = "{\n  \"toolName\": " + Compact(json(c.tool_name));
  out += ",\n  \"args\": " + Compact(args);
  out += ",\n  \"result\": " + Compact(result);
  out += ",\n  \"timestamp\": " + Compact(json(c.timestamp));
  out += ",\n  \"queryId\": " +
         Compact(c.query_id.empty() ? json(nullptr) : json(c.query_id));
  out += ",\n  \"sessionId\": " + Compact(json(c.session_id));
  if (!c.task_id.empty()) out += ",\n  \"taskId\": " + Compact(json(c.task_id));
  return out + "\n}\n";
}

Result<LoadedContext> ParseContextFile(std::string_view bytes) {
  nlohmann::json j = ctxkit::text::ParseJsonOrDiscarded(bytes);
  if (!j.is_object() || !j.contains("toolName") || !j["toolName"].is_string() ||
      !j.contains("result") || !j.contains("sessionId") ||
      !j["sessionId"].is_string()) {
    return Status::Corruption("not a tool-output file");
  }
  LoadedContext c;
  c.tool_name = j["toolName"].get<std::string>();
  c.args_json = j.contains("args") ? j["args"].dump() : "{}";
  c.result_json = j["result"].dump();
  c.timestamp = j.value("timestamp", "");
  if (j.contains("queryId") && j["queryId"].is_string()) {
    c.query_id = j["queryId"].get<std::string>();
  }
  c.session_id = j["sessionId"].get<std::string>();
  if (j.contains("taskId") && j["taskId"].is_string()) {
    c.task_id = j["taskId"].get<std::string>();
  }
  return c;
}

std::string NowIsoMillis() {
  // Strictly increasing within the process, so outputs saved in the same
  // millisecond still list in the order they were saved.
  static std::atomic<int64_t> last_ms{0};
  int64_t now = core::NowUnixNanos() / 1'000'000;
  int64_t prev = last_ms.load();
  do {
    if (now <= prev) now = prev + 1;
  } while (!last_ms.compare_exchange_weak(prev, now));
  return core::FormatIso8601(now * 1'000'000);
}

}  // namespace ctxkit::capture
