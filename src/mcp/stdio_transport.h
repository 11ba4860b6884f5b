// The stdio transport (`ctxkit mcp`): newline-delimited JSON-RPC messages
// on an input stream, one Connection, responses and notifications written
// to an output stream under one mutex so lines never interleave.

#ifndef CTXKIT_MCP_STDIO_TRANSPORT_H_
#define CTXKIT_MCP_STDIO_TRANSPORT_H_

#include <cstdio>

#include "ctxkit/mcp.h"
#include "ctxkit/status.h"

namespace ctxkit::mcp {

// The longest message line read; longer ones are answered with an
// invalid-request error and skipped, never buffered whole.
inline constexpr size_t kMaxStdioLineBytes = size_t{128} << 20;

// Serves one client until `in` reaches end of file (OK) or `out` fails
// (IoError). Blank lines are skipped and a trailing "\r" is dropped;
// messages are handled in order. Nothing but protocol messages is written
// to `out`. `in` is read through its descriptor (what the client has sent
// is handled at once), so nothing may have been read from it through the
// FILE before.
Status ServeStdio(Server& server, const ClientBinding& binding, std::FILE* in,
                  std::FILE* out, size_t max_line_bytes = kMaxStdioLineBytes);

}  // namespace ctxkit::mcp

#endif  // CTXKIT_MCP_STDIO_TRANSPORT_H_
