// Drives the real `ctxkit` binary as a subprocess against a temporary store,
// with a controlled environment, so the CLI is tested exactly as scripts and
// agents use it.

#ifndef CTXKIT_TESTS_CLI_CLI_TEST_UTIL_H_
#define CTXKIT_TESTS_CLI_CLI_TEST_UTIL_H_

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "cli/subprocess.h"

extern char** environ;

namespace ctxkit::cli::testing {

// `s` without its trailing newline (one line of a command's output).
inline std::string Chomp(std::string s) {
  if (!s.empty() && s.back() == '\n') s.pop_back();
  return s;
}

// A fresh directory under $TMPDIR (or /tmp), removed with its contents.
class TempDir {
 public:
  TempDir() {
    const char* base = ::getenv("TMPDIR");
    std::string pattern =
        std::string(base && *base ? base : "/tmp") + "/ctxkit-cli-XXXXXX";
    std::vector<char> buf(pattern.begin(), pattern.end());
    buf.push_back('\0');
    char* made = ::mkdtemp(buf.data());
    if (made != nullptr) path_ = made;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// One test = one empty store. Run() passes --home unless told otherwise and
// scrubs CTXKIT_* / XDG_DATA_HOME / HOME from the inherited environment so
// a developer's own store is never touched.
class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(tmp_.path().empty()) << "mkdtemp failed";
    home_ = tmp_.path() + "/store";
    user_home_ = tmp_.path() + "/user";
    std::filesystem::create_directories(user_home_);
  }

  struct RunOptions {
    std::string input;
    std::vector<std::string> env;  // Extra "NAME=value" entries.
    bool pass_home = true;
  };

  ProcessResult Run(const std::vector<std::string>& args,
                    const RunOptions& opts) {
    std::vector<std::string> argv = {CTXKIT_BINARY};
    if (opts.pass_home) {
      argv.push_back("--home");
      argv.push_back(home_);
    }
    argv.insert(argv.end(), args.begin(), args.end());
    Result<ProcessResult> r = RunProcess(argv, opts.input, Env(opts.env));
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : ProcessResult{};
  }
  ProcessResult Run(const std::vector<std::string>& args) {
    return Run(args, RunOptions{});
  }
  ProcessResult RunIn(const std::vector<std::string>& args, std::string input) {
    RunOptions o;
    o.input = std::move(input);
    return Run(args, o);
  }

  // Runs and expects exit 0; returns stdout.
  std::string Ok(const std::vector<std::string>& args, std::string input = "") {
    ProcessResult r = RunIn(args, std::move(input));
    EXPECT_EQ(r.exit_code, 0) << Describe(args, r);
    return r.out;
  }

  // Runs with --json, expects exit 0 and a JSON document on stdout.
  nlohmann::json Json(std::vector<std::string> args) {
    args.insert(args.begin(), "--json");
    std::string out = Ok(args);
    nlohmann::json j = nlohmann::json::parse(out, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << "not JSON: " << out;
    return j;
  }

  static std::string Describe(const std::vector<std::string>& args,
                              const ProcessResult& r) {
    std::string cmd = "ctxkit";
    for (const auto& a : args) cmd += " " + a;
    return cmd + "\n exit " + std::to_string(r.exit_code) +
           "\n stdout: " + r.out.substr(0, 500) + "\n stderr: " + r.err;
  }

  // Everything observable about the store, to compare before and after a
  // rejected command: through the view `view` names (global options such
  // as {"--agent", "bob", "--session", "s1"}; none: the global scope).
  std::string Snapshot(const std::vector<std::string>& keys,
                       const std::vector<std::string>& view = {}) {
    auto in_view = [&](std::vector<std::string> args) {
      args.insert(args.begin(), view.begin(), view.end());
      return args;
    };
    std::string snap = Ok(in_view({"--json", "ls", "--limit", "10000"}));
    for (const auto& k : keys) {
      ProcessResult r = Run(in_view({"--json", "versions", k}));
      snap += std::to_string(r.exit_code) + r.out;
    }
    return snap;
  }

  std::vector<std::string> Env(const std::vector<std::string>& extra) const {
    std::vector<std::string> env;
    for (char** e = environ; *e != nullptr; ++e) {
      std::string_view kv(*e);
      if (kv.starts_with("CTXKIT_") || kv.starts_with("XDG_DATA_HOME=") ||
          kv.starts_with("HOME=")) {
        continue;
      }
      env.emplace_back(kv);
    }
    env.push_back("HOME=" + user_home_);
    env.insert(env.end(), extra.begin(), extra.end());
    return env;
  }

  TempDir tmp_;
  std::string home_;
  std::string user_home_;
};

}  // namespace ctxkit::cli::testing

#endif  // CTXKIT_TESTS_CLI_CLI_TEST_UTIL_H_
