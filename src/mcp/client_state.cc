#include "mcp/client_state.h"

#include <array>
#include <string>
#include <utility>

#include "face/environment.h"

namespace ctxkit::mcp {

namespace {

constexpr std::array<std::string_view, 8> kLevelNames = {
    "debug", "info",     "notice", "warning",
    "error", "critical", "alert",  "emergency"};

}  // namespace

std::string_view LogLevelName(LogLevel level) {
  return kLevelNames[static_cast<size_t>(level)];
}

Result<LogLevel> ParseLogLevel(std::string_view name) {
  for (size_t i = 0; i < kLevelNames.size(); ++i) {
    if (kLevelNames[i] == name) return static_cast<LogLevel>(i);
  }
  return Status::InvalidArgument(
      "level must be one of debug, info, notice, warning, error, critical, "
      "alert, emergency");
}

void WatchSignal::Subscribed() {
  {
    core::MutexLock lock(&mu_);
    subscribed_ = true;
  }
  cv_.SignalAll();
}

void WatchSignal::Stop() {
  {
    core::MutexLock lock(&mu_);
    stopped_ = true;
  }
  cv_.SignalAll();
}

bool WatchSignal::Wait(std::chrono::steady_clock::time_point deadline,
                       bool* subscribed) {
  core::MutexLock lock(&mu_);
  while (!stopped_ && !subscribed_ && cv_.WaitUntil(&mu_, deadline)) {
  }
  *subscribed = subscribed_;
  subscribed_ = false;
  return !stopped_;
}

bool WatchSignal::stopped() {
  core::MutexLock lock(&mu_);
  return stopped_;
}

ClientState::ClientState(Store* store_in, std::string home_in,
                         ServerOptions options_in, ClientBinding binding_in,
                         View view_in, Notifier notify,
                         std::shared_ptr<WatchSignal> watch_in)
    : store(store_in),
      home(std::move(home_in)),
      options(std::move(options_in)),
      binding(std::move(binding_in)),
      view(std::move(view_in)),
      watch(std::move(watch_in)),
      notify_(std::move(notify)) {}

Result<ToolOutputCapture*> ClientState::Capture() {
  core::MutexLock lock(&open_mu_);
  if (capture_ == nullptr) {
    CaptureOptions o;
    if (options.capture_root.empty()) {
      Result<std::string> root = env::ToolOutputDir("", "");
      if (!root.ok()) return root.status();
      o.root = *root;
    } else {
      o.root = options.capture_root;
    }
    Result<std::unique_ptr<ToolOutputCapture>> cm =
        ToolOutputCapture::Open(view, o);
    if (!cm.ok()) return cm.status();
    capture_ = std::move(*cm);
  }
  return capture_.get();
}

Result<Notebook*> ClientState::Notes() {
  core::MutexLock lock(&open_mu_);
  if (notes_ == nullptr) {
    NotebookOptions o;
    if (options.notes_root.empty()) {
      Result<std::string> root = env::NotesRoot("", "");
      if (!root.ok()) return root.status();
      o.root = *root;
    } else {
      o.root = options.notes_root;
    }
    Result<std::unique_ptr<Notebook>> nb = Notebook::Open(view, o);
    if (!nb.ok()) return nb.status();
    notes_ = std::move(*nb);
  }
  return notes_.get();
}

void ClientState::Notify(std::string message) {
  core::MutexLock lock(&notify_mu_);
  if (closed_ || !notify_) return;
  notify_(std::move(message));
}

void ClientState::Log(LogLevel level, std::string_view logger,
                      const Json& data) {
  {
    core::MutexLock lock(&mu);
    if (negotiated_version.empty() || !log_level || level < *log_level) {
      return;
    }
  }
  Notify(NotificationMessage("notifications/message",
                             {{"level", std::string(LogLevelName(level))},
                              {"logger", std::string(logger)},
                              {"data", data}}));
}

void ClientState::Close() {
  core::MutexLock lock(&notify_mu_);
  closed_ = true;
}

}  // namespace ctxkit::mcp
