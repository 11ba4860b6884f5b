// CTXKIT_HOME, CTXKIT_AGENT, CTXKIT_SESSION and the default store location.

#include <filesystem>
#include <string>

#include "cli/cli_test_util.h"

namespace ctxkit::cli::testing {
namespace {

namespace fs = std::filesystem;

TEST_F(CliTest, CtxkitHomeIsTheStoreWithoutHomeFlag) {
  RunOptions o;
  o.pass_home = false;
  o.env = {"CTXKIT_HOME=" + home_};
  o.input = "via env";
  ProcessResult set = Run({"set", "k"}, o);
  ASSERT_EQ(set.exit_code, 0) << set.err;
  EXPECT_EQ(Ok({"get", "k"}), "via env");  // Ok() passes --home home_.

  // --home wins over CTXKIT_HOME.
  std::string other = tmp_.path() + "/other";
  o.env = {"CTXKIT_HOME=" + other};
  o.input.clear();
  ProcessResult get = Run({"--home", home_, "get", "k"}, o);
  EXPECT_EQ(get.exit_code, 0) << get.err;
  EXPECT_EQ(get.out, "via env");
}

TEST_F(CliTest, DefaultHomeFollowsXdgThenHome) {
  RunOptions o;
  o.pass_home = false;
  o.env = {"XDG_DATA_HOME=" + tmp_.path() + "/xdg"};
  ASSERT_EQ(Run({"set", "k", "xdg"}, o).exit_code, 0);
  EXPECT_TRUE(fs::is_directory(tmp_.path() + "/xdg/ctxkit"));

  o.env.clear();  // Only HOME (the test's private one) is left.
  ASSERT_EQ(Run({"set", "k", "home"}, o).exit_code, 0);
  EXPECT_TRUE(fs::is_directory(user_home_ + "/.local/share/ctxkit"));
  ProcessResult r = Run({"get", "k"}, o);
  EXPECT_EQ(r.out, "home");
}

TEST_F(CliTest, AgentAndSessionFromEnvironment) {
  RunOptions alice;
  alice.env = {"CTXKIT_AGENT=alice", "CTXKIT_SESSION=s1"};
  ProcessResult set =
      Run({"--json", "set", "note", "from alice", "--scope", "agent"}, alice);
  ASSERT_EQ(set.exit_code, 0) << set.err;
  EXPECT_EQ(nlohmann::json::parse(set.out)["scope"], "agent:alice");
  ProcessResult sset =
      Run({"--json", "set", "scratch", "in s1", "--scope", "session"}, alice);
  ASSERT_EQ(sset.exit_code, 0) << sset.err;
  EXPECT_EQ(nlohmann::json::parse(sset.out)["scope"], "session:s1");

  EXPECT_EQ(Run({"get", "note"}, alice).out, "from alice");
  EXPECT_EQ(Run({"get", "scratch"}, alice).out, "in s1");
  // Without the variables the view has no agent or session scope.
  EXPECT_EQ(Run({"get", "note"}).exit_code, 1);
  // A flag overrides the variable.
  EXPECT_EQ(Run({"--agent", "bob", "get", "note"}, alice).exit_code, 1);
  // An invalid id from the environment is a usage error too.
  RunOptions bad;
  bad.env = {"CTXKIT_AGENT=has space"};
  EXPECT_EQ(Run({"ls"}, bad).exit_code, 2);
}

}  // namespace
}  // namespace ctxkit::cli::testing
