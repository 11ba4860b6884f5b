// The checks `ctxkit serve` makes before a request reaches the protocol
// core: DNS-rebinding protection (Host and Origin), bearer tokens, and which
// bind addresses count as loopback. Pure functions, no I/O, so each rule is
// tested on its own (tests/mcp_http/http_security_test.cc).

#ifndef CTXKIT_MCP_HTTP_SECURITY_H_
#define CTXKIT_MCP_HTTP_SECURITY_H_

#include <string>
#include <string_view>
#include <vector>

namespace ctxkit::mcp {

// True for an address only this machine can reach: 127.0.0.0/8, ::1 and
// "localhost". `ctxkit serve` refuses any other bind without a token.
bool IsLoopbackBind(std::string_view address);

// The host of an HTTP authority ("host", "host:port", "[v6]", "[v6]:port"),
// lower-cased, IPv6 literals keeping their brackets. Empty when malformed.
std::string HostOfAuthority(std::string_view authority);

// True for localhost, 127.0.0.1 and [::1] (the host part only).
bool IsLoopbackHost(std::string_view host);

// Which browser origins and Host headers the server accepts. A browser page
// on another site can reach a loopback server through DNS rebinding; its
// requests carry that site's Origin, and its Host header names that site.
class OriginPolicy {
 public:
  // `allowed_origins`: extra origins ("https://app.example:8443"), matched
  // exactly after lower-casing and dropping one trailing slash.
  explicit OriginPolicy(std::vector<std::string> allowed_origins);

  // An Origin header value is acceptable when its host is a loopback name or
  // it is one of the allowed origins. "null" and malformed values are not.
  bool OriginAllowed(std::string_view origin) const;

  // A Host header is acceptable on a loopback bind when its host is a
  // loopback name or the host of an allowed origin.
  bool HostAllowed(std::string_view host_header) const;

 private:
  std::vector<std::string> origins_;  // Normalized.
  std::vector<std::string> hosts_;    // Their hosts.
};

// True when `authorization` is "Bearer <token>" (scheme case-insensitive)
// with exactly `token`. Compares SHA-256 digests in constant time, so neither
// the token's content nor its length leaks through timing.
bool BearerTokenMatches(std::string_view authorization, std::string_view token);

// True when a header value holds no control byte: none below 0x20 but a
// horizontal tab, and no DEL. A NUL (and the junk after it, which a reader
// stopping at the NUL would not see), a CR or an LF is never part of a
// value the server acts on.
bool HeaderValueIsClean(std::string_view value);

// What the raw request head (the request line and header lines as the
// client sent them, CRLFs included, up to and with the blank line) holds
// that cpp-httplib's parsed headers hide. httplib drops a header whose
// value is empty, skips a line not ending in CRLF, files "Name : v" under
// "Name " and drops a folded line, so a security header could be sent yet
// go unseen. Returns "" when the head ends with its blank line, every line
// ends in CRLF, the request line holds no control byte, every header line
// is "name: value" with a token name and a clean value (HeaderValueIsClean),
// and no Host, Origin, Authorization or Mcp-Session-Id header is empty;
// otherwise what is wrong, in words fit for a 400 answer.
std::string RequestHeadProblem(std::string_view head);

}  // namespace ctxkit::mcp

#endif  // CTXKIT_MCP_HTTP_SECURITY_H_
