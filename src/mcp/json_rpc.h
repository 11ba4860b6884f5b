// JSON-RPC 2.0 message texts for the MCP core: error codes, response and
// notification builders. Every text is serialized with invalid UTF-8
// replaced (U+FFFD), never thrown on: values and keys the server echoes may
// come from anywhere.

#ifndef CTXKIT_MCP_JSON_RPC_H_
#define CTXKIT_MCP_JSON_RPC_H_

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace ctxkit::mcp {

using Json = nlohmann::json;

// The JSON-RPC 2.0 error codes the server answers with.
enum RpcCode : int {
  kParseError = -32700,
  kInvalidRequest = -32600,
  kMethodNotFound = -32601,
  kInvalidParams = -32602,
  kInternalError = -32603,
};

// A failed request: its code and a message meant for a human or an LLM.
struct RpcError {
  int code = kInternalError;
  std::string message;
};

// What a method handler returns: a result, or an error.
struct RpcOutcome {
  Json result;
  std::optional<RpcError> error;

  static RpcOutcome Ok(Json result) { return {std::move(result), {}}; }
  static RpcOutcome Fail(int code, std::string message) {
    return {Json(), RpcError{code, std::move(message)}};
  }
};

// One line of JSON (no raw newline can appear: strings escape them).
std::string Serialize(const Json& j);

std::string ResultMessage(const Json& id, Json result);
std::string ErrorMessage(const Json& id, const RpcError& error);

// The answer to server/discover, the probe of protocol 2026-07-28 clients,
// which ctxkit does not speak: method not found, the signal on which they
// fall back to initialize (over stdio and HTTP alike).
inline constexpr char kDiscoverMethod[] = "server/discover";
RpcError DiscoverNotSupported();
std::string NotificationMessage(std::string_view method, Json params);

// The params of tools/call and prompts/get, which MCP shapes alike:
// {"name": string, "arguments"?: object}.
struct NamedCallParams {
  std::string name;
  Json arguments = Json::object();  // {} when absent or null.
};

// Reads `params` into `out`. Both methods reject malformed params with the
// same kInvalidParams errors; this returns that error, or nothing when
// `params` is well formed.
std::optional<RpcError> ParseNamedCallParams(const Json& params,
                                             NamedCallParams* out);

}  // namespace ctxkit::mcp

#endif  // CTXKIT_MCP_JSON_RPC_H_
