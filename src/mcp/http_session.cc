#include "mcp/http_session.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "core/encoding.h"
#include "core/hmac.h"
#include "core/mutex.h"
#include "core/sha256.h"
#include "core/status_macros.h"

namespace ctxkit::mcp {

namespace {

// One SSE event carrying one JSON-RPC message. A message text never holds a
// raw newline (JSON escapes them), but split defensively: each line of the
// payload must be its own "data:" field.
std::string FrameEvent(const std::string& message) {
  std::string out = "event: message\n";
  size_t start = 0;
  while (start <= message.size()) {
    size_t nl = message.find('\n', start);
    if (nl == std::string::npos) nl = message.size();
    out += "data: ";
    out.append(message, start, nl - start);
    out += '\n';
    start = nl + 1;
  }
  out += '\n';
  return out;
}

}  // namespace

void Outbox::Push(std::string message) {
  {
    core::MutexLock lock(&mu_);
    if (closed_) return;
    if (pending_.size() >= kMaxPending) pending_.pop_front();
    pending_.push_back(FrameEvent(message));
  }
  cv_.SignalAll();
}

uint64_t Outbox::OpenStream() {
  uint64_t g;
  {
    core::MutexLock lock(&mu_);
    g = ++generation_;
    stream_open_ = true;
  }
  cv_.SignalAll();
  return g;
}

void Outbox::EndStream(uint64_t generation) {
  core::MutexLock lock(&mu_);
  if (generation == generation_) stream_open_ = false;
}

bool Outbox::HasStream() {
  core::MutexLock lock(&mu_);
  return stream_open_ && !closed_;
}

Outbox::Wait Outbox::Take(uint64_t generation,
                          std::chrono::milliseconds timeout, std::string* out) {
  core::MutexLock lock(&mu_);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!closed_ && generation == generation_ && pending_.empty() &&
         cv_.WaitUntil(&mu_, deadline)) {
  }
  if (closed_ || generation != generation_) return Wait::kEnded;
  if (pending_.empty()) return Wait::kIdle;
  while (!pending_.empty()) {
    *out += pending_.front();
    pending_.pop_front();
  }
  return Wait::kMessages;
}

void Outbox::Unget(std::string framed) {
  core::MutexLock lock(&mu_);
  if (!closed_) pending_.push_front(std::move(framed));
}

void Outbox::Close() {
  {
    core::MutexLock lock(&mu_);
    closed_ = true;
    stream_open_ = false;
    pending_.clear();
  }
  cv_.SignalAll();
}

namespace {
constexpr size_t kRandomBytes = 16;
constexpr size_t kTimeBytes = 4;
constexpr size_t kTagBytes = 16;
constexpr size_t kBodyHex = 2 * (kRandomBytes + kTimeBytes);
constexpr int64_t kClockSkewSeconds = 300;
}  // namespace

std::string SessionIds::TagOf(std::string_view body_hex) const {
  return core::ToHex(mac_.Mac("mcp session id\n" + std::string(body_hex))
                         .substr(0, kTagBytes));
}

Result<std::string> SessionIds::New(int64_t now_unix_s) const {
  CTXKIT_ASSIGN_OR_RETURN(std::string random,
                          core::SecureRandomBytes(kRandomBytes));
  const auto issued = static_cast<uint32_t>(now_unix_s);
  const char time_bytes[kTimeBytes] = {
      static_cast<char>(issued >> 24), static_cast<char>(issued >> 16),
      static_cast<char>(issued >> 8), static_cast<char>(issued)};
  std::string body = core::ToHex(random) +
                     core::ToHex(std::string_view(time_bytes, kTimeBytes));
  return body + TagOf(body);
}

bool SessionIds::Issued(std::string_view id, int64_t now_unix_s) const {
  if (id.size() != kBodyHex + 2 * kTagBytes ||
      id.find_first_not_of("0123456789abcdef") != std::string_view::npos) {
    return false;
  }
  if (!core::ConstantTimeEquals(TagOf(id.substr(0, kBodyHex)),
                                id.substr(kBodyHex))) {
    return false;
  }
  std::optional<std::string> time_bytes =
      core::FromHex(id.substr(2 * kRandomBytes, 2 * kTimeBytes));
  if (!time_bytes) return false;
  uint32_t issued = 0;
  for (char c : *time_bytes) issued = issued << 8 | static_cast<uint8_t>(c);
  const int64_t age = now_unix_s - static_cast<int64_t>(issued);
  return age >= -kClockSkewSeconds && age <= max_age_.count();
}

namespace {
Result<View> OwnView(Store& store, const ClientBinding& binding) {
  return store.OpenView(binding.agent, binding.session);
}
}  // namespace

