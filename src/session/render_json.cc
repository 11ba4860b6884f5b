#include "session/render_json.h"

#include <string>

namespace ctxkit::session {

using nlohmann::json;

json CompactionToJson(const CompactionInfo& c) {
  return {{"ref", c.ref},
          {"first_message", c.first_message},
          {"end_message", c.end_message},
          {"turns", c.turns}};
}

json IngestToJson(std::string_view session_id, const IngestReport& report) {
  return {{"session", session_id},
          {"messages_added", report.messages_added},
          {"toolcalls_recorded", report.toolcalls_recorded},
          {"reset", report.reset}};
}

json BreakdownToJson(const RenderBreakdown& b) {
  return {{"system", b.system},
          {"pinned", b.pinned},
          {"index", b.index},
          {"compactions", b.compactions},
          {"chat", b.chat},
          {"active_outputs", b.active_outputs},
          {"placeholders", b.placeholders}};
}

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
  return json{
      {"session", std::string(session_id)},
      {"format", std::string(LogFormatName(format))},
      {"budget_tokens", r.budget_tokens},
      {"tokens", r.tokens},
      {"breakdown", BreakdownToJson(r.breakdown)},
      {"dropped", std::move(dropped)},
      {"conflicts", std::move(conflicts)},
      {"index_listed", r.index_listed},
      {"index_total", r.index_total},
      {"collapsed", r.collapsed},
      {"compacted",
       r.compacted.ref.empty() ? json() : CompactionToJson(r.compacted)},
      {"compacted_messages", r.compacted_messages},
      {"record", r.record},
      {"bytes", r.bytes},
      {"prefix_bytes", r.prefix_bytes ? json(*r.prefix_bytes) : json()}};
}

json DiffToJson(std::string_view session_id, const RenderDiff& d) {
  json compacted = json::array();
  for (const CompactionInfo& c : d.compacted) {
    compacted.push_back(CompactionToJson(c));
  }
  return json{{"session", std::string(session_id)},
              {"from", d.from},
              {"to", d.to},
              {"entered", d.entered},
              {"left", d.left},
              {"collapsed", d.collapsed},
              {"compacted", std::move(compacted)},
              {"tokens", {{"from", d.from_tokens}, {"to", d.to_tokens}}},
              {"breakdown",
               {{"from", BreakdownToJson(d.from_breakdown)},
                {"to", BreakdownToJson(d.to_breakdown)}}}};
}

nlohmann::json ForkToJson(std::string_view parent, uint64_t record,
                          const SessionSnapshot& child) {
  return {{"session", child.id},
          {"parent", parent},
          {"record", record},
          {"chat_messages", child.chat_messages},
          {"ingest_format", child.ingest_format},
          {"ingested_items", child.ingested_items},
          {"compactions", child.compactions.size()},
          {"objects", child.entries.size()}};
}

nlohmann::json SnapshotToJson(const SessionSnapshot& snap) {
  json entries = json::array();
  for (const PoolEntry& e : snap.entries) {
    entries.push_back(EntryToJson(e, false));
  }
  json compactions = json::array();
  for (const CompactionInfo& c : snap.compactions) {
    compactions.push_back(CompactionToJson(c));
  }
  json last;
  if (snap.renders != 0) {
    last = {{"tokens", snap.last_render_tokens},
            {"budget_tokens", snap.last_render_budget},
            {"breakdown", BreakdownToJson(snap.last_render_breakdown)}};
  }
  return {{"session", snap.id},
          {"policy", PolicyToJson(snap.policy)},
          {"generation", snap.generation},
          {"chat_messages", snap.chat_messages},
          {"chat_version", snap.chat_version},
          {"system_version", snap.system_version},
          {"ingest_format", snap.ingest_format},
          {"ingested_items", snap.ingested_items},
          {"compactions", std::move(compactions)},
          {"renders", snap.renders},
          {"last_render", std::move(last)},
          {"entries", std::move(entries)}};
}

nlohmann::json FiguresToJson(const RenderFigures& f) {
  return {{"n", f.record},
          {"format", LogFormatName(f.format)},
          {"budget_tokens", f.budget_tokens},
          {"tokens", f.tokens},
          {"breakdown", BreakdownToJson(f.breakdown)},
          {"bytes", f.bytes},
          {"prefix_bytes", f.prefix_bytes ? json(*f.prefix_bytes) : json()}};
}

}  // namespace ctxkit::session
