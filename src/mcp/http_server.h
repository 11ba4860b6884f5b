// The Streamable HTTP transport of the MCP server (`ctxkit serve`), per the
// 2025-06-18 and 2025-11-25 revisions of the specification:
//
//   POST   /mcp  one JSON-RPC message. A request gets 200 application/json
//                with the core's answer; a notification or a client's
//                response gets 202 and no body. `initialize` (sent without
//                Mcp-Session-Id) opens a session and returns its id in the
//                Mcp-Session-Id header; every later request must carry it
//                (400 without, 404 when unknown or terminated).
//   GET    /mcp  the session's event stream (text/event-stream): messages
//                the server sends on its own, e.g.
//                notifications/resources/updated. One per session; a new GET
//                replaces the old stream.
//   DELETE /mcp  terminates the session.
//   GET    /ui/, /api/...  the web inspector (http_inspector.h), unless
//                HttpOptions::ui is false.
//
// Before any of that: the Host header must name a loopback host on a
// loopback bind, an Origin header must be a loopback or allowed origin
// (403 otherwise: DNS-rebinding protection), the bearer token must match
// when one is set (401), and MCP-Protocol-Version, when present, must be a
// revision we speak (400). Bodies over max_request_bytes get 413. Every
// HTTP error carries a JSON-RPC error object (id null) as its body.
//
// Each session acts as its own agent and session (see http_session.h), so
// no client reads another client's scoped data; an operator may have all
// clients share one ctxkit session (HttpOptions::shared_session).
//
// Thread safety: requests are served from a pool of threads; Stop may be
// called from any thread.

#ifndef CTXKIT_MCP_HTTP_SERVER_H_
#define CTXKIT_MCP_HTTP_SERVER_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ctxkit/mcp.h"
#include "ctxkit/status.h"

namespace ctxkit::mcp {

struct HttpOptions {
  std::string bind = "127.0.0.1";
  int port = 8765;  // 0: a free port, see HttpServer::port().
  // When set, every request needs "Authorization: Bearer <token>". Required
  // for a bind other than loopback.
  std::string token;
  // Largest request body. The default takes a 64 MiB value even when JSON
  // escaping doubles it.
  uint64_t max_request_bytes = uint64_t{128} << 20;
  // Browser origins allowed besides loopback ones ("https://host:port").
  std::vector<std::string> allowed_origins;
  // Threads serving connections: `threads` always, more while every one is
  // busy, up to `max_connections` (each open connection — an event stream,
  // an idle keep-alive client, a client still sending its request — holds
  // one; beyond it, connections wait). See http_pool.h.
  size_t threads = 16;
  size_t max_connections = 1024;
  // Bodies being received, all requests together, may hold at most this
  // many bytes; a request that would pass it gets 503 (retry) instead of
  // growing the server's memory without bound.
  uint64_t max_inflight_bytes = uint64_t{512} << 20;
  // When set, every client acts in this ctxkit session (a scope id): they
  // share its session-scoped values and context, each still its own agent
  // (see http_session.h). Empty: each client its own session.
  std::string shared_session;
  size_t max_sessions = 1024;
  // A session id is good this long after its initialize, on every server
  // of the store (it is resumable, so idleness alone does not end it);
  // then 404 and the client initializes again.
  std::chrono::seconds session_max_age{7 * 24 * 3600};
  // A session nobody used for this long (and with no open stream) is
  // dropped when room is needed or a new session starts.
  std::chrono::seconds session_idle_timeout{3600};
  // An event stream with nothing to send writes an SSE comment this often,
  // so a vanished client is noticed and its thread freed.
  std::chrono::milliseconds keepalive_interval{15000};
  // Serve the web inspector (docs/inspector.md): its page under /ui/ and
  // its read-only JSON API under /api/, behind the same checks.
  bool ui = true;
};

class HttpServer {
 public:
  // Checks the options, binds and starts serving on a thread of its own.
  // InvalidArgument for a non-loopback bind without a token or a malformed
  // allowed origin; IoError when the address cannot be bound. `server`
  // must outlive the HttpServer.
  static Result<std::unique_ptr<HttpServer>> Start(Server* server,
                                                   HttpOptions options);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // The bound port (the chosen one when options.port was 0).
  int port() const;
  // "http://<bind>:<port>/mcp", IPv6 binds in brackets.
  std::string url() const;
  // "http://<bind>:<port>/ui/", the inspector's page; "" when not served.
  std::string ui_url() const;
  size_t session_count() const;

  // Ends open event streams, stops accepting and joins the serving
  // threads. Idempotent.
  void Stop();

 private:
  class Impl;
  explicit HttpServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace ctxkit::mcp

#endif  // CTXKIT_MCP_HTTP_SERVER_H_
