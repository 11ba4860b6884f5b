// Every shell command that README.md and docs/cli.md show, run in order
// against a temporary store, exactly as written. The commands are read from
// the markdown's ```sh blocks when the test runs, so a new example is
// covered without touching this file; the few that cannot run in a test are
// skipped by the explicit list below, each with its reason.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli_test_util.h"

namespace ctxkit::cli::testing {
namespace {

namespace fs = std::filesystem;

// The documents whose examples must be true, in the order they run.
const char* const kDocuments[] = {"README.md", "docs/cli.md"};

// Commands that cannot run here, by their exact text (comment stripped).
const std::map<std::string, std::string>& Skipped() {
  static const auto* skipped = new std::map<std::string, std::string>{
      // Building and testing the project from inside its own tests.
      {"make run", "builds the project and runs the demo"},
      {"make test", "runs this very test suite"},
      // Installing into the system (tests/install/run.sh installs into a
      // temporary prefix and builds a consumer against it).
      {"sudo make install", "installs into /usr/local"},
      {"PREFIX=~/.local make install", "installs into the user's home"},
      {"export PATH=\"$HOME/.local/bin:$PATH\"", "changes the test's PATH"},
      // The Python package (tests/python/install_test.sh pip-installs it
      // into a fresh venv; building it here would compile the library).
      {"python3 -m venv .venv && .venv/bin/pip install --no-build-isolation .",
       "builds the Python package from the source tree"},
      // Third-party client, not installed in tests.
      {"claude mcp add ctxkit -- ctxkit mcp", "needs the Claude Code CLI"},
      {"claude mcp add --transport http ctxkit http://127.0.0.1:8765/mcp",
       "needs the Claude Code CLI"},
      // Long-running servers and daemons (tested in tests/mcp, tests/watch).
      {"ctxkit serve &", "a background server on a fixed port"},
      {"ctxkit watch add ~/src/project && ctxkit watch run",
       "watch run is a foreground daemon that runs until signalled"},
      // A PostgreSQL server of the reader's (the pg. suites test the
      // engine against one of their own).
      {"export CTXKIT_STORE_URL='postgresql://ctxkit@db.internal/ctxkit'",
       "names a server that does not exist here"},
      // The test provides its own temporary store through CTXKIT_HOME.
      {"export CTXKIT_HOME=/tmp/ctx", "would leave the temporary store"},
  };
  return *skipped;
}

// One command from a document, with where it came from.
struct Example {
  std::string where;  // "README.md:190"
  std::string command;
};

// `line` without a trailing shell comment: a '#' outside quotes that
// starts a word.
std::string StripComment(const std::string& line) {
  char quote = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quote != 0) {
      if (c == quote) quote = 0;
      if (c == '\\' && quote == '"') ++i;
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '\\') {
      ++i;
    } else if (c == '#' && (i == 0 || line[i - 1] == ' ')) {
      std::string out = line.substr(0, i);
      while (!out.empty() && out.back() == ' ') out.pop_back();
      return out;
    }
  }
  return line;
}

// The commands of every ```sh block of `path`, continuation lines joined.
std::vector<Example> ShellExamples(const std::string& name) {
  std::ifstream in(std::string(CTXKIT_SOURCE_DIR) + "/" + name);
  EXPECT_TRUE(in.good()) << "cannot read " << name;
  std::vector<Example> out;
  std::string line;
  bool in_sh = false;
  std::string pending;
  int number = 0;
  int pending_line = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.starts_with("```")) {
      in_sh = !in_sh && line == "```sh";
      continue;
    }
    if (!in_sh) continue;
    std::string command = StripComment(line);
    if (pending.empty()) pending_line = number;
    if (!command.empty() && command.back() == '\\') {
      command.pop_back();
      pending += command;
      continue;
    }
    pending += command;
    if (!pending.empty()) {
      out.push_back({name + ":" + std::to_string(pending_line), pending});
    }
    pending.clear();
  }
  return out;
}

void WriteFile(const fs::path& path, const std::string& bytes) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << bytes;
}

