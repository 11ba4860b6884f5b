// The Streamable HTTP transport's sessions: one per Mcp-Session-Id, each
// owning its protocol Connection and the outbox its GET event stream drains.
//
// A session id is 16 random bytes (getrandom(2)) and the second it
// was issued in (4 bytes), followed by 16 bytes of HMAC-SHA-256 over them,
// keyed by a key of the store (StoreInternals::KeyFor), as 72 hex digits. Every
// server sharing the store can check that it issued an id, so a client that
// reconnects with its id to another `ctxkit serve` of the store, or to this one
// after a restart, resumes its session; no one can forge one. Each session acts
// as its own agent and session scope, "mcp-" + 16 hex digits of SHA-256(session
// id): stable for the session on every server, and revealing nothing of the id
// itself when a ref carrying it is shown to others. A terminated session is
// recorded in its own agent scope (kTerminatedKey), so no server resumes it.

#ifndef CTXKIT_MCP_HTTP_SESSION_H_
#define CTXKIT_MCP_HTTP_SESSION_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>

#include "core/hmac.h"
#include "core/mutex.h"
#include "ctxkit/mcp.h"
#include "ctxkit/status.h"
#include "ctxkit/store.h"

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

// Issues and checks session ids (see above). An id carries the second it
// was issued in, under the MAC, and is good for `max_age` from then: a
// leaked id does not open its session for ever. Thread-safe.
class SessionIds {
 public:
  // `key`: any length; StoreInternals::KeyFor(store, "mcp session ids").
  SessionIds(std::string_view key, std::chrono::seconds max_age)
      : mac_(key), max_age_(max_age) {}

  // A fresh id issued at `now_unix_s`; Internal when the system has no
  // secure random bytes.
  Result<std::string> New(int64_t now_unix_s) const;
  // True when `id` is one New() under this key made, at most max_age
  // before `now_unix_s` (and not from the future, beyond 5 minutes of
  // clock difference between servers).
  bool Issued(std::string_view id, int64_t now_unix_s) const;

 private:
  std::string TagOf(std::string_view body_hex) const;

  const core::HmacSha256 mac_;
  const std::chrono::seconds max_age_;
};

// The key in a terminated session's agent scope (its own, even when
// clients share a ctxkit session) that records its end.
inline constexpr char kTerminatedKey[] = "ctxkit.mcp/terminated";

// Records that the session bound to `binding` was terminated.
Status RecordTerminated(Store& store, const ClientBinding& binding);
// True when it was (RecordTerminated, by any server of the store).
Result<bool> WasTerminated(Store& store, const ClientBinding& binding);

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

  // A session `id` connected to `server`, not yet in the table (so no
  // request finds it before it is ready). `used`: whether a request after
  // initialize named it.
  static Result<std::shared_ptr<HttpSession>> Make(Server& server,
                                                   std::string id,
                                                   ClientBinding binding,
                                                   bool used);

  // Adds `session` to the table, or returns the session of its id already
  // there (two requests resuming one session at once share the first).
  // NotFound when the id was terminated here (see WasRemoved). Sessions
  // without an open stream expire: idle_timeout after their last use, or
  // kUnusedSessionTimeout after initialize when never used. A live session
  // is never evicted for a new one: when the table is full of live
  // sessions, ResourceExhausted (so a client opening sessions in a loop
  // locks out only new sessions, and only until its own expire).
  Result<std::shared_ptr<HttpSession>> Add(std::shared_ptr<HttpSession> session)
      EXCLUDES(mu_);

  // The session, or nullptr when not in the table. Marks it used.
  std::shared_ptr<HttpSession> Find(const std::string& id) EXCLUDES(mu_);

  // Terminates a session (whether in the table or not: the id is
  // remembered, see WasRemoved); false when it was not in the table.
  bool Remove(const std::string& id) EXCLUDES(mu_);
  // Drops a session from the table without remembering its id (it never
  // became usable: a refused initialize).
  void Drop(const std::string& id) EXCLUDES(mu_);
  // True when Remove was called with `id` (the last kRemembered ones).
  bool WasRemoved(const std::string& id) EXCLUDES(mu_);
  static constexpr size_t kRemembered = 4096;

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
  std::set<std::string> removed_ GUARDED_BY(mu_);
  std::deque<std::string> removed_order_ GUARDED_BY(mu_);  // Oldest first.
};

// The agent and session id a session acts as: "mcp-" + 16 hex digits for
// both, or that agent in `shared_session` when it is not empty (the
// operator's choice: clients then share that ctxkit session).
ClientBinding BindingFor(const std::string& session_id,
                         const std::string& shared_session = "");

}  // namespace ctxkit::mcp

#endif  // CTXKIT_MCP_HTTP_SESSION_H_
