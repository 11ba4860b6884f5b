// The JSON forms of captured tool outputs (pointers, loaded outputs, saves,
// selections), shared by the CLI's `tools` verbs and the MCP tool_output_*
// tools (docs/json.md). These are ctxkit's own snake_case forms; the
// context FILE format (camelCase, docs/tool-capture.md) is separate.

#ifndef CTXKIT_CAPTURE_JSON_FORMS_H_
#define CTXKIT_CAPTURE_JSON_FORMS_H_

#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>

#include "ctxkit/capture.h"
#include "ctxkit/store.h"

namespace ctxkit::capture {

// The toolcall object holding a saved output's content, as `view` sees
// it: the pointer itself for in-memory outputs, else "toolcall:ctx-<hash>"
// in the view's session scope for files named session-<sid>-<tool>-<hash>
// .json. nullopt when the view cannot see it (another session's output).
std::optional<Ref> OutputRef(View& view, std::string_view pointer);

// pointer, ref (null when not visible), tool_name, timestamp_ms,
// size_bytes, in_memory, query_id (null when none).
nlohmann::json PointerToJson(const ContextPointer& p,
                             const std::optional<Ref>& ref);

// pointer, ref, tool_name, args, timestamp (ISO 8601, as saved),
// session_id, query_id and task_id (null when none). Not the result: each
// face delivers it its own way.
nlohmann::json LoadedToJson(const LoadedContext& l, std::string_view pointer,
                            const std::optional<Ref>& ref);

// LoadedToJson plus "result": the result as saved (JSON), for the faces
// that deliver it inside the form (the CLI's --json, Python, Node).
nlohmann::json LoadedWithResultToJson(const LoadedContext& l,
                                      std::string_view pointer,
                                      const std::optional<Ref>& ref);

// pointer, ref, in_memory, size_bytes (of the result as saved JSON).
nlohmann::json SavedToJson(std::string_view pointer, uint64_t size_bytes,
                           const std::optional<Ref>& ref);

// method, candidates, selected (each a pointer form with "output": the
// loaded form plus "result"), notes.
nlohmann::json SelectionToJson(View& view, const Selection& selection,
                               uint64_t candidates);

}  // namespace ctxkit::capture

#endif  // CTXKIT_CAPTURE_JSON_FORMS_H_
