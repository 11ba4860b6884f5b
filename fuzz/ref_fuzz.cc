// Refs and resource URIs from outside: parsing never crashes, and what
// parses round-trips exactly (include/ctxkit/ref.h, src/mcp/resource_uri.h).

#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "ctxkit/ref.h"
#include "mcp/resource_uri.h"

namespace {

void Check(bool ok) {
  if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  ctxkit::Result<ctxkit::Ref> ref = ctxkit::ParseRef(text);
  if (ref.ok()) {
    const std::string wire = ctxkit::FormatRef(*ref);
    Check(wire == text);
    ctxkit::Result<ctxkit::Ref> again = ctxkit::ParseRef(wire);
    Check(again.ok() && *again == *ref);
  }
  ctxkit::Result<ctxkit::mcp::ResourceUri> uri =
      ctxkit::mcp::ParseResourceUri(text);
  if (uri.ok()) {
    const std::string back =
        uri->is_ref
            ? ctxkit::mcp::RefUri(uri->ref)
            : ctxkit::mcp::ScopedUri(uri->scope, uri->key, uri->version);
    ctxkit::Result<ctxkit::mcp::ResourceUri> again =
        ctxkit::mcp::ParseResourceUri(back);
    Check(again.ok() && again->is_ref == uri->is_ref &&
          again->key == uri->key && again->scope == uri->scope &&
          again->version == uri->version && again->ref == uri->ref);
  }
  ctxkit::Result<std::string> decoded = ctxkit::mcp::PercentDecode(text);
  if (decoded.ok()) {
    ctxkit::Result<std::string> round =
        ctxkit::mcp::PercentDecode(ctxkit::mcp::PercentEncode(*decoded));
    Check(round.ok() && *round == *decoded);
  }
  return 0;
}
