// The HTTP server's checks on request headers: Host and Origin parsing and
// bearer tokens never crash; a token with anything but visible ASCII never
// matches; a header value with a control byte is never clean
// (src/mcp/http_security.h).

#include <algorithm>
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
  return 0;
}
