// The HTTP server's checks on request headers: Host and Origin parsing and
// bearer tokens never crash; a token with anything but visible ASCII never
// matches (src/mcp/http_security.h).

#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "mcp/http_security.h"

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
  return 0;
}
