#include "mcp/json_rpc.h"

#include <optional>
#include <string>
#include <utility>

#include "text/json_write.h"

namespace ctxkit::mcp {

std::string Serialize(const Json& j) { return text::DumpJson(j); }

std::string ResultMessage(const Json& id, Json result) {
  Json msg = {{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
  return Serialize(msg);
}

std::string ErrorMessage(const Json& id, const RpcError& error) {
  Json msg = {{"jsonrpc", "2.0"},
              {"id", id},
              {"error", {{"code", error.code}, {"message", error.message}}}};
  return Serialize(msg);
}

std::string NotificationMessage(std::string_view method, Json params) {
  Json msg = {{"jsonrpc", "2.0"}, {"method", std::string(method)}};
  if (!params.is_null()) msg["params"] = std::move(params);
  return Serialize(msg);
}

std::optional<RpcError> ParseNamedCallParams(const Json& params,
                                             NamedCallParams* out) {
  auto n = params.find("name");
  if (n == params.end() || !n->is_string()) {
    return RpcError{kInvalidParams, "params.name: a string is required"};
  }
  if (auto a = params.find("arguments"); a != params.end() && !a->is_null()) {
    if (!a->is_object()) {
      return RpcError{kInvalidParams, "params.arguments must be an object"};
    }
    out->arguments = *a;
  }
  out->name = n->get_ref<const std::string&>();
  return std::nullopt;
}

RpcError DiscoverNotSupported() {
  return {kMethodNotFound,
          "method not found: server/discover (ctxkit speaks MCP 2025-11-25 "
          "and 2025-06-18: send initialize)"};
}

}  // namespace ctxkit::mcp
