// Tool schemas, built and checked in one place for every face that offers
// tools to a model (the MCP server's tools, the agent tools of
// ctxkit/agent_tools.h): builders of the JSON Schema fragments the tools
// use, and the check of a call's arguments against its schema, in C++,
// before a tool runs: the subset of JSON Schema those builders write (type,
// properties, required, additionalProperties: false, enum, minimum,
// maximum, minLength, maxLength, items, minItems, maxItems), and the
// reading of null as absent for optional arguments (CheckArguments).

#ifndef CTXKIT_FACE_TOOL_SCHEMA_H_
#define CTXKIT_FACE_TOOL_SCHEMA_H_

#include <cstdint>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "ctxkit/status.h"

namespace ctxkit::face {

using Json = nlohmann::json;

// {"type":"object","properties":...,"required":[...],
//  "additionalProperties":false}.
Json ObjectSchema(Json properties, std::initializer_list<const char*> required);

// Property schemas. max_length/min_length 0: no bound.
Json StringProp(std::string_view description, uint64_t min_length = 0,
                uint64_t max_length = 0);
Json IntProp(std::string_view description, int64_t minimum, int64_t maximum);
Json BoolProp(std::string_view description);
Json EnumProp(std::string_view description,
              std::initializer_list<const char*> values);
Json StringListProp(std::string_view description, uint64_t max_items);

// OK when `value` satisfies `schema`; otherwise InvalidArgument naming the
// field by path, e.g. "arguments.limit: must be at most 10000".
Status CheckSchema(const Json& schema, const Json& value,
                   const std::string& path = "arguments");

// CheckSchema for a tool call's arguments, after dropping every member
// that is null where the schema lists the property as optional and its
// schema does not admit null, at any depth: a model bound to a strict
// schema (OpenAI strict mode: every property required, optional ones
// nullable) sends null for an argument it means to leave out, and null
// then means absent. `args` is left without those members.
Status CheckArguments(const Json& schema, Json* args);

}  // namespace ctxkit::face

#endif  // CTXKIT_FACE_TOOL_SCHEMA_H_
