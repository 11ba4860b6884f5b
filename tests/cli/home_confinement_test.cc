// An explicit --home keeps everything the CLI writes under it: the notes
// and tool outputs too, unless a spec variable points elsewhere.

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "cli/cli_test_util.h"

namespace ctxkit::cli::testing {
namespace {

namespace fs = std::filesystem;

// Every regular file and directory below `dir`, relative to it.
std::vector<std::string> Tree(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    out.push_back(fs::relative(e.path(), dir).string());
  }
  return out;
}

TEST_F(CliTest, ExplicitHomeKeepsEveryWriteUnderIt) {
  // HOME is the test's private directory (Run() scrubs the rest).
  std::string big(70000, 'x');  // A blob file and a tool-output file.
  RunOptions in;
  in.input = big;
  ProcessResult r = Run({"set", "doc"}, in);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(Run({"summarize", "doc"}).exit_code, 0);
  ASSERT_EQ(Run({"find", "xxx"}).exit_code, 0);
  RunOptions note;
  note.input = "Tokens never expire.\n";
  r = Run(
      {"notes", "add", "--agent", "a", "--type", "finding", "--slug", "expiry"},
      note);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string home = fs::canonical(home_).string();
  EXPECT_TRUE(r.out.starts_with(home + "/notes-root/a/")) << r.out;
  ASSERT_EQ(Run({"notes", "search", "tokens"}).exit_code, 0);
  RunOptions tool;
  tool.input = "\"" + big + "\"";
  r = Run({"--session", "s1", "tools", "save", "--tool", "read_file"}, tool);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.out.starts_with(home + "/tool-outputs/session-s1-read_file-"))
      << r.out;
  ASSERT_EQ(Run({"--session", "s1", "tools", "ls"}).exit_code, 0);

  EXPECT_EQ(Tree(user_home_), std::vector<std::string>{});
  std::vector<std::string> top;
  for (const auto& e : fs::directory_iterator(tmp_.path())) {
    top.push_back(e.path().filename().string());
  }
  std::sort(top.begin(), top.end());
  EXPECT_EQ(top, (std::vector<std::string>{"store", "user"}));
  EXPECT_TRUE(fs::is_directory(home_ + "/notes-root"));
  EXPECT_TRUE(fs::is_directory(home_ + "/tool-outputs"));
}

TEST_F(CliTest, SpecVariablesStillWinOverAnExplicitHome) {
  std::string notes = tmp_.path() + "/sfa-notes";
  std::string outputs = tmp_.path() + "/sfa-outputs";
  RunOptions o;
  o.env = {"SFA_CONTEXT_STORE=" + notes, "CTXKIT_TOOL_CONTEXT_DIR=" + outputs};
  o.input = "body\n";
  ProcessResult r = Run(
      {"notes", "add", "--agent", "a", "--type", "finding", "--slug", "s"}, o);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.out.starts_with(fs::canonical(notes).string() + "/a/"))
      << r.out;
  o.input = "\"" + std::string(40000, 'y') + "\"";
  r = Run({"--session", "s1", "tools", "save", "--tool", "t"}, o);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.out.starts_with(fs::canonical(outputs).string() + "/"))
      << r.out;
  EXPECT_FALSE(fs::exists(home_ + "/notes-root"));
  EXPECT_FALSE(fs::exists(home_ + "/tool-outputs"));
}

TEST_F(CliTest, DefaultHomeKeepsTheSpecDefaults) {
  RunOptions o;
  o.pass_home = false;
  o.input = "\"" + std::string(40000, 'z') + "\"";
  ProcessResult r = Run({"--session", "s1", "tools", "save", "--tool", "t"}, o);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string user = fs::canonical(user_home_).string();
  EXPECT_TRUE(r.out.starts_with(user + "/.agent/context/")) << r.out;
  o.input = "body\n";
  r = Run({"notes", "add", "--agent", "a", "--type", "finding", "--slug", "s"},
          o);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(
      r.out.starts_with(user + "/.local/share/single-file-agents/context/a/"))
      << r.out;
}

}  // namespace
}  // namespace ctxkit::cli::testing
