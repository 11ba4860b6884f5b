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
#include "store/store_internals.h"

namespace ctxkit::mcp {

namespace {

class ServerImpl : public Server {
 public:
  ServerImpl(Store* store, std::string home, ServerOptions options)
      : store_(store), home_(std::move(home)), options_(std::move(options)) {
    poller_ = std::thread([this] { PollLoop(); });
  }

  ~ServerImpl() override {
    watch_->Stop();
    {
      core::MutexLock lock(&mu_);
      if (listener_ != nullptr) listener_->Interrupt();
    }
    poller_.join();
  }

  Store* store() const override { return store_; }
  const ServerOptions& options() const override { return options_; }

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
        std::move(notify), watch_);
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

  // Waits one poll interval, less when the store's engine says another
  // process or machine committed (a CommitListener, opened when a client
  // first subscribes), or until stopping; false when stopping, else the
  // clients still connected, in `live`. The interval stays the backstop:
  // the listener is only a wake-up, and this server's own writes give none.
  bool WaitToPoll(std::vector<std::shared_ptr<ClientState>>* live)
      EXCLUDES(mu_) {
    using Clock = std::chrono::steady_clock;
    const std::chrono::milliseconds interval(options_.subscription_poll_ms);
    storage::CommitListener* listener = nullptr;
    {
      core::MutexLock lock(&mu_);
      listener = listener_.get();
    }
    // A listener whose connection failed waits on the interval instead.
    Result<bool> woke = false;
    if (listener != nullptr) woke = listener->Wait(interval);
    bool subscribed = false;
    if (listener != nullptr && woke.ok() && *woke) {
      // Commits may come by the thousand a second: one poll per kMinWakeGap
      // at most.
      const Clock::time_point earliest = last_poll_ + kMinWakeGap;
      if (Clock::now() < earliest && !watch_->Wait(earliest, &subscribed)) {
        return false;
      }
    }
    const Clock::time_point deadline = Clock::now() + interval;
    while (listener == nullptr || !woke.ok()) {
      if (!watch_->Wait(deadline, &subscribed)) return false;
      // A first subscription opens the listener before the interval ends.
      if (!subscribed || listener != nullptr) break;
      if (OpenListener()) break;
    }
    if (watch_->stopped()) return false;
    {
      core::MutexLock lock(&mu_);
      for (const std::weak_ptr<ClientState>& w : clients_) {
        if (auto s = w.lock()) live->push_back(std::move(s));
      }
    }
    last_poll_ = Clock::now();
    // A listener that could not be opened is tried again (OpenListener
    // spaces the attempts).
    if (listener == nullptr && AnySubscribed(*live)) OpenListener();
    return true;
  }

  static bool AnySubscribed(
      const std::vector<std::shared_ptr<ClientState>>& clients) {
    for (const std::shared_ptr<ClientState>& c : clients) {
      core::MutexLock lock(&c->mu);
      if (!c->subscriptions.empty()) return true;
    }
    return false;
  }

  // Opens the commit listener unless there is one, the engine has none, or
  // the last attempt failed less than kListenRetry ago; true when there is
  // one.
  bool OpenListener() EXCLUDES(mu_) {
    const auto now = std::chrono::steady_clock::now();
    {
      core::MutexLock lock(&mu_);
      if (listener_ != nullptr) return true;
      if (no_listener_ || now < listen_retry_at_) return false;
      listen_retry_at_ = now + kListenRetry;
    }
    Result<std::unique_ptr<storage::CommitListener>> opened =
        StoreInternals::ListenForCommits(*store_);
    core::MutexLock lock(&mu_);
    if (!opened.ok()) return false;  // Unreachable now: polling meanwhile.
    if (*opened == nullptr) {        // The engine has no wake-ups.
      no_listener_ = true;
      return false;
    }
    listener_ = std::move(*opened);
    if (watch_->stopped()) listener_->Interrupt();
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

  const std::shared_ptr<WatchSignal> watch_ = std::make_shared<WatchSignal>();
  core::Mutex mu_;
  std::vector<std::weak_ptr<ClientState>> clients_ GUARDED_BY(mu_);
  // Set once by the poller (which alone waits on it); freed after it ends.
  std::unique_ptr<storage::CommitListener> listener_ GUARDED_BY(mu_);
  bool no_listener_ GUARDED_BY(mu_) = false;  // The engine has none.
  std::chrono::steady_clock::time_point listen_retry_at_ GUARDED_BY(mu_);
  // When the poller last polled (its thread alone uses it).
  std::chrono::steady_clock::time_point last_poll_;
  static constexpr std::chrono::milliseconds kMinWakeGap{10};
  static constexpr std::chrono::seconds kListenRetry{30};
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
