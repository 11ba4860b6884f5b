// Render records: what a render was built from (static refs and decisions,
// not its text), so it can be replayed byte for byte and compared.

#ifndef CTXKIT_SESSION_RENDER_RECORD_H_
#define CTXKIT_SESSION_RENDER_RECORD_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "ctxkit/session.h"
#include "ctxkit/status.h"
#include "session/render_layout.h"
#include "session/session_impl.h"

namespace ctxkit::session {

// The layout of the session's state for a render of `budget` tokens
// (render.cc), its tool messages and compactions in form `texts`;
// conflicts go to `result`.
Result<Layout> GatherLayout(SessionImpl& s, LogFormat format, uint64_t budget,
                            ToolTexts texts, RenderResult* result);

// Appends the record of a render (`layout`, emitted as `result`) to the
// session's record stream, right after the record that was last when it
// began (compare-and-set; retried when another writer appended first).
// Sets result->record, bytes and prefix_bytes (against the previous
// record's request: the one this instance last rendered or replayed, else
// replayed now).
Status RecordRender(SessionImpl& s, const Layout& layout,
                    const RenderOptions& options, RenderResult* result);

// Every record's figures, oldest first (Session::RenderHistory).
Result<std::vector<RenderFigures>> RenderHistory(SessionImpl& s);

// Record `n` rebuilt and emitted again.
Result<RenderResult> ReplayRender(SessionImpl& s, uint64_t n);

// What changed between records `from` and `to`.
Result<RenderDiff> DiffRenders(SessionImpl& s, uint64_t from, uint64_t to);

// Record `n` as stored (one JSON object, docs/sessions.md). NotFound when
// there is no such record, Corruption when it is not one this build reads.
Result<nlohmann::json> LoadRecord(SessionImpl& s, uint64_t n);

// The chat record `rec` names, decoded (empty without one).
Result<std::vector<ChatMessage>> RecordChat(View& view,
                                            const nlohmann::json& rec);

// Records written so far (the stream's latest version).
Result<uint64_t> RecordCount(SessionImpl& s);
// When the last render record was written (Unix ns); nullopt before the
// first.
Result<std::optional<int64_t>> LastRecordTime(SessionImpl& s);

// Fills the snapshot's render count and last render's figures (reads one
// record line).
Status FillRecordFigures(SessionImpl& s, SessionSnapshot* snap);

}  // namespace ctxkit::session

#endif  // CTXKIT_SESSION_RENDER_RECORD_H_
