// `ctxkit watch ...` end to end through the real binary: add/ls/rm/scan
// with exit codes and JSON, and `watch run` as a daemon process driven by
// file changes and stopped with SIGTERM/SIGINT.

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/subprocess.h"
#include "watch_test_util.h"

extern char** environ;

namespace ctxkit {
namespace {

using watch_testing::WaitFor;
using watch_testing::WatchTest;
using watch_testing::WriteFile;

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class DaemonTest : public WatchTest {
 protected:
  void TearDown() override {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    WatchTest::TearDown();
  }

  cli::ProcessResult Cli(std::vector<std::string> args) {
    args.insert(args.begin(), {CTXKIT_BINARY, "--home", home_});
    auto r = cli::RunProcess(args);
    EXPECT_TRUE(r.ok());
    return r.ok() ? *r : cli::ProcessResult{};
  }

  // Starts `ctxkit watch run` with stdout/stderr in files.
  void StartDaemon(std::vector<std::string> extra = {}) {
    out_ = root_ + "/daemon.out";
    err_ = root_ + "/daemon.err";
    std::vector<std::string> args = {CTXKIT_BINARY, "--home", home_, "watch",
                                     "run"};
    args.insert(args.end(), extra.begin(), extra.end());
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, out_.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_addopen(&fa, 2, err_.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ASSERT_EQ(
        posix_spawn(&pid_, CTXKIT_BINARY, &fa, nullptr, argv.data(), environ),
        0);
    posix_spawn_file_actions_destroy(&fa);
    // The daemon says so on stderr once its catch-up pass is done.
    ASSERT_TRUE(WaitFor([&] {
      return Slurp(err_).find("watching;") != std::string::npos;
    })) << Slurp(err_);
  }

  // Sends `sig` and returns the exit status (-1 if it did not exit).
  int StopDaemon(int sig) {
    ::kill(pid_, sig);
    int status = 0;
    bool exited =
        WaitFor([&] { return ::waitpid(pid_, &status, WNOHANG) == pid_; });
    pid_ = -1;
    if (!exited || !WIFEXITED(status)) return -1;
    return WEXITSTATUS(status);
  }

  pid_t pid_ = -1;
  std::string out_;
  std::string err_;
};

TEST_F(DaemonTest, VerbsExitCodesAndJson) {
  WriteFile(tree_ + "/a.txt", "hello");
  auto r = Cli({"--json", "watch", "add", tree_});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["path"], tree_);
  EXPECT_EQ(j["kind"], "directory");
  EXPECT_EQ(j["report"]["created"], 1);
  // The object reads through the ordinary verbs.
  r = Cli({"get", "file:" + tree_ + "/a.txt"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, "hello");
  r = Cli({"--json", "watch", "ls"});
  ASSERT_EQ(r.exit_code, 0);
  j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["watches"].size(), 1u);
  EXPECT_EQ(j["watches"][0]["path"], tree_);
  // Errors: missing path 1, duplicate 4, not-watched rm 1, bad flag 2.
  EXPECT_EQ(Cli({"watch", "add", tree_ + "/missing"}).exit_code, 1);
  EXPECT_EQ(Cli({"watch", "add", tree_}).exit_code, 4);
  EXPECT_EQ(Cli({"watch", "add", home_}).exit_code, 2);
  EXPECT_EQ(Cli({"watch", "rm", root_ + "/nope"}).exit_code, 1);
  EXPECT_EQ(Cli({"watch", "add", tree_, "--max-file-bytes", "0"}).exit_code, 2);
  EXPECT_EQ(Cli({"watch"}).exit_code, 2);
  // scan after an edit.
  WriteFile(tree_ + "/a.txt", "hello again");
  r = Cli({"--json", "watch", "scan"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["updated"], 1);
  r = Cli({"--json", "versions", "file:" + tree_ + "/a.txt"});
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out.find("\"version\":3"), std::string::npos);
  EXPECT_NE(r.out.find("\"version\":2"), std::string::npos);
  EXPECT_EQ(Cli({"watch", "rm", tree_}).exit_code, 0);
  r = Cli({"watch", "ls"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, "");
}

TEST_F(DaemonTest, RunFollowsChangesAndStopsCleanlyOnSigterm) {
  std::string f = tree_ + "/a.txt";
  WriteFile(f, "one");
  ASSERT_EQ(Cli({"watch", "add", tree_}).exit_code, 0);
  WriteFile(f, "two");  // Before the daemon starts: its catch-up finds it.
  StartDaemon({"--json"});
  EXPECT_EQ(Content(f), "two");
  WriteFile(f, "three");
  ASSERT_TRUE(WaitFor([&] { return Content(f) == "three"; })) << Slurp(err_);
  ASSERT_EQ(::unlink(f.c_str()), 0);
  ASSERT_TRUE(WaitFor([&] { return LatestIsDeleted(f); }));
  // A second daemon on the same store is refused (exit 4).
  EXPECT_EQ(Cli({"watch", "run"}).exit_code, 4);
  EXPECT_EQ(StopDaemon(SIGTERM), 0) << Slurp(err_);
  // One JSON line per change, in order.
  std::istringstream lines(Slurp(out_));
  std::vector<std::string> events;
  for (std::string line; std::getline(lines, line);) {
    auto j = nlohmann::json::parse(line, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << line;
    events.push_back(j["event"].get<std::string>() + " " +
                     j["key"].get<std::string>());
  }
  std::vector<std::string> want = {"updated file:" + f, "updated file:" + f,
                                   "deleted file:" + f};
  EXPECT_EQ(events, want);
  // After it stopped, nothing follows changes any more.
  WriteFile(f, "four");
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_TRUE(LatestIsDeleted(f));
}

TEST_F(DaemonTest, SigintStopsAnIdleDaemon) {
  ASSERT_EQ(Cli({"watch", "add", tree_}).exit_code, 0);
  StartDaemon();
  EXPECT_EQ(StopDaemon(SIGINT), 0) << Slurp(err_);
  // The lock died with it: another daemon can start.
  StartDaemon();
  EXPECT_EQ(StopDaemon(SIGTERM), 0);
}

}  // namespace
}  // namespace ctxkit
