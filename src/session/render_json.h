// The JSON form of a session render's report, shared by the CLI's
// `session render` and the MCP session_render tool (docs/json.md). The
// request itself is not part of the form: each face delivers it its own
// way (the CLI as "request", MCP as the text content).

#ifndef CTXKIT_SESSION_RENDER_JSON_H_
#define CTXKIT_SESSION_RENDER_JSON_H_

#include <nlohmann/json.hpp>
#include <string_view>

#include "ctxkit/session.h"

namespace ctxkit::session {

// session, format, budget_tokens, tokens, dropped ([{ref, key, version,
// tokens}]), conflicts ([{key, pinned_version, active_version}]),
// index_listed, index_total.
nlohmann::json RenderToJson(std::string_view session_id, LogFormat format,
                            const RenderResult& render);

}  // namespace ctxkit::session

#endif  // CTXKIT_SESSION_RENDER_JSON_H_
