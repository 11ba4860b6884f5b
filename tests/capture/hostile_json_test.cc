// JSON from outside can be nested arbitrarily deep or shaped to blow up when
// re-indented: ctxkit refuses the first with a usage error (never a crash)
// and stores the second as compactly as it was given.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "cli/cli_test_util.h"

namespace ctxkit::cli::testing {
namespace {

namespace fs = std::filesystem;

std::string Nested(int depth, std::string_view leaf = "1") {
  return std::string(depth, '[') + std::string(leaf) + std::string(depth, ']');
}

class HostileJsonTest : public CliTest {
 protected:
  RunOptions Opts(std::string input = "") {
    RunOptions o;
    o.input = std::move(input);
    o.env = {"CTXKIT_TOOL_CONTEXT_DIR=" + tmp_.path() + "/ctx"};
    return o;
  }
  std::string WriteFile(const std::string& name, const std::string& text) {
    const std::string path = tmp_.path() + "/" + name;
    std::ofstream(path) << text;
    return path;
  }
};

TEST_F(HostileJsonTest, DeepToolOutputsAreUsageErrorsNotCrashes) {
  const std::string deep = Nested(65000);
  ProcessResult r = Run({"tools", "save", "--tool", "t"}, Opts(deep));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("nested deeper than 512"), std::string::npos) << r.err;
  r = Run({"tools", "save", "--tool", "t", "--args", "{\"a\":" + deep + "}"},
          Opts("1"));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  // Nothing was saved.
  r = Run({"--json", "tools", "ls"}, Opts());
  EXPECT_EQ(r.out, "[]\n") << r.err;
  // Deep but within the limit still saves.
  EXPECT_EQ(Run({"tools", "save", "--tool", "t"}, Opts(Nested(500))).exit_code,
            0);
}

// A raw NUL ended the JSON parse as if the input ended there, so a json
// value "{...}\0junk" was stored as valid (found by the json_rpc fuzzer).
TEST_F(HostileJsonTest, RawNulByteIsNotValidJson) {
  const std::string value = std::string("{\"a\":1}\0junk[[", 14);
  ProcessResult r = Run({"set", "k", "--type", "json"}, Opts(value));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("NUL byte"), std::string::npos) << r.err;
  EXPECT_EQ(Run({"get", "k"}, Opts()).exit_code, 1) << "nothing stored";
  r = Run({"tools", "save", "--tool", "t"}, Opts(value));
  EXPECT_EQ(r.exit_code, 2) << r.err;
}

TEST_F(HostileJsonTest, DeepChatLogsAreUsageErrorsNotCrashes) {
  Ok({"session", "new", "s"});
  const std::string deep = Nested(65000, "\"x\"");
  const std::string openai =
      WriteFile("o.json", "[{\"role\":\"user\",\"content\":" + deep + "}]");
  ProcessResult r =
      Run({"session", "ingest", "s", openai, "--format", "openai"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  const std::string anthropic =
      WriteFile("a.json",
                "{\"messages\":[{\"role\":\"assistant\",\"content\":[{\"type\":"
                "\"tool_use\",\"id\":\"t1\",\"name\":\"n\",\"input\":{\"x\":" +
                    deep + "}}]}]}");
  r = Run({"session", "ingest", "s", anthropic, "--format", "anthropic"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("nested deeper"), std::string::npos) << r.err;
}

TEST_F(HostileJsonTest, SavedOutputsAreNoLargerThanGiven) {
  // 40 KB nested 500 deep: indented, every line carried up to 1,000 spaces.
  std::string nested = Nested(500, "\"" + std::string(39000, 'x') + "\"");
  ProcessResult r = Run({"tools", "save", "--tool", "t"}, Opts(nested));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string file = r.out.substr(0, r.out.size() - 1);
  ASSERT_TRUE(fs::exists(file)) << file;
  EXPECT_LE(fs::file_size(file), nested.size() + 512);
  // And it reads back exactly.
  r = Run({"tools", "load", file, "--json"}, Opts());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(std::string(39000, 'x')), std::string::npos);
}

}  // namespace
}  // namespace ctxkit::cli::testing
