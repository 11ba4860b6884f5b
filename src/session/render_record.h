// Render records: what a render was built from (static refs and decisions,
// not its text), so it can be replayed byte for byte and compared.

#ifndef CTXKIT_SESSION_RENDER_RECORD_H_
#define CTXKIT_SESSION_RENDER_RECORD_H_

#include <cstdint>

#include "ctxkit/session.h"
#include "ctxkit/status.h"
#include "session/render_layout.h"
#include "session/session_impl.h"

namespace ctxkit::session {

// The layout of the session's state (render.cc); conflicts go to `result`.
Result<Layout> GatherLayout(SessionImpl& s, bool anthropic,
                            RenderResult* result);

// Appends the record of a render (`layout`, emitted as `result`) to the
// session's record stream; returns its number.
Result<uint64_t> RecordRender(SessionImpl& s, const Layout& layout,
                              const RenderOptions& options,
                              const RenderResult& result);

// Record `n` rebuilt and emitted again.
Result<RenderResult> ReplayRender(SessionImpl& s, uint64_t n);

// What changed between records `from` and `to`.
Result<RenderDiff> DiffRenders(SessionImpl& s, uint64_t from, uint64_t to);

// Records written so far (the stream's latest version).
Result<uint64_t> RecordCount(SessionImpl& s);

// Fills the snapshot's render count and last render's figures (reads one
// record line).
Status FillRecordFigures(SessionImpl& s, SessionSnapshot* snap);

}  // namespace ctxkit::session

#endif  // CTXKIT_SESSION_RENDER_RECORD_H_
