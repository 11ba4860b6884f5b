// The protocol revisions this server speaks (include/ctxkit/mcp.h).

#include <string_view>

#include "ctxkit/mcp.h"

namespace ctxkit::mcp {

bool IsSupportedProtocolVersion(std::string_view version) {
  return version == "2025-11-25" || version == "2025-06-18";
}

}  // namespace ctxkit::mcp
