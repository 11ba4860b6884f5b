// JSON-RPC messages from MCP clients: classification (the HTTP
// transport's SAX pass), the depth scan and the guarded parse never crash
// and agree with each other (src/mcp/http_message.h, src/text/json_parse.h).

#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "mcp/http_message.h"
#include "text/json_parse.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const ctxkit::mcp::MessageInfo info = ctxkit::mcp::ClassifyMessage(text);
  const int depth = ctxkit::text::JsonNestingDepth(text, 1 << 30);
  const bool too_deep = depth > ctxkit::mcp::kMaxJsonDepth;
  // The SAX pass and the bracket scan agree on depth for valid JSON.
  if (info.kind != ctxkit::mcp::MessageKind::kMalformed &&
      too_deep != (info.kind == ctxkit::mcp::MessageKind::kTooDeep)) {
    std::abort();
  }
  nlohmann::json doc = ctxkit::text::ParseJsonOrDiscarded(text);
  if (!doc.is_discarded()) {
    // A parsed document serializes (the recursion the depth cap bounds).
    (void)doc.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
  (void)ctxkit::mcp::JsonRpcError(-32600, "x", info.id);
  return 0;
}
