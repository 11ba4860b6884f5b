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
#include "mcp/http_message.h"

namespace ctxkit::mcp {

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
