// `ctxkit tools` as scripts use it, including concurrent saves from
// several processes.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "cli/cli_test_util.h"

namespace ctxkit::cli::testing {
namespace {

namespace fs = std::filesystem;

class ToolsCliTest : public CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    dir_ = tmp_.path() + "/agent-context";
  }
  RunOptions Opts(std::string input = "") {
    RunOptions o;
    o.input = std::move(input);
    o.env = {"CTXKIT_TOOL_CONTEXT_DIR=" + dir_};
    return o;
  }
  std::string dir_;
};

TEST_F(ToolsCliTest, SaveLoadListClear) {
  std::string big(40000, 'z');
  ProcessResult r = Run({"--session", "s1", "tools", "save", "--tool",
                         "read_file", "--args", R"({"path":"a"})"},
                        Opts(big));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string file = r.out.substr(0, r.out.size() - 1);
  EXPECT_TRUE(fs::exists(file));
  r = Run({"--session", "s1", "tools", "save", "--tool", "grep"},
          Opts(R"({"n": 3})"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string mem = r.out.substr(0, r.out.size() - 1);
  EXPECT_TRUE(mem.starts_with("ck:"));
  r = Run({"--session", "s1", "tools", "load", file}, Opts());
  EXPECT_EQ(r.out, big + "\n");
  r = Run({"--session", "s1", "tools", "load", mem, "--json"}, Opts());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["result"]["n"], 3);
  r = Run({"--session", "s1", "--json", "tools", "ls"}, Opts());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out).size(), 2u);
  r = Run({"--session", "s1", "tools", "clear"}, Opts());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(fs::exists(file));
  r = Run({"tools", "hash-query", "  Hello "}, Opts());
  ProcessResult r2 = Run({"tools", "hash-query", "hello"}, Opts());
  EXPECT_EQ(r.out, r2.out);
  // Without a session the tools verbs use the session "default".
  r = Run({"tools", "save", "--tool", "x"}, Opts("1"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = Run({"--session", "default", "--json", "tools", "ls"}, Opts());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out).size(), 1u);
  r = Run({"--session", "s1", "tools", "load", "/etc/passwd"}, Opts());
  EXPECT_EQ(r.exit_code, 2);
}

TEST_F(ToolsCliTest, ConcurrentSavesFromSeveralProcesses) {
  constexpr int kProcs = 6;
  std::vector<ProcessResult> results(kProcs * 2);
  std::vector<std::thread> threads;
  for (int i = 0; i < kProcs * 2; ++i) {
    threads.emplace_back([&, i] {
      // Half distinct outputs, half the very same output (same file).
      std::string body = i < kProcs
                             ? std::string(40000, static_cast<char>('a' + i))
                             : std::string(40000, 'S');
      std::string session = i < kProcs ? "s" + std::to_string(i % 2) : "s0";
      results[i] =
          Run({"--session", session, "tools", "save", "--tool", "search_code"},
              Opts(body));
    });
  }
  for (auto& t : threads) t.join();
  std::set<std::string> files;
  for (const auto& r : results) {
    ASSERT_EQ(r.exit_code, 0) << r.err;
    files.insert(r.out);
  }
  EXPECT_EQ(files.size(), kProcs + 1u);
  size_t json_files = 0;
  for (const auto& e : fs::directory_iterator(dir_)) {
    std::string name = e.path().filename();
    if (name.starts_with(".")) {
      EXPECT_EQ(name, ".ctxkit-capture.lock");  // No temp file left.
      continue;
    }
    ++json_files;
    std::ifstream in(e.path());
    nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << name;
    EXPECT_EQ(j["result"].get<std::string>().size(), 40000u);
  }
  EXPECT_EQ(json_files, kProcs + 1u);
  ProcessResult ls = Run({"--session", "s0", "--json", "tools", "ls"}, Opts());
  EXPECT_EQ(nlohmann::json::parse(ls.out).size(), kProcs / 2 + 1u);
}

}  // namespace
}  // namespace ctxkit::cli::testing
