// What one MCP client holds on the server: its binding (agent, session and
// the View they give), its protocol state, its subscriptions and the way to
// notify it. Shared by the Connection, the tools and the server's
// subscription watcher, which is why it is reference-counted.

#ifndef CTXKIT_MCP_CLIENT_STATE_H_
#define CTXKIT_MCP_CLIENT_STATE_H_

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "core/mutex.h"
#include "ctxkit/capture.h"
#include "ctxkit/mcp.h"
#include "ctxkit/notes.h"
#include "ctxkit/status.h"
#include "ctxkit/store.h"
#include "mcp/json_rpc.h"

namespace ctxkit::mcp {

// RFC 5424 severities as MCP names them, least severe first.
enum class LogLevel : int {
  kDebug = 0,
  kInfo,
  kNotice,
  kWarning,
  kError,
  kCritical,
  kAlert,
  kEmergency,
};
std::string_view LogLevelName(LogLevel level);
// InvalidArgument listing the names for anything else.
Result<LogLevel> ParseLogLevel(std::string_view name);

// The server's subscription watcher's wake-up: a client that subscribes
// tells it (so it may start listening for commits at once), and the server
// stops it. Shared with the clients, which may outlive their server.
class WatchSignal {
 public:
  // A client subscribed.
  void Subscribed() EXCLUDES(mu_);
  // Ends every Wait for good.
  void Stop() EXCLUDES(mu_);
  // Blocks until `deadline`, a Subscribed or Stop; false when stopped.
  // `subscribed` says whether a client subscribed since the last Wait.
  bool Wait(std::chrono::steady_clock::time_point deadline, bool* subscribed)
      EXCLUDES(mu_);
  bool stopped() EXCLUDES(mu_);

 private:
  core::Mutex mu_;
  core::CondVar cv_;
  bool stopped_ GUARDED_BY(mu_) = false;
  bool subscribed_ GUARDED_BY(mu_) = false;
};

class ClientState {
 public:
  ClientState(Store* store, std::string home, ServerOptions options,
              ClientBinding binding, View view, Notifier notify,
              std::shared_ptr<WatchSignal> watch);
  ClientState(const ClientState&) = delete;
  ClientState& operator=(const ClientState&) = delete;

  // Constant after construction.
  Store* const store;
  const std::string home;
  const ServerOptions options;
  const ClientBinding binding;
  View view;  // Thread-safe; bound to binding.agent / binding.session.
  const std::shared_ptr<WatchSignal> watch;  // Told of each subscription.

  // The tool-output capture and notebook of this client, opened on
  // first use (both are thread-safe once open).
  Result<ToolOutputCapture*> Capture() EXCLUDES(open_mu_);
  Result<Notebook*> Notes() EXCLUDES(open_mu_);

  // Sends a message unless the connection is closed. Never called with
  // `mu` held, so a transport may call back into the connection.
  void Notify(std::string message) EXCLUDES(mu, notify_mu_);
  // notifications/message when the client set a level and `level` is at or
  // above it.
  void Log(LogLevel level, std::string_view logger, const Json& data)
      EXCLUDES(mu, notify_mu_);
  // No notification is sent once this returns.
  void Close() EXCLUDES(notify_mu_);

  // Protocol state.
  core::Mutex mu;
  std::string negotiated_version GUARDED_BY(mu);
  bool initialized GUARDED_BY(mu) = false;
  // The level the client set with logging/setLevel; none until it does,
  // and no notifications/message is sent before (clients that never ask,
  // like the AI SDK's, refuse one).
  std::optional<LogLevel> log_level GUARDED_BY(mu);
  // Subscribed URIs, each with the version last reported (0: none yet).
  std::map<std::string, uint64_t> subscriptions GUARDED_BY(mu);

 private:
  core::Mutex open_mu_;  // Guards the two lazily opened helpers.
  std::unique_ptr<ToolOutputCapture> capture_ GUARDED_BY(open_mu_);
  std::unique_ptr<Notebook> notes_ GUARDED_BY(open_mu_);

  core::Mutex notify_mu_;  // Held while notifying, so Close waits for it.
  bool closed_ GUARDED_BY(notify_mu_) = false;
  Notifier notify_ GUARDED_BY(notify_mu_);
};

}  // namespace ctxkit::mcp

#endif  // CTXKIT_MCP_CLIENT_STATE_H_
