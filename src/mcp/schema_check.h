// Checks tool arguments against the tool's inputSchema, in C++, before a
// tool runs: the subset of JSON Schema the tool schemas use (type,
// properties, required, additionalProperties: false, enum, minimum,
// maximum, minLength, maxLength, items, minItems, maxItems).

#ifndef CTXKIT_MCP_SCHEMA_CHECK_H_
#define CTXKIT_MCP_SCHEMA_CHECK_H_

#include <string>

#include "ctxkit/status.h"
#include "mcp/json_rpc.h"

namespace ctxkit::mcp {

// OK when `value` satisfies `schema`; otherwise InvalidArgument naming the
// field by path, e.g. "arguments.limit: must be at most 10000".
Status CheckSchema(const Json& schema, const Json& value,
                   const std::string& path = "arguments");

}  // namespace ctxkit::mcp

#endif  // CTXKIT_MCP_SCHEMA_CHECK_H_
