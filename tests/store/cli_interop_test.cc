// The store across faces: values and refs written through the C++ API are
// read by the `ctxkit` CLI (another process) byte-exact, and the reverse.

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <vector>

#include "store/test_util.h"

namespace ctxkit::testing {
namespace {

struct CliResult {
  int exit_code = -1;
  std::string out;
};

// Runs the ctxkit binary with `args`, stdin from `input`; stdout captured.
CliResult RunCli(const TempDir& dir, std::vector<std::string> args,
                 const std::string& input = "") {
  CliResult r;
  std::string in_path = dir.Sub("cli_stdin");
  {
    std::ofstream f(in_path, std::ios::binary | std::ios::trunc);
    f << input;
  }
  args.insert(args.begin(), CTXKIT_BINARY);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) return r;
  int in_fd = open(in_path.c_str(), O_RDONLY | O_CLOEXEC);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(in_fd, STDIN_FILENO);
    dup2(out[1], STDOUT_FILENO);
    execv(argv[0], argv.data());
    _exit(127);
  }
  close(out[1]);
  close(in_fd);
  r.out = ReadAll(out[0]);
  int status = WaitChild(pid, 60);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

class CliInteropTest : public StoreTest {};

TEST_F(CliInteropTest, CliResolvesRefsMadeThroughTheApi) {
  std::string binary = RandomBytes(31, 100000);
  SetOptions o;
  o.scope = "agent";
  ASSERT_OK_AND_ASSIGN(Ref r, view().Set("blob", binary, o));
  ASSERT_OK(view().Set("blob", "v2", o));
  LookupOptions lo;
  lo.scope = "agent";
  lo.version = 1;
  ASSERT_OK_AND_ASSIGN(Ref pinned, view().RefOf("blob", lo));
  // Another agent's process, holding only the ref strings.
  CliResult dyn = RunCli(dir_, {"--home", home(), "--agent", "other", "resolve",
                                FormatRef(r.Dynamic())});
  EXPECT_EQ(dyn.exit_code, 0);
  EXPECT_EQ(dyn.out, "v2");
  CliResult st = RunCli(dir_, {"--home", home(), "--agent", "other", "resolve",
                               FormatRef(pinned)});
  EXPECT_EQ(st.exit_code, 0);
  EXPECT_TRUE(st.out == binary) << "static ref via CLI not byte-exact";
  // By name it is not visible to the other agent.
  CliResult byname =
      RunCli(dir_, {"--home", home(), "--agent", "other", "get", "blob"});
  EXPECT_EQ(byname.exit_code, 1);
  EXPECT_EQ(byname.out, "");
}

TEST_F(CliInteropTest, ApiReadsWhatTheCliWrote) {
  std::string value = RandomBytes(32, 5000);
  CliResult set = RunCli(dir_, {"--home", home(), "set", "from-cli"}, value);
  ASSERT_EQ(set.exit_code, 0);
  // The CLI prints the ref; the API resolves it.
  std::string wire = set.out;
  while (!wire.empty() && (wire.back() == '\n' || wire.back() == '\r')) {
    wire.pop_back();
  }
  ASSERT_OK_AND_ASSIGN(Ref r, ParseRef(wire));
  ASSERT_OK_AND_ASSIGN(std::string got, view().Resolve(r));
  EXPECT_TRUE(got == value);
  ASSERT_OK_AND_ASSIGN(got, view().Get("from-cli"));
  EXPECT_TRUE(got == value);
}

TEST_F(CliInteropTest, SessionOnlyRefIsUnavailableToTheCli) {
  SetOptions tmp;
  tmp.persist = false;
  ASSERT_OK_AND_ASSIGN(Ref r, view().Set("tmp", "in memory only", tmp));
  CliResult res = RunCli(dir_, {"--home", home(), "resolve", FormatRef(r)});
  EXPECT_EQ(res.exit_code, 5) << "documented: 5 unavailable";
  EXPECT_EQ(res.out, "");
}

}  // namespace
}  // namespace ctxkit::testing
