// The JSON forms of notes (header, search hit, a written note), shared by
// the CLI's `notes` verbs and the MCP notes_* tools (docs/json.md). The
// note FILE format (YAML frontmatter, docs/notes.md) is separate.

#ifndef CTXKIT_NOTES_JSON_FORMS_H_
#define CTXKIT_NOTES_JSON_FORMS_H_

#include <nlohmann/json.hpp>
#include <string_view>
#include <vector>

#include "ctxkit/notes.h"
#include "ctxkit/store.h"

namespace ctxkit::notes {

// agent, session_id ("" when none), timestamp, type, tags, links.
nlohmann::json NoteHeaderToJson(const NoteHeader& header);

// path, file, ref (null when the note has no object), score, snippet, and
// the header's fields.
nlohmann::json NoteHitToJson(const NoteHit& hit);

// A note just written: path, file, key ("note:<path>"), ref (static, to
// the version written; null when the path is too long to be a key).
nlohmann::json NoteWrittenToJson(View& view, const Notebook& book,
                                 std::string_view rel);

// One note as read: path, file, frontmatter (the header form), body,
// problems.
nlohmann::json NoteToJson(const Note& note);

// directories_listed, files_checked, notes_indexed, notes_removed,
// notes_total.
nlohmann::json ScanStatsToJson(const ScanStats& stats);

// applied, expired ([{path, age_seconds}]), kept.
nlohmann::json GcReportToJson(const GcReport& report);

// The execution log's entries, oldest first: each the object its line in
// the log holds (timestamp, agent, sessionId, command, status, exitCode,
// durationMs, input, output, meta).
nlohmann::json ExecutionLogToJson(
    const std::vector<ExecutionLogEntry>& entries);

}  // namespace ctxkit::notes

#endif  // CTXKIT_NOTES_JSON_FORMS_H_
