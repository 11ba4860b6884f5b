// The fixtures the MCP conformance suite (@modelcontextprotocol/
// conformance) reads from a server under test: test:// resources and
// test_* prompts, served through ServerOptions::extension by the
// conformance server (server_main.cc). Test data: the shipped ctxkit never
// serves them.

#ifndef CTXKIT_TESTS_MCP_CONFORMANCE_FIXTURES_H_
#define CTXKIT_TESTS_MCP_CONFORMANCE_FIXTURES_H_

#include <string>
#include <string_view>

#include "ctxkit/mcp.h"
#include "ctxkit/status.h"

namespace ctxkit::mcp::conformance {

class Fixtures : public ServerExtension {
 public:
  std::string ResourcesJson() const override;
  std::string ResourceTemplatesJson() const override;
  std::string PromptsJson() const override;
  // Every test:// URI (the fixtures own that scheme).
  bool OwnsUri(std::string_view uri) const override;
  Result<std::string> ReadResource(std::string_view uri) const override;
  Result<std::string> GetPrompt(std::string_view name,
                                std::string_view arguments_json) const override;
};

}  // namespace ctxkit::mcp::conformance

#endif  // CTXKIT_TESTS_MCP_CONFORMANCE_FIXTURES_H_
