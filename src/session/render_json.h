// The JSON forms of a session's policy, render reports and render diffs,
// shared by the CLI's `session` verbs and the MCP session tools
// (docs/json.md). The request itself is not part of the render form: each
// face delivers it its own way (the CLI as "request", MCP as the text
// content).

#ifndef CTXKIT_SESSION_RENDER_JSON_H_
#define CTXKIT_SESSION_RENDER_JSON_H_

#include <nlohmann/json.hpp>
#include <string_view>

#include "ctxkit/session.h"
#include "session/session_state.h"  // PolicyToJson

namespace ctxkit::session {

// {ref, first_message, end_message, turns}.
nlohmann::json CompactionToJson(const CompactionInfo& c);

// session, messages_added, toolcalls_recorded, reset.
nlohmann::json IngestToJson(std::string_view session_id,
                            const IngestReport& report);

// {system, pinned, index, compactions, chat, active_outputs, placeholders}.
nlohmann::json BreakdownToJson(const RenderBreakdown& b);

// session, format, budget_tokens, tokens, breakdown, dropped ([{ref, key,
// version, tokens}]), conflicts ([{key, pinned_version, active_version}]),
// index_listed, index_total, collapsed (keys), compacted (a compaction or
// null), compacted_messages, record (0: not recorded), bytes, prefix_bytes
// (null when unknown).
nlohmann::json RenderToJson(std::string_view session_id, LogFormat format,
                            const RenderResult& render);

// session, from, to, entered, left, collapsed, compacted, tokens {from,
// to}, breakdown {from, to}.
nlohmann::json DiffToJson(std::string_view session_id, const RenderDiff& d);

// The `session show --json` form: session, policy, generation,
// chat_messages, chat_version, system_version, ingest_format,
// ingested_items, compactions, renders, last_render ({tokens,
// budget_tokens, breakdown}, null before the first), entries (pool entry
// forms).
nlohmann::json SnapshotToJson(const SessionSnapshot& snap);

// The form of a fork (Session::Fork): session (the new one), parent,
// record, chat_messages, ingest_format, ingested_items (0 and the parent's
// format when the record kept no cursor), compactions (how many), objects
// (pool entries).
nlohmann::json ForkToJson(std::string_view parent, uint64_t record,
                          const SessionSnapshot& child);

// One recorded render's figures: n, format, budget_tokens, tokens,
// breakdown, bytes, prefix_bytes (null when unknown).
nlohmann::json FiguresToJson(const RenderFigures& f);

}  // namespace ctxkit::session

#endif  // CTXKIT_SESSION_RENDER_JSON_H_
