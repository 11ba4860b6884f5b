// `ctxkit serve` as a process: what it refuses before listening.

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <string>
#include <vector>

#include "cli/subprocess.h"

namespace ctxkit::cli {
namespace {

class ServeCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* base = ::getenv("TMPDIR");
    std::string pattern =
        std::string(base && *base ? base : "/tmp") + "/ctxkit-serve-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  ProcessResult Serve(std::vector<std::string> args) {
    std::vector<std::string> argv = {CTXKIT_BINARY, "--home", dir_ + "/store",
                                     "serve"};
    argv.insert(argv.end(), args.begin(), args.end());
    Result<ProcessResult> r = RunProcess(
        argv, "",
        std::vector<std::string>{"PATH=/usr/bin:/bin", "HOME=" + dir_});
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : ProcessResult{};
  }

  std::string dir_;
};

TEST_F(ServeCliTest, NonLoopbackBindWithoutTokenIsRefused) {
  ProcessResult r = Serve({"--bind", "0.0.0.0", "--port", "0"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("token"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty());
  // Refused before the store was created.
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/store"));
}

TEST_F(ServeCliTest, BadFlagsAreUsageErrors) {
  EXPECT_EQ(Serve({"--port", "70000"}).exit_code, 2);
  EXPECT_EQ(Serve({"--max-request-bytes", "-5"}).exit_code, 2);
  ProcessResult r = Serve({"--port", "0", "--allowed-origin", "evil"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("allowed origin"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace ctxkit::cli
