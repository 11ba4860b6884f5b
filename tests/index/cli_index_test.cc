// The find verb through the real binary.

#include <gtest/gtest.h>
#include <stdio.h>
#include <sys/wait.h>

#include <array>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

namespace ctxkit::testing {
namespace {

class CliIndexTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/ctxkit-index-cli-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    home_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(home_); }

  std::string Run(const std::string& args, int* code) {
    const std::string cmd = "env -u CTXKIT_EMBED_URL " +
                            std::string(CTXKIT_BINARY) + " --home " + home_ +
                            " " + args + " 2>/dev/null";
    FILE* p = popen(cmd.c_str(), "r");
    std::string out;
    std::array<char, 4096> buf;
    size_t n;
    while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) {
      out.append(buf.data(), n);
    }
    const int status = pclose(p);
    *code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return out;
  }

  std::string home_;
};

TEST_F(CliIndexTest, FindPrintsRefsAndJson) {
  int code = 0;
  Run("set docs/auth 'tokens are refreshed by the refresh endpoint'", &code);
  ASSERT_EQ(code, 0);
  Run("set docs/db 'the database uses a write-ahead log'", &code);
  ASSERT_EQ(code, 0);
  std::string out = Run("find 'refresh tokens'", &code);
  EXPECT_EQ(code, 0);
  EXPECT_EQ(out.rfind("ck:", 0), 0u) << out;
  EXPECT_NE(out.find(":docs/auth @0+"), std::string::npos) << out;

  auto j =
      nlohmann::json::parse(Run("find 'write-ahead' --json --top 1", &code));
  EXPECT_EQ(code, 0);
  ASSERT_EQ(j["hits"].size(), 1u);
  EXPECT_EQ(j["hits"][0]["key"], "docs/db");
  EXPECT_EQ(j["hits"][0]["method"], "bm25");
  EXPECT_EQ(j["method"], "bm25");
  EXPECT_EQ(j["hits"][0]["byte_offset"], 0);

  j = nlohmann::json::parse(
      Run("find-relevant database --key docs/auth --json", &code));
  EXPECT_EQ(code, 0);
  EXPECT_TRUE(j["hits"].empty());

  Run("find '?!'", &code);
  EXPECT_EQ(code, 2);
  Run("find x --key nope", &code);
  EXPECT_EQ(code, 1);
  Run("find x --top 0", &code);
  EXPECT_EQ(code, 2);
}

}  // namespace
}  // namespace ctxkit::testing
