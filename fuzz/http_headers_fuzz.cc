// The HTTP server's checks on request headers: Host and Origin parsing,
// bearer tokens and the raw request head never crash; a token with anything
// but visible ASCII never matches; a header value with a control byte is
// never clean; a head that passes has no control byte before its blank
// line (but tabs), no line without CRLF and no empty Origin
// (src/mcp/http_security.h).

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "mcp/http_security.h"

namespace {

bool IsControl(char c) {
  const auto u = static_cast<unsigned char>(c);
  return u < 0x20 || u == 0x7f;
}

// What RequestHeadProblem promises of a head it passes, checked without
// its code: the head up to its first blank line holds no control byte but
// tabs and CRLFs, every LF ends a CRLF, and no line is an empty Origin.
void CheckPassedHead(std::string_view text) {
  const size_t end = text.find("\r\n\r\n");
  if (end == std::string_view::npos) std::abort();
  const std::string_view head = text.substr(0, end + 2);
  size_t at = 0;
  while (at < head.size()) {
    const size_t lf = head.find('\n', at);
    if (lf == std::string_view::npos || lf == at || head[lf - 1] != '\r') {
      std::abort();
    }
    const std::string_view line = head.substr(at, lf - 1 - at);
    if (std::any_of(line.begin(), line.end(),
                    [](char c) { return c != '\t' && IsControl(c); })) {
      std::abort();
    }
    std::string lower(line);
    for (char& c : lower) {
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    if (lower.starts_with("origin:") &&
        lower.find_first_not_of(" \t", 7) == std::string::npos) {
      std::abort();
    }
    at = lf + 1;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  static const ctxkit::mcp::OriginPolicy policy(
      {"https://app.example:8443", "http://[::1]:9000"});
  (void)ctxkit::mcp::HostOfAuthority(text);
  (void)policy.HostAllowed(text);
  (void)policy.OriginAllowed(text);
  (void)ctxkit::mcp::IsLoopbackBind(text);
  const bool matches = ctxkit::mcp::BearerTokenMatches(text, "s3cret");
  if (matches) {
    // Only "Bearer s3cret" (any case of the scheme, spaces around) may.
    std::string_view t = text.substr(7);
    while (!t.empty() && t.front() == ' ') t.remove_prefix(1);
    while (!t.empty() && t.back() == ' ') t.remove_suffix(1);
    if (t != "s3cret") std::abort();
  }
  if (ctxkit::mcp::HeaderValueIsClean(text) &&
      std::any_of(text.begin(), text.end(),
                  [](char c) { return c != '\t' && IsControl(c); })) {
    std::abort();
  }
  if (ctxkit::mcp::RequestHeadProblem(text).empty()) CheckPassedHead(text);
  return 0;
}
