#include "mcp/http_security.h"

#include <arpa/inet.h>

#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/hmac.h"
#include "core/sha256.h"

namespace ctxkit::mcp {

namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

// "scheme://authority" with nothing after but an optional "/": the shape
// browsers send. Returns the normalized form, or "" when malformed.
std::string NormalizeOrigin(std::string_view origin) {
  std::string o = Lower(origin);
  if (!o.empty() && o.back() == '/') o.pop_back();
  size_t sep = o.find("://");
  if (sep == std::string::npos || sep == 0) return "";
  std::string_view scheme(o.data(), sep);
  if (scheme != "http" && scheme != "https") return "";
  std::string_view authority = std::string_view(o).substr(sep + 3);
  if (authority.find('/') != std::string_view::npos ||
      HostOfAuthority(authority).empty()) {
    return "";
  }
  return o;
}

std::string_view AuthorityOfOrigin(std::string_view normalized) {
  return normalized.substr(normalized.find("://") + 3);
}

bool IsControl(char c) {
  const auto u = static_cast<unsigned char>(c);
  return u < 0x20 || u == 0x7f;
}

// RFC 9110's tchar: what a header name is made of.
bool IsTokenChar(char c) {
  const auto u = static_cast<unsigned char>(c);
  return std::isalnum(u) != 0 ||
         std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

std::string_view TrimSpaceAndTab(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) {
    s.remove_suffix(1);
  }
  return s;
}

// The headers whose absence the server acts on (a default, "no origin"):
// present but empty, they must not pass for absent.
bool MustNotBeEmpty(std::string_view name) {
  const std::string n = Lower(name);
  return n == "host" || n == "origin" || n == "authorization" ||
         n == "mcp-session-id";
}

// One header line without its CRLF; "" when well formed.
std::string HeaderLineProblem(std::string_view line) {
  const size_t colon = line.find(':');
  if (colon == std::string_view::npos || colon == 0) {
    return "a header line is not 'name: value'";
  }
  const std::string_view name = line.substr(0, colon);
  if (!std::all_of(name.begin(), name.end(), IsTokenChar)) {
    return "a header name holds a space or another byte not allowed in a "
           "name (no folded lines, no space before the colon)";
  }
  const std::string shown(name.substr(0, 64));
  const std::string_view value = TrimSpaceAndTab(line.substr(colon + 1));
  if (!HeaderValueIsClean(value)) {
    return "header " + shown + " holds a control byte";
  }
  if (value.empty() && MustNotBeEmpty(name)) {
    return "header " + shown + " is empty";
  }
  return "";
}

}  // namespace

bool HeaderValueIsClean(std::string_view value) {
  return std::none_of(value.begin(), value.end(),
                      [](char c) { return c != '\t' && IsControl(c); });
}

std::string RequestHeadProblem(std::string_view head) {
  bool request_line = true;
  size_t at = 0;
  while (at < head.size()) {
    const size_t lf = head.find('\n', at);
    if (lf == std::string_view::npos) break;
    std::string_view line = head.substr(at, lf - at);
    at = lf + 1;
    if (line.empty() || line.back() != '\r') {
      return "a line of the request head does not end in CRLF";
    }
    line.remove_suffix(1);
    if (request_line) {
      if (std::any_of(line.begin(), line.end(), IsControl)) {
        return "the request line holds a control byte";
      }
      request_line = false;
      continue;
    }
    if (line.empty()) return "";  // The blank line: the head is whole.
    std::string problem = HeaderLineProblem(line);
    if (!problem.empty()) return problem;
  }
  return "the request head is cut short";
}

bool IsLoopbackBind(std::string_view address) {
  std::string a = Lower(address);
  if (a == "localhost" || a == "::1" || a == "[::1]") return true;
  in_addr v4{};
  if (inet_pton(AF_INET, a.c_str(), &v4) == 1) {
    return (ntohl(v4.s_addr) >> 24) == 127;
  }
  return false;
}

std::string HostOfAuthority(std::string_view authority) {
  if (authority.empty()) return "";
  // Userinfo ("user@host") has no place in an Origin or Host header.
  if (authority.find('@') != std::string_view::npos) return "";
  std::string_view host = authority;
  std::string_view port;
  bool has_port = false;
  if (authority.front() == '[') {
    size_t close = authority.find(']');
    if (close == std::string_view::npos) return "";
    host = authority.substr(0, close + 1);
    std::string_view rest = authority.substr(close + 1);
    if (!rest.empty()) {
      if (rest.front() != ':') return "";
      has_port = true;
      port = rest.substr(1);
    }
  } else {
    size_t colon = authority.find(':');
    if (colon != std::string_view::npos) {
      host = authority.substr(0, colon);
      has_port = true;
      port = authority.substr(colon + 1);
    }
  }
  if (has_port && (port.empty() || port.size() > 5 ||
                   !std::all_of(port.begin(), port.end(), [](char c) {
                     return std::isdigit(static_cast<unsigned char>(c));
                   }))) {
    return "";
  }
  if (host.empty() || host.size() > 255) return "";
  for (char c : host) {
    unsigned char u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u >= 0x7f || c == '/' || c == '\\') return "";
  }
  return Lower(host);
}

bool IsLoopbackHost(std::string_view host) {
  std::string h = Lower(host);
  return h == "localhost" || h == "127.0.0.1" || h == "[::1]";
}

OriginPolicy::OriginPolicy(std::vector<std::string> allowed_origins) {
  for (const std::string& o : allowed_origins) {
    std::string n = NormalizeOrigin(o);
    if (n.empty()) continue;  // The CLI rejects these before we get here.
    hosts_.push_back(HostOfAuthority(AuthorityOfOrigin(n)));
    origins_.push_back(std::move(n));
  }
}

bool OriginPolicy::OriginAllowed(std::string_view origin) const {
  std::string n = NormalizeOrigin(origin);
  if (n.empty()) return false;
  if (IsLoopbackHost(HostOfAuthority(AuthorityOfOrigin(n)))) return true;
  return std::find(origins_.begin(), origins_.end(), n) != origins_.end();
}

bool OriginPolicy::HostAllowed(std::string_view host_header) const {
  std::string host = HostOfAuthority(host_header);
  if (host.empty()) return false;
  if (IsLoopbackHost(host)) return true;
  return std::find(hosts_.begin(), hosts_.end(), host) != hosts_.end();
}

bool BearerTokenMatches(std::string_view authorization,
                        std::string_view token) {
  if (token.empty()) return false;
  constexpr std::string_view kScheme = "bearer ";
  if (authorization.size() <= kScheme.size() ||
      Lower(authorization.substr(0, kScheme.size())) != kScheme) {
    return false;
  }
  std::string_view presented = authorization.substr(kScheme.size());
  while (!presented.empty() && presented.front() == ' ') {
    presented.remove_prefix(1);
  }
  while (!presented.empty() && presented.back() == ' ') {
    presented.remove_suffix(1);
  }
  // A token is visible ASCII (RFC 6750): anything else (a NUL and what
  // follows it, a tab, a second token) is not the token.
  for (char c : presented) {
    const auto u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u >= 0x7f) return false;
  }
  std::string a = core::Sha256(presented);
  std::string b = core::Sha256(token);
  return core::ConstantTimeEquals(a, b);
}

}  // namespace ctxkit::mcp
