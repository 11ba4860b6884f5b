// Every documented exit code, error formatting, and that rejected input
// never changes the store.

#include <fstream>
#include <string>
#include <vector>

#include "cli/cli_app.h"
#include "cli/cli_test_util.h"
#include "ctxkit/ref.h"

namespace ctxkit::cli::testing {
namespace {

// Expects exit `code`, nothing on stdout, and one "ctxkit: ..." error, or
// with `json` one {"error": {"code", "message"}} object.
void ExpectFailure(const ProcessResult& r, int code, const std::string& what,
                   bool json = false) {
  EXPECT_EQ(r.exit_code, code) << what << "\nstderr: " << r.err;
  EXPECT_EQ(r.out, "") << what;
  if (!json) {
    EXPECT_TRUE(r.err.starts_with("ctxkit: ")) << what << "\nstderr: " << r.err;
    return;
  }
  nlohmann::json j = nlohmann::json::parse(r.err, nullptr, false);
  EXPECT_TRUE(j.is_object() && j["error"]["code"].is_string() &&
              j["error"]["message"].is_string())
      << what << "\nstderr: " << r.err;
}

TEST_F(CliTest, HelpAndVersionExitZero) {
  ProcessResult help = Run({"--help"});
  EXPECT_EQ(help.exit_code, 0);
  for (const char* want :
       {"Exit codes:", "0  ok", "1  not found", "2  bad input",
        "3  permission denied", "4  conflict", "5  unavailable", "6  I/O",
        "7  internal", "CTXKIT_HOME", "--json"}) {
    EXPECT_NE(help.out.find(want), std::string::npos) << want;
  }
  for (const char* verb : {"set", "get", "ref", "resolve", "rm", "ls",
                           "versions", "promote", "stats", "append", "demo"}) {
    EXPECT_NE(help.out.find(std::string("  ") + verb + " "), std::string::npos)
        << verb;
    EXPECT_EQ(Run({verb, "--help"}).exit_code, 0) << verb;
  }
  ProcessResult version = Run({"--version"});
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_EQ(version.out, std::string("ctxkit ") + kVersion + "\n");
}

TEST_F(CliTest, GlobalOptionsMayFollowTheVerb) {
  Ok({"set", "k", "v"});
  // Ok() puts --home first; here --json and --agent come after the verb.
  nlohmann::json ls = nlohmann::json::parse(Ok({"ls", "--json"}));
  EXPECT_EQ(ls["items"].size(), 1u);
  EXPECT_EQ(Ok({"get", "k", "--agent", "a"}), "v");
  ProcessResult unknown = Run({"frobnicate"});
  EXPECT_EQ(unknown.exit_code, kExitUsage);
  EXPECT_NE(unknown.err.find("unknown command 'frobnicate'"), std::string::npos)
      << unknown.err;
}

// A process registers the verbs up to the group of the one it runs: the
// verb is found as CLI11 finds it, past global options and their values
// (one that names a verb of an earlier group, too), and a line with help,
// no verb or an unknown one registers every verb.
TEST_F(CliTest, TheVerbIsFoundPastGlobalOptionsAndTheirValues) {
  Ok({"set", "notes/x", "needle here"});
  EXPECT_EQ(Ok({"--agent", "get", "get", "notes/x"}), "needle here");
  EXPECT_NE(Ok({"--agent=set", "--json", "search", "needle"}).find("notes/x"),
            std::string::npos);
  EXPECT_NE(Ok({"--session", "ls", "len", "notes/x"}).find("1"),
            std::string::npos);
  // Help for a verb, asked after it or before it; the program's help lists
  // every verb.
  EXPECT_NE(Ok({"search", "--help"}).find("Usage: ctxkit search"),
            std::string::npos);
  EXPECT_NE(Ok({"--help", "get"}).find("Usage: ctxkit get"), std::string::npos);
  const std::string help = Ok({"--help"});
  for (const char* verb : {"get", "search", "session", "mcp", "watch"}) {
    EXPECT_NE(help.find(verb), std::string::npos) << verb;
  }
  ProcessResult typo = Run({"--agent", "a", "serch", "needle"});
  EXPECT_EQ(typo.exit_code, kExitUsage);
  EXPECT_NE(typo.err.find("did you mean 'search'"), std::string::npos)
      << typo.err;
}

// A command line that does not parse is reported as every error is
// ("ctxkit: <code>: <message>", as --help says), and a mistyped verb or
// option names the nearest one.
TEST_F(CliTest, UsageErrorsHaveACodeAndSuggestTheNearestWord) {
  ProcessResult help = Run({"--help"});
  EXPECT_NE(help.out.find("\"ctxkit: <code>: <message>\""), std::string::npos)
      << help.out;
  ProcessResult verb = Run({"sesion", "ls"});
  EXPECT_EQ(verb.exit_code, kExitUsage);
  EXPECT_TRUE(verb.err.starts_with(
      "ctxkit: invalid_argument: unknown command 'sesion'; did you mean "
      "'session'?\n"))
      << verb.err;
  ProcessResult sub = Run({"session", "lss"});
  EXPECT_EQ(sub.exit_code, kExitUsage);
  EXPECT_NE(sub.err.find("unknown command 'session lss'; did you mean "
                         "'session ls'?"),
            std::string::npos)
      << sub.err;
  ProcessResult flag = Run({"get", "--verison", "1", "k"});  // A swap.
  EXPECT_EQ(flag.exit_code, kExitUsage);
  EXPECT_NE(flag.err.find("did you mean '--version'?"), std::string::npos)
      << flag.err;
  ProcessResult global = Run({"ls", "--jsno"});
  EXPECT_NE(global.err.find("did you mean '--json'?"), std::string::npos)
      << global.err;
  // Nothing close: no guess.
  ProcessResult far = Run({"frobnicate"});
  EXPECT_EQ(far.err.find("did you mean"), std::string::npos) << far.err;
}

TEST_F(CliTest, NotFoundExitsOne) {
  Ok({"set", "present", "x"});
  ExpectFailure(Run({"get", "missing"}), kExitNotFound, "get");
  ExpectFailure(Run({"ref", "missing"}), kExitNotFound, "ref");
  ExpectFailure(Run({"versions", "missing"}), kExitNotFound, "versions");
  ExpectFailure(Run({"rm", "missing"}), kExitNotFound, "rm");
  ExpectFailure(Run({"stat", "missing"}), kExitNotFound, "stat");
  ExpectFailure(Run({"get", "present", "--version", "99"}), kExitNotFound,
                "get --version");
  ExpectFailure(Run({"set", "k", "--file", tmp_.path() + "/no-such-file"}),
                kExitNotFound, "--file");
  // A well-formed ref to an object this store never had.
  std::string wire = Chomp(Ok({"ref", "present"}));
  Result<Ref> ref = ParseRef(wire);
  ASSERT_TRUE(ref.ok());
  ref->id = "zzzzzz";
  ExpectFailure(Run({"resolve", FormatRef(*ref)}), kExitNotFound, "resolve");
}

TEST_F(CliTest, UsageErrorsExitTwo) {
  const std::vector<std::vector<std::string>> cases = {
      {},                                            // No verb.
      {"frobnicate"},                                // Unknown verb.
      {"ls", "--bogus"},                             // Unknown flag.
      {"get"},                                       // Missing KEY.
      {"get", "k", "--version", "abc"},              // Not a number.
      {"get", "k", "--version", "-1"},               // Negative.
      {"ls", "--limit", "0"},                        // Out of range.
      {"ls", "--type", "nonsense"},                  // Unknown type.
      {"set", "k", "v", "--type", "nope"},           // Unknown type.
      {"set", "", "v"},                              // Empty key.
      {"set", "a\x01z", "v"},                        // Control character.
      {"set", std::string(257, 'k'), "v"},           // Too long.
      {"set", "bad\xff", "v"},                       // Not UTF-8.
      {"get", "a\nb"},                               // Control character.
      {"set", "j", "{oops", "--type", "json"},       // Invalid JSON.
      {"set", "k", "v", "--file", "/etc/hostname"},  // VALUE and --file.
      {"resolve", "not-a-ref"},                      // Malformed ref.
      {"resolve", "ck:"},                            // Truncated ref.
      {"--agent", "no spaces", "ls"},                // Bad agent id.
      {"--session", std::string(65, 's'), "ls"},     // Bad session id.
      {"set", "k", "v", "--tag", ""},                // Empty tag.
      {"set", "k", "v", "--scope", "galaxy"},        // Unknown scope.
      {"set", "k", "v", "--scope", "agent"},         // No --agent for it.
  };
  for (const auto& args : cases) {
    ProcessResult r = Run(args);
    ExpectFailure(r, kExitUsage, Describe(args, r));
  }
}

// Arguments and input that are not UTF-8, some quoted back in the
// message: bad input (exit 2) with a "ctxkit: ..." error, or with --json
// one valid JSON object (the bytes replaced), never an internal error.
TEST_F(CliTest, InputThatIsNotUtf8IsBadInputNotAnInternalError) {
  const std::string l1 = "caf\xe9";
  Ok({"set", "k", "v"});
  Ok({"session", "new", "s"});
  const std::string log = tmp_.path() + "/log.json";
  std::ofstream(log) << "{\"messages\": [{\"role\": \"user\", \"content\": \""
                     << l1 << "\"}]}";
  for (const bool json : {false, true}) {
    auto args = [&](std::vector<std::string> a) {
      if (json) a.insert(a.begin(), "--json");
      return a;
    };
    const std::string mode = json ? " --json" : "";
    ExpectFailure(Run(args({"set", l1, "v"})), kExitUsage, "set KEY" + mode,
                  json);
    ExpectFailure(Run(args({"get", l1})), kExitUsage, "get KEY" + mode, json);
    ExpectFailure(Run(args({"get", "ck:abc:1:t:5:g:" + l1})), kExitUsage,
                  "get REF" + mode, json);
    ExpectFailure(Run(args({"set", "k", "v", "--tag", l1})), kExitUsage,
                  "--tag" + mode, json);
    ExpectFailure(Run(args({"set", "k", "v", "--scope", l1})), kExitUsage,
                  "--scope" + mode, json);
    ExpectFailure(RunIn(args({"set", "k", "-", "--type", "json"}),
                        "{\"k\": \"" + l1 + "\"}"),
                  kExitUsage, "set --type json" + mode, json);
    ExpectFailure(Run(args({"session", "new", l1})), kExitUsage,
                  "session new" + mode, json);
    ExpectFailure(Run(args({"session", "activate", "s", l1})), kExitUsage,
                  "session activate" + mode, json);
    ExpectFailure(Run(args({"session", "ingest", "s", log})), kExitUsage,
                  "session ingest" + mode, json);
  }
  EXPECT_EQ(Ok({"get", "k"}), "v");
}

TEST_F(CliTest, RejectedInputLeavesStoreUnchanged) {
  Ok({"set", "cfg", "{\"ok\": true}", "--type", "json"});
  Ok({"set", "doc", "v1"});
  const std::vector<std::string> keys = {"cfg", "doc"};
  const std::string before = Snapshot(keys);

  EXPECT_EQ(Run({"set", "cfg", "{broken", "--type", "json"}).exit_code, 2);
  EXPECT_EQ(RunIn({"set", "cfg", "--type", "json"}, "[1,").exit_code, 2);
  EXPECT_EQ(Run({"set", "", "v"}).exit_code, 2);
  EXPECT_EQ(Run({"set", "doc\x7f", "v"}).exit_code, 2);
  EXPECT_EQ(Run({"set", "doc", "v", "--type", "nope"}).exit_code, 2);
  EXPECT_EQ(Run({"set", "doc", "v", "--tag", "bad\ttag"}).exit_code, 2);
  EXPECT_EQ(Run({"set", "doc", "v", "--bogus"}).exit_code, 2);
  EXPECT_EQ(Run({"--agent", "x y", "set", "doc", "v"}).exit_code, 2);
  EXPECT_EQ(Run({"set", "doc", "v", "--scope", "agent:someone"}).exit_code, 3);
  EXPECT_EQ(Run({"append", "doc", "more"}).exit_code, 4);
  EXPECT_EQ(Run({"rm", "nope"}).exit_code, 1);
  EXPECT_EQ(Run({"promote", "doc"}).exit_code != 0, true);

  EXPECT_EQ(Snapshot(keys), before);
  EXPECT_EQ(Ok({"get", "cfg"}), "{\"ok\": true}");
}

TEST_F(CliTest, OtherAgentsScopeExitsThree) {
  Ok({"--agent", "alice", "set", "secret", "TOPSECRET", "--scope", "agent"});
  ProcessResult get =
      Run({"--agent", "bob", "get", "secret", "--scope", "agent:alice"});
  ExpectFailure(get, kExitPermissionDenied, "get");
  EXPECT_EQ(get.err.find("TOPSECRET"), std::string::npos);
  ExpectFailure(Run({"--agent", "bob", "ls", "--scope", "agent:alice"}),
                kExitPermissionDenied, "ls");
  ExpectFailure(
      Run({"--agent", "bob", "versions", "secret", "--scope", "agent:alice"}),
      kExitPermissionDenied, "versions");
  ExpectFailure(Run({"--session", "s2", "get", "x", "--scope", "session:s1"}),
                kExitPermissionDenied, "session");
  // Bob's own listing never shows Alice's key.
  nlohmann::json ls = Json({"--agent", "bob", "ls"});
  for (const auto& item : ls["items"]) EXPECT_NE(item["key"], "secret");
}

TEST_F(CliTest, PromoteConflictExitsFour) {
  Ok({"set", "shared", "global one"});
  Ok({"--agent", "alice", "set", "shared", "alice's", "--scope", "agent"});
  ExpectFailure(Run({"--agent", "alice", "promote", "shared"}), kExitConflict,
                "promote");
  EXPECT_EQ(Ok({"get", "shared"}), "global one");
  EXPECT_EQ(Ok({"--agent", "alice", "get", "shared", "--scope", "agent"}),
            "alice's");
  // Appending to a non-stream is the wrong state for the verb.
  ExpectFailure(Run({"append", "shared", "x"}), kExitConflict, "append");
}

TEST_F(CliTest, UnusableHomeExitsSix) {
  std::string file = tmp_.path() + "/not-a-dir";
  std::FILE* f = std::fopen(file.c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fclose(f);
  ExpectFailure(Run({"--home", file, "ls"}), kExitIoError, "ls");
  RunOptions o;
  o.pass_home = false;
  o.env = {"CTXKIT_HOME=" + file + "/sub"};
  ProcessResult demo = Run({"demo"}, o);
  EXPECT_EQ(demo.exit_code, kExitIoError);
  EXPECT_TRUE(demo.err.starts_with("ctxkit: demo failed: ")) << demo.err;
}

TEST_F(CliTest, SessionOnlyRefFromAnotherProcessExitsFive) {
  nlohmann::json ref = Json({"set", "tmp", "ephemeral", "--no-persist"});
  EXPECT_EQ(ref["session_only"], true);
  std::string wire = ref["ref"];
  ProcessResult r = Run({"resolve", wire});
  ExpectFailure(r, kExitUnavailable, "resolve session-only");
  // Never written to disk: not visible after the process that held it.
  EXPECT_EQ(Run({"get", "tmp"}).exit_code, kExitNotFound);
}

}  // namespace
}  // namespace ctxkit::cli::testing
