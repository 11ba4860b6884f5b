// `ctxkit mcp`: the real binary over stdio — one JSON-RPC message per line
// on stdout, logs on stderr only, exit 0 at end of input.

#include <stdlib.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli/subprocess.h"
#include "mcp/mcp_test_util.h"

namespace ctxkit::mcp::testing {
namespace {

using StdioTest = McpTest;

std::vector<Json> Lines(const std::string& out) {
  std::vector<Json> lines;
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    Json j = Json::parse(line, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << "not a JSON line: " << line;
    lines.push_back(j);
  }
  return lines;
}

TEST_F(StdioTest, ServesNewlineDelimitedJsonRpcAndExitsAtEof) {
  std::string input =
      R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})"
      "\n"
      R"({"jsonrpc":"2.0","method":"notifications/initialized"})"
      "\r\n\n"
      R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"set","arguments":{"key":"k","value":"line one\nline two","scope":"session"}}})"
      "\n"
      R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get","arguments":{"key":"k"}}})"
      "\n"
      "this is not json\n"
      R"({"jsonrpc":"2.0","id":4,"method":"ping"})";  // No final newline.
  std::vector<std::string> env = {"HOME=" + dir_,
                                  "CTXKIT_TOOL_CONTEXT_DIR=" + dir_ + "/cap",
                                  "PATH=/usr/bin:/bin"};
  auto r = cli::RunProcess(
      {CTXKIT_BINARY, "--home", dir_ + "/stdio-store", "--agent", "tester",
       "--session", "s1", "mcp", "--result-token-limit", "500"},
      input, env);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->exit_code, 0) << r->err;
  std::vector<Json> lines = Lines(r->out);
  ASSERT_EQ(lines.size(), 5u) << r->out;
  EXPECT_EQ(lines[0]["result"]["protocolVersion"], "2025-06-18");
  EXPECT_EQ(lines[1]["result"]["structuredContent"]["scope"], "session:s1");
  EXPECT_EQ(lines[2]["result"]["content"][0]["text"], "line one\nline two");
  EXPECT_EQ(lines[3]["error"]["code"], -32700);
  EXPECT_EQ(lines[4]["id"], 4);
  EXPECT_NE(r->err.find("agent 'tester', session 's1'"), std::string::npos)
      << r->err;
}

TEST_F(StdioTest, DefaultBindingIsAgentMcpAndAFreshSession) {
  std::string input =
      R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}})"
      "\n"
      R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"set","arguments":{"key":"k","value":"v","scope":"agent"}}})"
      "\n";
  std::vector<std::string> env = {"HOME=" + dir_, "PATH=/usr/bin:/bin"};
  auto r = cli::RunProcess(
      {CTXKIT_BINARY, "--home", dir_ + "/stdio-store", "mcp"}, input, env);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->exit_code, 0) << r->err;
  std::vector<Json> lines = Lines(r->out);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[1]["result"]["structuredContent"]["scope"], "agent:mcp");
  EXPECT_NE(r->err.find("session 'mcp-"), std::string::npos) << r->err;
}

TEST_F(StdioTest, BadFlagsAreUsageErrors) {
  std::vector<std::string> env = {"HOME=" + dir_, "PATH=/usr/bin:/bin"};
  auto r = cli::RunProcess({CTXKIT_BINARY, "--home", dir_ + "/s", "mcp",
                            "--result-token-limit", "3"},
                           "", env);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->exit_code, 2) << r->err;
  EXPECT_TRUE(r->out.empty());
}

}  // namespace
}  // namespace ctxkit::mcp::testing