Status RecordTerminated(Store& store, const ClientBinding& binding) {
  CTXKIT_ASSIGN_OR_RETURN(View view, OwnView(store, binding));
  return view.Set(kTerminatedKey, "terminated", {.scope = "agent"}).status();
}

Result<bool> WasTerminated(Store& store, const ClientBinding& binding) {
  CTXKIT_ASSIGN_OR_RETURN(View view, OwnView(store, binding));
  Result<ObjectMeta> meta = view.Stat(kTerminatedKey, {.scope = "agent"});
  if (meta.ok()) return true;
  if (meta.status().code() == StatusCode::kNotFound) return false;
  return meta.status();
}

ClientBinding BindingFor(const std::string& session_id,
                         const std::string& shared_session) {
  std::string id = "mcp-" + core::ToHex(core::Sha256(session_id)).substr(0, 16);
  return ClientBinding{id, shared_session.empty() ? id : shared_session};
}

Result<std::shared_ptr<HttpSession>> SessionTable::Make(Server& server,
                                                        std::string id,
                                                        ClientBinding binding,
                                                        bool used) {
  auto session = std::make_shared<HttpSession>();
  session->id = std::move(id);
  session->used = used;
  session->binding = std::move(binding);
  session->outbox = std::make_shared<Outbox>();
  session->last_used = std::chrono::steady_clock::now();
  std::weak_ptr<Outbox> weak = session->outbox;
  Result<std::unique_ptr<Connection>> conn =
      server.Connect(session->binding, [weak](std::string message) {
        if (auto outbox = weak.lock()) outbox->Push(std::move(message));
      });
  if (!conn.ok()) return conn.status();
  session->connection = std::move(*conn);
  return session;
}

Result<std::shared_ptr<HttpSession>> SessionTable::Add(
    std::shared_ptr<HttpSession> session) {
  core::MutexLock lock(&mu_);
  if (removed_.contains(session->id)) {
    return Status::NotFound("the session was terminated");
  }
  if (auto it = sessions_.find(session->id); it != sessions_.end()) {
    return it->second;
  }
  session->last_used = std::chrono::steady_clock::now();
  DropExpiredLocked(session->last_used);
  if (sessions_.size() >= max_sessions_) {
    return Status::ResourceExhausted(
        "too many live MCP sessions (" + std::to_string(max_sessions_) +
        "); retry later, or close unused ones with DELETE");
  }
  sessions_[session->id] = session;
  return session;
}

void SessionTable::DropExpiredLocked(
    std::chrono::steady_clock::time_point now) {
  for (auto it = sessions_.begin(); it != sessions_.end();) {
    const HttpSession& s = *it->second;
    const auto timeout =
        s.used ? idle_timeout_ : std::min(idle_timeout_, kUnusedSessionTimeout);
    if (!s.outbox->HasStream() && now - s.last_used > timeout) {
      s.outbox->Close();
      it = sessions_.erase(it);
    } else {
      ++it;
    }
  }
}

std::shared_ptr<HttpSession> SessionTable::Find(const std::string& id) {
  core::MutexLock lock(&mu_);
  auto it = sessions_.find(id);
  if (it == sessions_.end()) return nullptr;
  it->second->last_used = std::chrono::steady_clock::now();
  it->second->used = true;
  return it->second;
}

bool SessionTable::Remove(const std::string& id) {
  std::shared_ptr<HttpSession> gone;
  {
    core::MutexLock lock(&mu_);
    if (removed_.insert(id).second) {
      removed_order_.push_back(id);
      if (removed_order_.size() > kRemembered) {
        removed_.erase(removed_order_.front());
        removed_order_.pop_front();
      }
    }
    auto it = sessions_.find(id);
    if (it == sessions_.end()) return false;
    gone = std::move(it->second);
    sessions_.erase(it);
  }
  gone->outbox->Close();
  return true;
}

void SessionTable::Drop(const std::string& id) {
  std::shared_ptr<HttpSession> gone;
  {
    core::MutexLock lock(&mu_);
    auto it = sessions_.find(id);
    if (it == sessions_.end()) return;
    gone = std::move(it->second);
    sessions_.erase(it);
  }
  gone->outbox->Close();
}

bool SessionTable::WasRemoved(const std::string& id) {
  core::MutexLock lock(&mu_);
  return removed_.contains(id);
}

void SessionTable::CloseAll() {
  core::MutexLock lock(&mu_);
  for (auto& [id, session] : sessions_) session->outbox->Close();
}

size_t SessionTable::size() {
  core::MutexLock lock(&mu_);
  return sessions_.size();
}

}  // namespace ctxkit::mcp
