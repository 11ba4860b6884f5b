// One client's JSON-RPC endpoint (include/ctxkit/mcp.h: Connection):
// message validation, the lifecycle, and the dispatch of each method to
// the tools, resources and prompts modules.

#ifndef CTXKIT_MCP_CONNECTION_H_
#define CTXKIT_MCP_CONNECTION_H_

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "ctxkit/mcp.h"
#include "mcp/client_state.h"

namespace ctxkit::mcp {

// Messages nested deeper than this are refused before they are parsed
// (-32600): nothing in MCP needs more, and it bounds every recursive walk.
inline constexpr int kMaxJsonDepth = 64;

class ConnectionImpl : public Connection {
 public:
  explicit ConnectionImpl(std::shared_ptr<ClientState> state)
      : state_(std::move(state)) {}
  ~ConnectionImpl() override { state_->Close(); }

  std::optional<std::string> Handle(std::string_view message) override;
  std::string negotiated_version() const override;

 private:
  std::shared_ptr<ClientState> state_;
};

}  // namespace ctxkit::mcp

#endif  // CTXKIT_MCP_CONNECTION_H_
