// Temp files of writers killed mid-write are cleared on open, as LevelDB
// does, and temp files of live writers are left alone.

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include "cli/cli_test_util.h"

namespace ctxkit::cli::testing {
namespace {

namespace fs = std::filesystem;

// The pid of a process that has exited.
pid_t DeadPid() {
  pid_t pid = ::fork();
  if (pid == 0) ::_exit(0);
  ::waitpid(pid, nullptr, 0);
  return pid;
}

void Touch(const std::string& path, std::chrono::hours age = {}) {
  std::ofstream(path) << "partial";
  fs::last_write_time(path, fs::file_time_type::clock::now() - age);
}

class StaleTempTest : public CliTest {};

TEST_F(StaleTempTest, CaptureRootDropsOnlyDeadWritersTemps) {
  const std::string root = tmp_.path() + "/ctx";
  fs::create_directories(root);
  const std::string dead = root + "/.tmp-" + std::to_string(DeadPid()) + "-a";
  const std::string live = root + "/.tmp-" + std::to_string(::getpid()) + "-b";
  const std::string old_style = root + "/k3j2.tmp";
  const std::string fresh_old_style = root + "/q9x1.tmp";
  Touch(dead);
  Touch(live);
  Touch(old_style, std::chrono::hours(2));
  Touch(fresh_old_style);
  RunOptions o;
  o.env = {"CTXKIT_TOOL_CONTEXT_DIR=" + root};
  ProcessResult r = Run({"--json", "tools", "ls"}, o);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(fs::exists(dead));
  EXPECT_FALSE(fs::exists(old_style));
  EXPECT_TRUE(fs::exists(live)) << "its writer is still running";
  EXPECT_TRUE(fs::exists(fresh_old_style)) << "may belong to a live writer";
}

TEST_F(StaleTempTest, NotesScanDropsDeadWritersTemps) {
  const std::string root = tmp_.path() + "/notes";
  fs::create_directories(root + "/findings");
  const std::string dead =
      root + "/findings/.tmp-" + std::to_string(DeadPid()) + "-c";
  Touch(dead);
  ProcessResult r = Run({"notes", "--root", root, "scan"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(fs::exists(dead));
}

// Tool-output files of every session share one directory: the CLI, like
// MCP, loads only its own session's.
TEST_F(StaleTempTest, ToolsLoadRefusesAnotherSessionsFile) {
  const std::string root = tmp_.path() + "/ctx";
  RunOptions o;
  o.env = {"CTXKIT_TOOL_CONTEXT_DIR=" + root};
  o.input = std::string(40000, 's');  // Over the in-memory threshold: a file.
  ProcessResult saved =
      Run({"--session", "alice", "tools", "save", "--tool", "read"}, o);
  ASSERT_EQ(saved.exit_code, 0) << saved.err;
  const std::string file = saved.out.substr(0, saved.out.size() - 1);
  o.input.clear();
  ProcessResult mine = Run({"--session", "alice", "tools", "load", file}, o);
  EXPECT_EQ(mine.exit_code, 0) << mine.err;
  ProcessResult other = Run({"--session", "bob", "tools", "load", file}, o);
  EXPECT_EQ(other.exit_code, 3) << other.err;
  EXPECT_NE(other.err.find("another session"), std::string::npos) << other.err;
  EXPECT_TRUE(other.out.empty());
}

}  // namespace
}  // namespace ctxkit::cli::testing
