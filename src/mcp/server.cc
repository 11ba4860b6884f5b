// Server (include/ctxkit/mcp.h): what every client shares — the store and
// the subscription watcher, a thread that notices new versions of
// subscribed objects, whichever process wrote them, by polling.

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "core/mutex.h"
#include "core/status_macros.h"
#include "ctxkit/mcp.h"
#include "mcp/client_state.h"
#include "mcp/connection.h"
#include "mcp/extension.h"
#include "mcp/json_rpc.h"
#include "mcp/resources.h"

namespace ctxkit::mcp {

namespace {

class ServerImpl : public Server {
 public:
  ServerImpl(Store* store, std::string home, ServerOptions options)
      : store_(store), home_(std::move(home)), options_(std::move(options)) {
    poller_ = std::thread([this] { PollLoop(); });
  }

  ~ServerImpl() override {
    {
      core::MutexLock lock(&mu_);
      stop_ = true;
    }
    cv_.SignalAll();
    poller_.join();
  }

  Result<std::unique_ptr<Connection>> Connect(ClientBinding binding,
                                              Notifier notify) override {
    Status s = ValidateScopeId(binding.agent);
    if (!s.ok()) return s.WithContext("client agent id");
    s = ValidateScopeId(binding.session);
    if (!s.ok()) return s.WithContext("client session id");
    Result<View> view = store_->OpenView(binding.agent, binding.session);
    if (!view.ok()) return view.status();
    auto state = std::make_shared<ClientState>(
        store_, home_, options_, std::move(binding), std::move(*view),
        std::move(notify));
    {
      core::MutexLock lock(&mu_);
      clients_.erase(std::remove_if(clients_.begin(), clients_.end(),
                                    [](const std::weak_ptr<ClientState>& w) {
                                      return w.expired();
                                    }),
                     clients_.end());
      clients_.push_back(state);
    }
    return std::unique_ptr<Connection>(new ConnectionImpl(std::move(state)));
  }

 private:
  void PollLoop() EXCLUDES(mu_) {
    std::vector<std::shared_ptr<ClientState>> live;
    while (WaitToPoll(&live)) {
      for (const std::shared_ptr<ClientState>& c : live) PollClient(*c);
      live.clear();  // Drop the references before taking mu_ again.
    }
  }

  // Waits one poll interval (or until stopping); false when stopping, else
  // the clients still connected, in `live`.
  bool WaitToPoll(std::vector<std::shared_ptr<ClientState>>* live)
      EXCLUDES(mu_) {
    core::MutexLock lock(&mu_);
    const auto deadline =
        std::chrono::steady_clock::now() +
        std::chrono::milliseconds(options_.subscription_poll_ms);
    while (!stop_ && cv_.WaitUntil(&mu_, deadline)) {
    }
    if (stop_) return false;
    for (const std::weak_ptr<ClientState>& w : clients_) {
      if (auto s = w.lock()) live->push_back(std::move(s));
    }
    return true;
  }

  // Sends notifications/resources/updated for every subscribed URI whose
  // object has a new version (or was removed) since it was last reported.
  static void PollClient(ClientState& c) {
    std::vector<std::pair<std::string, uint64_t>> subs;
    {
      core::MutexLock lock(&c.mu);
      subs.assign(c.subscriptions.begin(), c.subscriptions.end());
    }
    for (const auto& [uri, seen] : subs) {
      std::optional<uint64_t> now = WatchedVersion(c, uri);
      if (!now || *now == seen) continue;
      {
        core::MutexLock lock(&c.mu);
        auto it = c.subscriptions.find(uri);
        if (it == c.subscriptions.end()) continue;  // Unsubscribed meanwhile.
        it->second = *now;
      }
      c.Notify(NotificationMessage("notifications/resources/updated",
                                   {{"uri", uri}}));
    }
  }

  Store* const store_;
  const std::string home_;
  const ServerOptions options_;

  core::Mutex mu_;
  core::CondVar cv_;
  bool stop_ GUARDED_BY(mu_) = false;
  std::vector<std::weak_ptr<ClientState>> clients_ GUARDED_BY(mu_);
  std::thread poller_;
};

}  // namespace

Result<std::unique_ptr<Server>> Server::Create(Store* store, std::string home,
                                               ServerOptions options) {
  if (store == nullptr) return Status::InvalidArgument("no store");
  if (options.result_token_limit < 16 ||
      options.result_token_limit > 10'000'000) {
    return Status::InvalidArgument(
        "result_token_limit must be 16-10,000,000 tokens");
  }
  if (options.subscription_poll_ms < 10 ||
      options.subscription_poll_ms > 60'000) {
    return Status::InvalidArgument("subscription_poll_ms must be 10-60,000");
  }
  if (options.max_resource_read_bytes == 0) {
    return Status::InvalidArgument("max_resource_read_bytes must be >= 1");
  }
  if (options.extension) {
    CTXKIT_RETURN_IF_ERROR(CheckExtension(*options.extension));
  }
  if (home.empty()) home = store->home();
  return std::unique_ptr<Server>(
      new ServerImpl(store, std::move(home), std::move(options)));
}

}  // namespace ctxkit::mcp
