// Drives the real `ctxkit` binary through the shell against a store in a
// fresh temporary home: for tests that write a command line as a script
// would (quoted words, piped input).

#ifndef CTXKIT_TESTS_COMMON_CLI_SHELL_TEST_H_
#define CTXKIT_TESTS_COMMON_CLI_SHELL_TEST_H_

#include <gtest/gtest.h>
#include <stdio.h>
#include <sys/wait.h>

#include <array>
#include <filesystem>
#include <string>
#include <system_error>
#include <utility>

#include "common/temp_store.h"

namespace ctxkit::testing {

class CliShellTest : public ::testing::Test {
 protected:
  // `prefix` names the temporary home ($TMPDIR/<prefix>-XXXXXX).
  explicit CliShellTest(std::string prefix) : prefix_(std::move(prefix)) {}

  void SetUp() override {
    home_ = MakeTempDir(prefix_);
    ASSERT_FALSE(home_.empty()) << "mkdtemp failed";
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(home_, ec);
  }

  // Runs `ctxkit --home <home> <args>` (`args`: shell words) with
  // CTXKIT_EMBED_URL unset (embeddings only where a test asks for them)
  // and `input`, when given, as printf's format on its stdin. Returns its
  // stdout (stderr is dropped) and sets *code to its exit status (-1 when
  // it did not exit).
  std::string Run(const std::string& args, int* code,
                  const std::string& input = "") {
    const std::string cmd = (input.empty() ? "" : "printf '" + input + "' | ") +
                            "env -u CTXKIT_EMBED_URL " +
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

 private:
  std::string prefix_;
};

}  // namespace ctxkit::testing

#endif  // CTXKIT_TESTS_COMMON_CLI_SHELL_TEST_H_
