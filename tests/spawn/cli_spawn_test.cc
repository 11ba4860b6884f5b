// `ctxkit spawn`, `manifest ...` and `result ...` driven as a user would:
// the real binary, a real child process (sh running the ctxkit binary).

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/cli_test_util.h"

namespace ctxkit::cli::testing {
namespace {

class CliSpawnTest : public CliTest {
 protected:
  // `ctxkit --agent planner spawn ARGS -- sh -c SCRIPT <ctxkit>`: in the
  // script, "$0" is the ctxkit binary.
  ProcessResult Spawn(std::vector<std::string> args, const std::string& script,
                      bool json = false) {
    std::vector<std::string> argv = {"--agent", "planner"};
    if (json) argv.push_back("--json");
    argv.push_back("spawn");
    argv.insert(argv.end(), args.begin(), args.end());
    argv.insert(argv.end(), {"--", "sh", "-c", script, CTXKIT_BINARY});
    return Run(argv);
  }
  std::string SetKey(const std::string& key, const std::string& value) {
    std::string ref = Ok({"--agent", "planner", "set", key, value});
    if (!ref.empty() && ref.back() == '\n') ref.pop_back();
    return ref;
  }
};

TEST_F(CliSpawnTest, ChildReadsItsRefsAndReturnsAResult) {
  SetKey("docs/report", "line one\nERROR two\nline three\nERROR four\n");
  // The child: reads the passed ref, counts, sets the key's next version
  // (which must not change what it was passed), reads again, answers.
  const std::string script =
      "set -e\n"
      "n=$(\"$0\" manifest get report | grep -c ERROR)\n"
      "\"$0\" set docs/report 'rewritten by the child' >/dev/null\n"
      "again=$(\"$0\" manifest get report | grep -c ERROR)\n"
      "prompt=$(\"$0\" manifest prompt)\n"
      "\"$0\" result set \"$prompt: $n/$again as $CTXKIT_AGENT\" >/dev/null\n";
  ProcessResult r =
      Spawn({"--ref", "report=docs/report", "--prompt", "count"}, script);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  std::string result_ref = r.out.substr(0, r.out.find('\n'));
  ASSERT_TRUE(result_ref.starts_with("ck:")) << r.out;
  EXPECT_NE(result_ref.find(":r:"), std::string::npos) << "type result";
  EXPECT_NE(result_ref.find(":a=planner.sub-"), std::string::npos);
  EXPECT_TRUE(result_ref.ends_with(":result"));
  std::string answer = Ok({"--agent", "planner", "resolve", result_ref});
  size_t as = answer.find(" as ");
  ASSERT_NE(as, std::string::npos) << answer;
  EXPECT_EQ(answer.substr(0, as), "count: 2/2");
  std::string child_agent = answer.substr(as + 4);
  EXPECT_TRUE(child_agent.starts_with("planner.sub-")) << child_agent;
  // The child's write went to the store all the same.
  EXPECT_EQ(Ok({"get", "docs/report"}), "rewritten by the child");

  // Nobody reads the child's scope by key, the parent included.
  ProcessResult by_key = Run({"--agent", "bystander", "get", "result",
                              "--scope", "agent:" + child_agent});
  EXPECT_EQ(by_key.exit_code, 3) << Describe({}, by_key);
  ProcessResult parent_by_key = Run({"--agent", "planner", "get", "result",
                                     "--scope", "agent:" + child_agent});
  EXPECT_EQ(parent_by_key.exit_code, 3);

  // The manifest stays, and `result get` reads the result from it.
  const std::string manifest = home_ + "/spawn/" + child_agent + ".json";
  ASSERT_TRUE(std::filesystem::exists(manifest));
  EXPECT_EQ(Ok({"--agent", "planner", "result", "get", "--manifest", manifest,
                "--ref"}),
            result_ref + "\n");
  EXPECT_EQ(Ok({"--agent", "planner", "result", "get", "-m", manifest}),
            answer);
  ProcessResult stranger =
      Run({"--agent", "bystander", "result", "get", "-m", manifest});
  EXPECT_EQ(stranger.exit_code, 3) << stranger.err;
}

TEST_F(CliSpawnTest, JsonReportAndEnvironment) {
  std::string doc = SetKey("doc", "hello");
  const std::string manifest = tmp_.path() + "/m.json";
  const std::string script =
      "printf '%s|%s|%s|%s' \"$CTXKIT_MANIFEST\" \"$CTXKIT_AGENT\" "
      "\"${CTXKIT_SESSION-unset}\" \"$CTXKIT_HOME\" | \"$0\" result set "
      ">/dev/null";
  ProcessResult r = Spawn({"--manifest", manifest, "--ref", "d=" + doc,
                           "--child-agent", "helper", "--child-session", "s-1"},
                          script, /*json=*/true);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  EXPECT_EQ(j["manifest"], manifest);
  EXPECT_EQ(j["child"]["agent"], "helper");
  EXPECT_EQ(j["child"]["session"], "s-1");
  EXPECT_EQ(j["exit_code"], 0);
  EXPECT_TRUE(j["error"].is_null());
  ASSERT_TRUE(j["result"].is_object());
  EXPECT_EQ(j["result"]["scope"], "agent:helper");
  std::string env = Ok({"resolve", j["result"]["ref"].get<std::string>()});
  EXPECT_EQ(env, manifest + "|helper|s-1|" +
                     std::filesystem::weakly_canonical(home_).string());

  // What a shell child sees of its manifest.
  std::vector<std::string> in_child = {"CTXKIT_MANIFEST=" + manifest};
  RunOptions o;
  o.env = in_child;
  o.pass_home = false;
  ProcessResult show = Run({"--json", "manifest", "show"}, o);
  ASSERT_EQ(show.exit_code, 0) << show.err;
  nlohmann::json m = nlohmann::json::parse(show.out);
  EXPECT_EQ(m["refs"][0]["name"], "d");
  EXPECT_EQ(m["parent"]["agent"], "planner");
  ProcessResult ref = Run({"manifest", "ref", "d"}, o);
  EXPECT_EQ(ref.exit_code, 0);
  EXPECT_EQ(ref.out, m["refs"][0]["ref"].get<std::string>() + "\n");
  ProcessResult ranged =
      Run({"manifest", "get", "d", "--offset", "1", "--length", "3"}, o);
  EXPECT_EQ(ranged.out, "ell");
  ProcessResult text = Run({"manifest", "show"}, o);
  EXPECT_NE(text.out.find("helper"), std::string::npos) << text.out;
  ProcessResult missing = Run({"manifest", "get", "nope"}, o);
  EXPECT_EQ(missing.exit_code, 1);
  // The child's verbs run as the child only.
  ProcessResult wrong_agent =
      Run({"--agent", "planner", "result", "set", "x"}, o);
  EXPECT_EQ(wrong_agent.exit_code, 3) << wrong_agent.err;
}

TEST_F(CliSpawnTest, ExitCodesPropagateAndAMissingResultIsNotFound) {
  SetKey("doc", "x");
  ProcessResult failed = Spawn({"--ref", "doc=doc"}, "exit 9");
  EXPECT_EQ(failed.exit_code, 9);
  EXPECT_EQ(failed.out, "");
  EXPECT_NE(failed.err.find("exited with code 9"), std::string::npos);

  ProcessResult silent = Spawn({"--ref", "doc=doc"}, "true");
  EXPECT_EQ(silent.exit_code, 1) << silent.err;
  EXPECT_NE(silent.err.find("no result"), std::string::npos) << silent.err;

  ProcessResult json = Spawn({}, "exit 4", /*json=*/true);
  EXPECT_EQ(json.exit_code, 4);
  nlohmann::json j = nlohmann::json::parse(json.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << json.out;
  EXPECT_EQ(j["exit_code"], 4);
  EXPECT_TRUE(j["result"].is_null());

  // A result set before a failure still comes back, with the failure.
  ProcessResult partial =
      Spawn({}, "\"$0\" result set partial >/dev/null; exit 3");
  EXPECT_EQ(partial.exit_code, 3);
  EXPECT_TRUE(partial.out.starts_with("ck:")) << partial.out;

  ProcessResult no_cmd = Run({"spawn", "--ref", "doc=doc"});
  EXPECT_EQ(no_cmd.exit_code, 2);
  ProcessResult not_found = Spawn({}, "", false);
  EXPECT_EQ(not_found.exit_code, 1) << "sh -c '' sets no result";
  ProcessResult no_such_program = Run({"spawn", "--", "/nonexistent/program"});
  EXPECT_EQ(no_such_program.exit_code, 6) << no_such_program.err;
}

TEST_F(CliSpawnTest, BadRefsAreRejectedBeforeAnythingIsWritten) {
  SetKey("doc", "x");
  std::string before = Snapshot({"doc"});
  struct Case {
    std::string ref;
    int want;
  };
  for (const Case& c : std::vector<Case>{
           {"noequals", 2},
           {"bad-name=doc", 2},
           {"class=doc", 2},
           {"d=missing/key", 1},
           {"d=ck:not-a-ref", 2},
           {"d=ck:zzzz:1:t:1:g:doc", 1},
       }) {
    ProcessResult r = Spawn({"--ref", c.ref}, "\"$0\" result set x");
    EXPECT_EQ(r.exit_code, c.want) << c.ref << ": " << r.err;
  }
  ProcessResult dup = Spawn({"--ref", "a=doc", "--ref", "a=doc"}, "true");
  EXPECT_EQ(dup.exit_code, 2) << dup.err;
  ProcessResult self = Spawn({"--child-agent", "planner"}, "true");
  EXPECT_EQ(self.exit_code, 2) << self.err;
  EXPECT_EQ(Snapshot({"doc"}), before);
  EXPECT_FALSE(std::filesystem::exists(home_ + "/spawn") &&
               !std::filesystem::is_empty(home_ + "/spawn"));
}

}  // namespace
}  // namespace ctxkit::cli::testing
