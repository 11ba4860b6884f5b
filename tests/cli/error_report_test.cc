// How a failure is reported: one "ctxkit: <code>: <message>" line on
// stderr, or with --json one JSON object {"error":{"code","message"}}, and
// the same exit code either way (cli_app.cc, ReportFailure).

#include <string>
#include <vector>

#include "cli/cli_app.h"
#include "cli/cli_test_util.h"

namespace ctxkit::cli::testing {
namespace {

struct Case {
  std::vector<std::string> args;
  int exit_code;
  std::string err;  // The whole of stderr, byte for byte.
};

// Representative failures of verbs, of the global options and of parsing.
std::vector<Case> Representative() {
  return {
      {{"get", "missing"},
       kExitNotFound,
       "ctxkit: not_found: no key 'missing' in global\n"},
      {{"set", "k", "v", "--type", "nope"},
       kExitUsage,
       "ctxkit: invalid_argument: --type: unknown type 'nope' (expected "
       "text, json, memory, result, stream, toolcall, file, note or chat)\n"},
      {{"append", "present", "more"},
       kExitConflict,
       "ctxkit: failed_precondition: 'present' holds a text value; append "
       "works only on streams and chats\n"},
      {{"manifest", "prompt"},
       kExitUsage,
       "ctxkit: invalid_argument: no manifest: pass --manifest FILE or set "
       "CTXKIT_MANIFEST\n"},
      {{"--agent", "bob", "get", "k", "--scope", "agent:alice"},
       kExitPermissionDenied,
       "ctxkit: permission_denied: --scope: scope agent:alice belongs to "
       "another agent or session; this view sees only global, agent:bob "
       "(pass a ref to share a value)\n"},
      {{"--agent", "no spaces", "ls"},
       kExitUsage,
       "ctxkit: invalid_argument: --agent: agent/session id 'no spaces' may "
       "contain only letters, digits, '.', '_' and '-'\n"},
      {{"frobnicate"},
       kExitUsage,
       "ctxkit: invalid_argument: unknown command 'frobnicate'\n"
       "Run with --help for more information.\n"},
  };
}

TEST_F(CliTest, ErrorsKeepTheirTextAndExitCode) {
  Ok({"set", "present", "x"});
  for (const Case& c : Representative()) {
    ProcessResult r = Run(c.args);
    EXPECT_EQ(r.exit_code, c.exit_code) << Describe(c.args, r);
    EXPECT_EQ(r.err, c.err) << Describe(c.args, r);
    EXPECT_EQ(r.out, "") << Describe(c.args, r);
  }
}

// With --json (before or after the verb), stderr is one line of JSON with
// the code and message of the text form, and nothing else; the exit code
// is the same.
TEST_F(CliTest, ErrorsUnderJsonAreOneJsonObject) {
  Ok({"set", "present", "x"});
  for (const Case& c : Representative()) {
    const std::string text = c.err.substr(0, c.err.find('\n'));
    const std::string code_and_message = text.substr(text.find(' ') + 1);
    const size_t colon = code_and_message.find(": ");
    for (const bool after : {false, true}) {
      std::vector<std::string> args = c.args;
      args.insert(after ? args.end() : args.begin(), "--json");
      ProcessResult r = Run(args);
      EXPECT_EQ(r.exit_code, c.exit_code) << Describe(args, r);
      EXPECT_EQ(r.out, "") << Describe(args, r);
      ASSERT_TRUE(r.err.ends_with("}\n")) << Describe(args, r);
      EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << Describe(args, r);
      nlohmann::json j = nlohmann::json::parse(r.err, nullptr, false);
      ASSERT_TRUE(j.is_object()) << Describe(args, r);
      EXPECT_EQ(
          j,
          (nlohmann::json{{"error",
                           {{"code", code_and_message.substr(0, colon)},
                            {"message", code_and_message.substr(colon + 2)}}}}))
          << Describe(args, r);
    }
  }
}

TEST_F(CliTest, HelpShowsTheJsonFormOfErrors) {
  ProcessResult help = Run({"--help"});
  EXPECT_NE(help.out.find("{\"error\":{\"code\":\"<code>\",\"message\":"
                          "\"<message>\"}}"),
            std::string::npos)
      << help.out;
}

// `spawn --json` reports on stdout as before: a child's exit code passes
// through with its line on stderr, and a missing result is in the report
// (its exit code, nothing on stderr).
TEST_F(CliTest, SpawnUnderJsonReportsOnStdout) {
  ProcessResult r = Run({"--json", "spawn", "--", "/bin/sh", "-c", "exit 9"});
  EXPECT_EQ(r.exit_code, 9) << r.err;
  EXPECT_EQ(r.err, "ctxkit: spawn: the child exited with code 9\n");
  EXPECT_EQ(nlohmann::json::parse(r.out, nullptr, false)["exit_code"], 9)
      << r.out;
  ProcessResult none = Run({"--json", "spawn", "--", "/bin/true"});
  EXPECT_EQ(none.exit_code, kExitNotFound) << none.err;
  EXPECT_EQ(none.err, "");
  nlohmann::json report = nlohmann::json::parse(none.out, nullptr, false);
  ASSERT_TRUE(report.is_object()) << none.out;
  EXPECT_TRUE(report["error"].get<std::string>().starts_with("not_found: "))
      << none.out;
}

}  // namespace
}  // namespace ctxkit::cli::testing
