// The Streamable HTTP transport's sessions: one per Mcp-Session-Id, each
// owning its protocol Connection and the outbox its GET event stream drains.
//
// Session ids are 128 random bits (OpenSSL RAND_bytes) as 32 hex digits.
// Each session acts as its own agent and session scope, "mcp-" + 16 hex
// digits of SHA-256(session id): stable for the session, and revealing
// nothing of the id itself when a ref carrying it is shown to others.

#ifndef CTXKIT_MCP_HTTP_SESSION_H_
#define CTXKIT_MCP_HTTP_SESSION_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>

#include "core/mutex.h"
#include "ctxkit/mcp.h"
#include "ctxkit/status.h"

namespace ctxkit::mcp {

// Server-to-client messages waiting for the session's GET stream. The
// Notifier given to the core only holds this, never the session, so the
// session (which owns the Connection, which owns the Notifier) is freed.
class Outbox {
 public:
  // Messages kept while no stream is open; older ones are dropped first
  // (the specification lets a server drop messages no stream can take).
  static constexpr size_t kMaxPending = 1024;

  void Push(std::string message) EXCLUDES(mu_);

  // Starts a new stream and returns its generation; an older stream still
  // open sees that it was replaced and ends (a reconnecting client's new
  // GET must not wait for the server to notice the old one died).
  uint64_t OpenStream() EXCLUDES(mu_);
  // Ends stream `generation` if it is still the current one.
  void EndStream(uint64_t generation) EXCLUDES(mu_);
  bool HasStream() EXCLUDES(mu_);

  enum class Wait { kMessages, kIdle, kEnded };
  // Blocks up to `timeout` for messages for stream `generation`. kMessages
  // moves them into `out` (SSE-framed); kEnded when the stream was replaced
  // or the outbox closed; kIdle after the timeout.
  Wait Take(uint64_t generation, std::chrono::milliseconds timeout,
            std::string* out) EXCLUDES(mu_);
  // Puts SSE-framed text back at the head after a failed write.
  void Unget(std::string framed) EXCLUDES(mu_);

  // Ends every stream for good (session deleted or server stopping).
  void Close() EXCLUDES(mu_);

 private:
  core::Mutex mu_;
  core::CondVar cv_;
  std::deque<std::string> pending_ GUARDED_BY(mu_);  // SSE-framed events.
  uint64_t generation_ GUARDED_BY(mu_) = 0;
  bool stream_open_ GUARDED_BY(mu_) = false;
  bool closed_ GUARDED_BY(mu_) = false;
};

struct HttpSession {
  std::string id;
  ClientBinding binding;
  std::shared_ptr<Outbox> outbox;
  std::unique_ptr<Connection> connection;
  std::chrono::steady_clock::time_point last_used;
  // False until a request after initialize names the session.
  bool used = false;
};

// How long a session that was initialized but never used is kept.
inline constexpr std::chrono::seconds kUnusedSessionTimeout{60};

// The live sessions. Thread-safe.
class SessionTable {
 public:
  SessionTable(size_t max_sessions, std::chrono::seconds idle_timeout)
      : max_sessions_(max_sessions), idle_timeout_(idle_timeout) {}

  // Creates a session with a fresh id and connects it to `server`. Sessions
  // without an open stream expire: idle_timeout after their last use, or
  // kUnusedSessionTimeout after initialize when never used. A live session
  // is never evicted for a new one: when the table is full of live
  // sessions, ResourceExhausted (so a client opening sessions in a loop
  // locks out only new sessions, and only until its own expire).
  Result<std::shared_ptr<HttpSession>> Create(Server& server) EXCLUDES(mu_);

  // The session, or nullptr when unknown or terminated. Marks it used.
  std::shared_ptr<HttpSession> Find(const std::string& id) EXCLUDES(mu_);

  // Terminates a session; false when unknown.
  bool Remove(const std::string& id) EXCLUDES(mu_);

  // Closes every session's outbox so open streams end (server stopping).
  void CloseAll() EXCLUDES(mu_);

  size_t size() EXCLUDES(mu_);

 private:
  // Drops the expired sessions (see Create).
  void DropExpiredLocked(std::chrono::steady_clock::time_point now)
      REQUIRES(mu_);

  const size_t max_sessions_;
  const std::chrono::seconds idle_timeout_;
  core::Mutex mu_;
  std::map<std::string, std::shared_ptr<HttpSession>> sessions_ GUARDED_BY(mu_);
};

// 32 lowercase hex digits from a cryptographically secure generator.
Result<std::string> NewSessionId();

// The agent and session id a session acts as ("mcp-" + 16 hex digits).
ClientBinding BindingFor(const std::string& session_id);

}  // namespace ctxkit::mcp

#endif  // CTXKIT_MCP_HTTP_SESSION_H_