// The files the examples read, in the directory they run in.
void CreateInputs(const fs::path& work, const fs::path& user_home) {
  std::string build_log;
  for (int i = 0; i < 200; ++i) {
    build_log += "[" + std::to_string(i) + "] cc -c src/module_" +
                 std::to_string(i) + ".c" +
                 (i % 50 == 7 ? "  error: 'ssl_ctx' undeclared\n" : "  ok\n");
  }
  WriteFile(work / "build.log", build_log);
  WriteFile(work / "big.log", build_log + build_log);
  WriteFile(work / "config.json", R"({"retries": 3, "hosts": ["a", "b"]})");
  WriteFile(work / "chat.json", R"({"messages": [
    {"role": "system", "content": "You review builds."},
    {"role": "user", "content": "Why did the build fail?"},
    {"role": "assistant", "content": null, "tool_calls": [{"id": "c1",
      "type": "function", "function": {"name": "grep",
      "arguments": "{\"pattern\": \"error\"}"}}]},
    {"role": "tool", "tool_call_id": "c1",
     "content": "src/net/tls.c:88: error: 'ssl_ctx' undeclared"},
    {"role": "assistant", "content": "ssl_ctx is undeclared in tls.c."}]})");
  WriteFile(user_home / "src/project/main.c", "int main(void) { return 0; }\n");
}

std::string ShellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

TEST_F(CliTest, EveryDocumentedCommandRuns) {
  std::vector<Example> examples;
  for (const char* doc : kDocuments) {
    std::vector<Example> found = ShellExamples(doc);
    examples.insert(examples.end(), found.begin(), found.end());
  }
  // A sanity floor: the extraction itself must find the documents' examples.
  ASSERT_GE(examples.size(), 25u);

  const fs::path work = fs::path(tmp_.path()) / "work";
  const fs::path bin = fs::path(tmp_.path()) / "bin";
  fs::create_directories(work);
  fs::create_directories(bin);
  fs::create_symlink(CTXKIT_BINARY, bin / "ctxkit");
  CreateInputs(work, user_home_);

  // One bash script, so that variables set by one example (ref=$(...)) reach
  // the next; each command reports its own failure and the script goes on.
  std::string script =
      "set -o pipefail\ncd " + ShellQuote(work.string()) + " || exit 99\n";
  std::vector<const Example*> run;
  std::set<std::string> skipped_seen;
  for (const Example& e : examples) {
    if (Skipped().count(e.command) > 0) {
      skipped_seen.insert(e.command);
      continue;
    }
    // pipefail catches a failing ctxkit before a pipe; 141 (SIGPIPE) is
    // what `ctxkit ... | head` gives when head stops reading, as in a shell.
    script += e.command + " || { c=$?; [ $c -eq 141 ] || echo " +
              "\"docs-example-failed " + std::to_string(run.size()) +
              " $c\" >&2; }\n";
    run.push_back(&e);
  }
  // A skip entry whose command left the docs is stale: drop it.
  for (const auto& [command, reason] : Skipped()) {
    EXPECT_EQ(skipped_seen.count(command), 1u)
        << "skip list names a command the docs no longer show: " << command;
  }

  RunOptions opts;
  opts.pass_home = false;
  const char* path = ::getenv("PATH");
  opts.env = {"PATH=" + bin.string() + ":" + (path ? path : "/usr/bin:/bin"),
              "CTXKIT_HOME=" + home_,
              "CTXKIT_TOOL_CONTEXT_DIR=" + (work / "tool-context").string(),
              "SFA_CONTEXT_STORE=" + (work / "notes").string()};
  std::vector<std::string> argv = {"/bin/bash", "-c", script};
  Result<ProcessResult> r = RunProcess(argv, "", Env(opts.env));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->exit_code, 0) << r->err;

  std::istringstream err(r->err);
  std::string line;
  int failures = 0;
  while (std::getline(err, line)) {
    size_t at = line.find("docs-example-failed ");
    if (at == std::string::npos) continue;
    std::istringstream fields(line.substr(at + 20));
    size_t index = 0;
    int code = 0;
    fields >> index >> code;
    ASSERT_LT(index, run.size());
    ++failures;
    ADD_FAILURE() << run[index]->where << ": `" << run[index]->command
                  << "` exited " << code << "\nstderr of the run:\n"
                  << r->err;
  }
  EXPECT_EQ(failures, 0);
}

}  // namespace
}  // namespace ctxkit::cli::testing
