// cpp-httplib's connection loop, taken over so each request's head is seen
// as the client sent it.
//
// httplib parses headers lossily and hands its handlers only the result: it
// drops a header whose value is empty, skips a line not ending in CRLF,
// files "Name : v" under "Name " and %-decodes values. A security header
// could be sent and go unseen: an empty Origin passed for a request with
// none. HeadKeepingServer reads every connection through a stream that
// keeps the bytes of each request head, up to and with its blank line; the
// server's handlers reach them through CurrentRequestHead() on the thread
// that serves the request (httplib calls every handler of a request on
// that thread, before any of its body is read).
//
// The loop does what httplib 0.11's does (Server::process_and_close_socket
// and detail::SocketStream, which its split header does not declare): as
// many requests per connection as the keep-alive count allows while the
// next one arrives within the keep-alive timeout, buffered reads and
// writes each bounded by the server's timeouts, a write refused once the
// peer has closed, a stop noticed between requests.
//
// Thread safety: as httplib::Server.

#ifndef CTXKIT_MCP_HTTP_CONNECTION_H_
#define CTXKIT_MCP_HTTP_CONNECTION_H_

#include <httplib.h>

#include <cstddef>
#include <string>

namespace ctxkit::mcp {

// The raw head of one request.
struct RequestHead {
  // Request line and header lines, CRLFs included, up to and with the
  // blank line; a prefix of them while incomplete.
  std::string bytes;
  bool complete = false;   // The blank line was read.
  bool too_large = false;  // Over kMaxBytes: what follows was not kept.

  static constexpr size_t kMaxBytes = 1 << 20;

  // Keeps what the server read, until the head is complete.
  void Append(const char* data, size_t n);
};

// The head of the request the calling thread is serving, or nullptr when
// it serves none (not a HeadKeepingServer's handler).
const RequestHead* CurrentRequestHead();

class HeadKeepingServer : public httplib::Server {
 private:
  bool process_and_close_socket(socket_t sock) override;
};

}  // namespace ctxkit::mcp

#endif  // CTXKIT_MCP_HTTP_CONNECTION_H_
