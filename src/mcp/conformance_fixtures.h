// The fixtures the MCP conformance suite (@modelcontextprotocol/
// conformance) reads from a server under test: test:// resources and
// test_* prompts. Served only with ServerOptions::conformance_fixtures;
// they are test data, never mixed into a normal server's listings.

#ifndef CTXKIT_MCP_CONFORMANCE_FIXTURES_H_
#define CTXKIT_MCP_CONFORMANCE_FIXTURES_H_

#include <optional>
#include <string_view>

#include "mcp/json_rpc.h"

namespace ctxkit::mcp {

// resources/list entries, resources/templates/list entries, prompts/list
// entries.
Json FixtureResources();
Json FixtureResourceTemplates();
Json FixturePrompts();

// True for every test:// URI (fixtures own that scheme).
bool IsFixtureUri(std::string_view uri);
// The "contents" array of a fixture resource; nullopt when none has that
// URI.
std::optional<Json> ReadFixtureResource(std::string_view uri);

// The prompts/get result of a fixture prompt; nullopt when `name` is not
// one. Missing arguments yield an RpcError in `error`.
std::optional<Json> GetFixturePrompt(std::string_view name,
                                     const Json& arguments, RpcError* error);

}  // namespace ctxkit::mcp

#endif  // CTXKIT_MCP_CONFORMANCE_FIXTURES_H_
