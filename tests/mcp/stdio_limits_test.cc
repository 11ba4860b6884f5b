// The stdio transport's limits: an over-long line is answered and skipped,
// never buffered whole; a message refused for its depth is answered with
// its own id.

#include <stdio.h>

#include <string>
#include <vector>

#include "mcp/mcp_test_util.h"
#include "mcp/stdio_transport.h"

namespace ctxkit::mcp::testing {
namespace {

using StdioLimitsTest = McpTest;

// Serves `input` with lines of at most `max_line` bytes; the reply lines.
std::vector<Json> Serve(Server& server, const std::string& input,
                        size_t max_line) {
  std::FILE* in =
      ::fmemopen(const_cast<char*>(input.data()), input.size(), "r");
  std::FILE* out = std::tmpfile();
  EXPECT_TRUE(
      ServeStdio(server, ClientBinding{"a", "s"}, in, out, max_line).ok());
  std::fclose(in);
  std::rewind(out);
  std::vector<Json> replies;
  char* line = nullptr;
  size_t cap = 0;
  while (::getline(&line, &cap, out) > 0) {
    replies.push_back(Json::parse(line, nullptr, false));
  }
  ::free(line);
  std::fclose(out);
  return replies;
}

TEST_F(StdioLimitsTest, OverlongLinesAreAnsweredAndSkipped) {
  const std::string ping = R"({"jsonrpc":"2.0","id":7,"method":"ping"})";
  const std::string input =
      R"({"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":")" +
      std::string(5000, 'x') + "\"}}\n" + ping + "\n";
  std::vector<Json> replies = Serve(server(), input, 1024);
  ASSERT_EQ(replies.size(), 2u);
  EXPECT_EQ(replies[0]["error"]["code"], -32600);
  EXPECT_NE(replies[0]["error"]["message"].get<std::string>().find("1024"),
            std::string::npos);
  EXPECT_EQ(replies[1]["id"], 7);
  EXPECT_TRUE(replies[1].contains("result"));
}

TEST_F(StdioLimitsTest, TooDeepMessagesAreAnsweredWithTheirId) {
  const std::string deep = std::string(100, '[') + std::string(100, ']');
  const std::string input =
      R"({"jsonrpc":"2.0","id":9,"method":"ping","params":{"x":)" + deep +
      "}}\n";
  std::vector<Json> replies = Serve(server(), input, kMaxStdioLineBytes);
  ASSERT_EQ(replies.size(), 1u);
  EXPECT_EQ(replies[0]["error"]["code"], -32600);
  EXPECT_EQ(replies[0]["id"], 9);
}

}  // namespace
}  // namespace ctxkit::mcp::testing
