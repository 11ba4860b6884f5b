// Long verbs draw a progress line on a terminal's stderr, and nothing when
// stderr is a pipe or with --quiet (cli/progress_line.h). Each verb runs
// under a real pseudo-terminal (forkpty), with reports after every step
// (CTXKIT_PROGRESS_INTERVAL_MS=0) so the test does not depend on timing.

#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli/cli_test_util.h"

namespace ctxkit::cli::testing {
namespace {

struct TerminalRun {
  int exit_code = -1;
  std::string terminal;  // Everything the child wrote to the terminal.
};

class ProgressTest : public CliTest {
 protected:
  // Runs ctxkit with stdout on /dev/null and stderr on a pseudo-terminal.
  TerminalRun RunOnTerminal(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {CTXKIT_BINARY, "--home", home_};
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<std::string> env = Env({"CTXKIT_PROGRESS_INTERVAL_MS=0"});
    std::vector<char*> cargv, cenv;
    for (std::string& a : argv) cargv.push_back(a.data());
    for (std::string& e : env) cenv.push_back(e.data());
    cargv.push_back(nullptr);
    cenv.push_back(nullptr);
    TerminalRun run;
    int master = -1;
    const pid_t pid = ::forkpty(&master, nullptr, nullptr, nullptr);
    if (pid < 0) {
      ADD_FAILURE() << "forkpty: " << std::strerror(errno);
      return run;
    }
    if (pid == 0) {
      const int null = ::open("/dev/null", O_WRONLY);
      ::dup2(null, STDOUT_FILENO);
      ::execve(cargv[0], cargv.data(), cenv.data());
      ::_exit(127);
    }
    char buf[4096];
    for (;;) {
      const ssize_t n = ::read(master, buf, sizeof buf);
      if (n > 0) {
        run.terminal.append(buf, static_cast<size_t>(n));
      } else if (n < 0 && errno == EINTR) {
        continue;
      } else {
        break;  // EIO once the child closed the terminal.
      }
    }
    ::close(master);
    int status = 0;
    ::waitpid(pid, &status, 0);
    run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return run;
  }

  // Stores `n` small text values.
  void Fill(int n) {
    for (int i = 0; i < n; ++i) {
      Ok({"set", "doc/" + std::to_string(i)},
         "the token refresh path number " + std::to_string(i) + "\n");
    }
  }

  // With stderr piped (the harness's Run), the same command writes nothing
  // to stderr.
  void ExpectSilentWhenPiped(const std::vector<std::string>& args) {
    RunOptions o;
    o.env = {"CTXKIT_PROGRESS_INTERVAL_MS=0"};
    ProcessResult r = Run(args, o);
    EXPECT_EQ(r.exit_code, 0) << Describe(args, r);
    EXPECT_EQ(r.err, "") << Describe(args, r);
  }
};

TEST_F(ProgressTest, FindShowsIndexingProgressOnATerminal) {
  Fill(30);
  TerminalRun run = RunOnTerminal({"find", "token refresh"});
  EXPECT_EQ(run.exit_code, 0) << run.terminal;
  // A line rewritten in place: carriage returns, the count out of the
  // estimate, a rate and time left, then the finished line.
  EXPECT_NE(run.terminal.find("\rindexing: 1 of "), std::string::npos)
      << run.terminal;
  EXPECT_NE(run.terminal.find(" changes ("), std::string::npos) << run.terminal;
  EXPECT_NE(run.terminal.find("/s, about "), std::string::npos) << run.terminal;
  EXPECT_NE(run.terminal.find("\rindexing: 30 changes in "), std::string::npos)
      << run.terminal;
  EXPECT_NE(run.terminal.find("\x1b[K"), std::string::npos);
}

TEST_F(ProgressTest, FindIsSilentWhenPipedOrQuiet) {
  Fill(20);
  // The index is caught up by the first call: remove it so each run works.
  ExpectSilentWhenPiped({"find", "token refresh"});
  std::filesystem::remove(home_ + "/index.db");
  std::filesystem::remove(home_ + "/index.db-wal");
  std::filesystem::remove(home_ + "/index.db-shm");
  TerminalRun quiet = RunOnTerminal({"--quiet", "find", "token refresh"});
  EXPECT_EQ(quiet.exit_code, 0) << quiet.terminal;
  EXPECT_EQ(quiet.terminal.find("indexing"), std::string::npos)
      << quiet.terminal;
}

TEST_F(ProgressTest, GcSessionIngestAndWatchAddShowProgress) {
  Fill(5);
  TerminalRun gc = RunOnTerminal({"gc", "--apply"});
  EXPECT_EQ(gc.exit_code, 0) << gc.terminal;
  EXPECT_NE(gc.terminal.find("\rcollecting: 5 versions in "), std::string::npos)
      << gc.terminal;

  std::string log = R"({"messages": [{"role": "user", "content": "hi"})";
  for (int i = 0; i < 4; ++i) {
    log += R"(, {"role": "assistant", "content": "step )" + std::to_string(i) +
           "\"}";
  }
  log += "]}";
  const std::string log_path = tmp_.path() + "/log.json";
  std::ofstream(log_path) << log;
  Ok({"session", "new", "s1"});
  TerminalRun ingest = RunOnTerminal({"session", "ingest", "s1", log_path});
  EXPECT_EQ(ingest.exit_code, 0) << ingest.terminal;
  EXPECT_NE(ingest.terminal.find("\ringesting: 2 of 5 log items (40%)"),
            std::string::npos)
      << ingest.terminal;
  EXPECT_NE(ingest.terminal.find("\ringesting: 5 log items in "),
            std::string::npos)
      << ingest.terminal;

  const std::string tree = tmp_.path() + "/tree";
  std::filesystem::create_directories(tree + "/sub");
  for (int i = 0; i < 3; ++i) {
    std::ofstream(tree + "/sub/f" + std::to_string(i) + ".txt") << "text\n";
  }
  TerminalRun add = RunOnTerminal({"watch", "add", tree});
  EXPECT_EQ(add.exit_code, 0) << add.terminal;
  EXPECT_NE(add.terminal.find("\rreading: 1 of 3 files (33%)"),
            std::string::npos)
      << add.terminal;
  EXPECT_NE(add.terminal.find("\rreading: 3 files in "), std::string::npos)
      << add.terminal;
}

TEST_F(ProgressTest, GcAndWatchAddAreSilentWhenPiped) {
  Fill(3);
  ExpectSilentWhenPiped({"gc", "--apply"});
  const std::string tree = tmp_.path() + "/tree";
  std::filesystem::create_directories(tree);
  std::ofstream(tree + "/a.txt") << "text\n";
  ExpectSilentWhenPiped({"watch", "add", tree});
}

}  // namespace
}  // namespace ctxkit::cli::testing
