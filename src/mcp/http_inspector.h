// The web inspector's routes on the `ctxkit serve` HTTP server
// (docs/inspector.md): its page under /ui/ and its JSON API under /api/,
// GET only. The server's security screen (http_server.cc) runs first for
// every request; the page's files are exempt from the bearer token (a
// browser cannot send one when it opens a URL, and they hold no data),
// the API is not.

#ifndef CTXKIT_MCP_HTTP_INSPECTOR_H_
#define CTXKIT_MCP_HTTP_INSPECTOR_H_

#include <httplib.h>

#include <string_view>

#include "inspect/api.h"

namespace ctxkit::mcp {

// True for the paths of the page itself ("/", "/ui", "/ui/...").
bool IsInspectorPagePath(std::string_view path);

// Adds the routes to `http`, answering API requests with `api`, which must
// outlive `http`'s serving.
void AddInspectorRoutes(httplib::Server& http, inspect::Api* api);

}  // namespace ctxkit::mcp

#endif  // CTXKIT_MCP_HTTP_INSPECTOR_H_
