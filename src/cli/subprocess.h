// Running a child process with given argv, environment and stdin, and
// capturing its stdout, stderr and exit status. `ctxkit demo` uses it to
// prove that another process sees the store; the CLI tests use it to drive
// the real binary.

#ifndef CTXKIT_CLI_SUBPROCESS_H_
#define CTXKIT_CLI_SUBPROCESS_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ctxkit/status.h"

namespace ctxkit::cli {

struct ProcessResult {
  // The exit status, or 128 + signal number when the child was killed.
  int exit_code = -1;
  bool signaled = false;
  std::string out;
  std::string err;
};

// Runs argv[0] (a path, or a bare name looked up in PATH) with `argv`,
// feeding `input` on its stdin and then closing it. `env`: the complete
// environment as "NAME=value" strings, or nullopt to inherit this process's.
// Blocks until the child exits. IoError when the child cannot be started.
//
// Thread safety: safe to call from several threads; SIGPIPE is blocked only
// in the calling thread while it writes the child's stdin.
Result<ProcessResult> RunProcess(
    const std::vector<std::string>& argv, std::string_view input = {},
    const std::optional<std::vector<std::string>>& env = std::nullopt);

// Runs argv[0] (a path, or a bare name looked up in PATH) with `argv` and
// the complete environment `env` ("NAME=value" strings), sharing this
// process's stdin, stdout and stderr, and waits for it. Returns its exit
// status, or 128 + signal number when it was killed. Like system(3), this
// process ignores SIGINT and SIGQUIT while it waits (a terminal's Ctrl-C
// reaches the child, which decides), and the child starts with default
// dispositions and an empty signal mask. IoError when it cannot be started.
//
// Thread safety: changes the process-wide SIGINT/SIGQUIT dispositions for
// the duration of the call; not for concurrent use with other signal setup.
Result<int> RunForeground(const std::vector<std::string>& argv,
                          const std::vector<std::string>& env);

// The path of the running executable (/proc/self/exe resolved).
Result<std::string> SelfExecutable();

// Replaces this process with the program at `path` (execv), run with `argv`
// and this process's environment, stdin, stdout and stderr. Flushes stdio
// first. Returns only on failure: IoError naming `path`.
Status ExecProgram(const std::string& path,
                   const std::vector<std::string>& argv);

}  // namespace ctxkit::cli

#endif  // CTXKIT_CLI_SUBPROCESS_H_
