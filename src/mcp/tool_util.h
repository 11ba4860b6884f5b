// Small helpers the tool definitions share: schema fragments, argument
// accessors (arguments are schema-checked first, so these only convert),
// content items and the lookup of a key-or-ref target.

#ifndef CTXKIT_MCP_TOOL_UTIL_H_
#define CTXKIT_MCP_TOOL_UTIL_H_

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ctxkit/ref.h"
#include "ctxkit/status.h"
#include "ctxkit/store.h"
#include "face/tool_schema.h"
#include "mcp/client_state.h"
#include "mcp/json_rpc.h"

namespace ctxkit::mcp {

// The schema builders every face's tools share (face/tool_schema.h).
using face::BoolProp;
using face::EnumProp;
using face::IntProp;
using face::ObjectSchema;
using face::StringListProp;
using face::StringProp;

// Property schemas used by many MCP tools.
Json KeyProp();
Json RefProp();
Json ScopeProp(std::string_view description);
// The description of a lookup's `scope` argument, for every tool that reads
// by key.
inline constexpr char kScopeLookup[] =
    "Which of your scopes to look in: global, agent (yours) or session "
    "(yours). Omit to look in session, then agent, then global.";
Json VersionProp();

std::string StrArg(const Json& args, const char* name,
                   std::string fallback = "");
uint64_t U64Arg(const Json& args, const char* name, uint64_t fallback);
int64_t I64Arg(const Json& args, const char* name, int64_t fallback);
bool BoolArg(const Json& args, const char* name, bool fallback);
std::vector<std::string> StrListArg(const Json& args, const char* name);

Json TextContent(std::string text);

// What a key-or-ref tool's arguments name: exactly one of "key" (looked up
// in "scope", at "version") or "ref" (a capability, in its wire form), as a
// Target (ctxkit/target.h). Touches no store. InvalidArgument when both or
// neither of key and ref are given, when a ref does not parse (the reason,
// in context "ref"), or when a ref comes with "scope" or "version" (a ref
// names its own).
Result<Target> ParseTarget(const Json& args);

// The one resolver of the tools: ParseTarget, then the target pinned with
// View::Pin. Returns a static ref to the version meant (the latest for key
// lookups without "version" and for dynamic refs).
Result<Ref> ResolveTarget(ClientState& c, const Json& args);

// The MIME type a value of `type` is served as (text content).
std::string MimeTypeFor(ValueType type);

}  // namespace ctxkit::mcp

#endif  // CTXKIT_MCP_TOOL_UTIL_H_
