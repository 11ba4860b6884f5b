// What the HTTP transport must know about a POST body before handing it to
// the protocol core: is it well-formed JSON, one message object, a request,
// a notification or a response, and is it `initialize`. Found with a SAX
// pass that builds no document, so a 64 MiB `set` is not parsed into memory
// twice (the core parses it once more).

#ifndef CTXKIT_MCP_HTTP_MESSAGE_H_
#define CTXKIT_MCP_HTTP_MESSAGE_H_

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace ctxkit::mcp {

enum class MessageKind {
  kMalformed,     // Not JSON: answered with -32700.
  kNotAnObject,   // JSON, but not one object (batches were removed in
                  // 2025-06-18): answered with -32600.
  kTooDeep,       // Nested deeper than kMaxJsonDepth: -32600.
  kRequest,       // "method" and "id".
  kNotification,  // "method", no "id".
  kResponse,      // No "method": a client's answer ("result" or "error").
};

// Messages nested deeper than this are refused before a document is built
// of them (-32600), on every transport: nothing in MCP needs more, and it
// bounds every recursive walk.
inline constexpr int kMaxJsonDepth = 64;

// The Content-Type of every JSON body the HTTP server sends. "; charset=
// utf-8" is true (JSON is UTF-8) and, unlike bare "application/json", keeps
// cpp-httplib from compressing the body: it would pick Brotli at its
// slowest quality, seconds of CPU for a large resource.
inline constexpr char kJsonContentType[] = "application/json; charset=utf-8";

struct MessageInfo {
  MessageKind kind = MessageKind::kMalformed;
  std::string method;  // For requests and notifications.
  std::string error;   // For kMalformed: where parsing stopped.
  // The message's top-level "id" when it is a string or an integer (also
  // for kTooDeep, so the refusal answers the request it refuses); null
  // otherwise.
  nlohmann::json id;
};

// One SAX pass (iterative: any depth is safe to scan).
MessageInfo ClassifyMessage(std::string_view body);

// A JSON-RPC error object, for failures found before a message reaches the
// core (HTTP errors carry one as their body). `id`: the request's, when
// known.
std::string JsonRpcError(int code, std::string_view message,
                         const nlohmann::json& id = nullptr);

}  // namespace ctxkit::mcp

#endif  // CTXKIT_MCP_HTTP_MESSAGE_H_
