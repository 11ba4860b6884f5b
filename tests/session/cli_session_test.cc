// The session verbs through the real binary: state written by one process
// is resumed by the next, and matches what the library renders.

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/cli_test_util.h"
#include "ctxkit/session.h"
#include "ctxkit/store.h"
#include "session/log_builders.h"

namespace ctxkit {
namespace {

using nlohmann::json;

class CliSessionTest : public cli::testing::CliTest {
 protected:
  std::string WriteLog(const std::string& name, const json& log) {
    std::string path = tmp_.path() + "/" + name;
    std::ofstream(path) << log.dump();
    return path;
  }
};

TEST_F(CliSessionTest, SessionResumedAcrossProcesses) {
  EXPECT_EQ(Ok({"session", "new", "run1", "--keep", "2",
                "--min-collapse-tokens", "0"}),
            "run1\n");
  Ok({"set", "notes/plan", "the plan v1"});
  Ok({"set", "notes/plan", "the plan v2"});
  const std::string log = WriteLog("log.json", testing::OpenAILog(4));
  json ing = Json({"session", "ingest", "run1", log, "--format", "openai"});
  EXPECT_EQ(ing["messages_added"], 16);
  EXPECT_EQ(ing["toolcalls_recorded"], 4);
  // A second ingestion (another process) adds nothing.
  EXPECT_EQ(Json({"session", "ingest", "run1", log})["messages_added"], 0);
  Ok({"session", "pin", "run1", "notes/plan", "--version", "1"});
  Ok({"session", "activate", "run1", "notes/plan"});

  // Locked objects are refused with a clear message and exit code 4.
  auto r = Run({"session", "deactivate", "run1", "chat"});
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_NE(r.err.find("locked"), std::string::npos) << r.err;
  // Unknown session, bad format: errors, not crashes.
  EXPECT_EQ(Run({"session", "show", "nope"}).exit_code, 1);
  EXPECT_EQ(
      Run({"render", "run1", "--budget", "100", "--format", "x"}).exit_code, 2);

  json show = Json({"session", "show", "run1"});
  EXPECT_EQ(show["chat_messages"], 16);
  int pinned = 0, active = 0;
  for (const auto& e : show["entries"]) {
    pinned += e["pinned_version"].get<int>() != 0 ? 1 : 0;
    active += e["active"].get<bool>() ? 1 : 0;
  }
  EXPECT_EQ(pinned, 1);
  // The plan and every tool output: nothing collapses before a render
  // puts the budget under pressure.
  EXPECT_EQ(active, 5);

  std::string out = Ok({"render", "run1", "--budget", "20000"});
  json rendered = json::parse(out);
  EXPECT_LE(rendered["tokens"].get<uint64_t>(), 20000u);
  EXPECT_EQ(rendered["conflicts"].size(), 1u);
  EXPECT_EQ(rendered["record"], 1);
  // Byte-identical from another process, and recorded again.
  json again = json::parse(Ok({"render", "run1", "--budget", "20000"}));
  EXPECT_EQ(again["request"], rendered["request"]);
  EXPECT_EQ(again["record"], 2);
  // A recorded render replays byte for byte, with the same report.
  json replayed = json::parse(Ok({"render", "run1", "--at", "1"}));
  EXPECT_EQ(replayed["request"], rendered["request"]);
  EXPECT_EQ(replayed["conflicts"], rendered["conflicts"]);
  json report = rendered;
  report.erase("request");
  replayed.erase("request");
  EXPECT_EQ(replayed, report);
  EXPECT_EQ(Run({"render", "run1", "--at", "9"}).exit_code, 1);
  EXPECT_EQ(Run({"render", "run1"}).exit_code, 2);

  // And the library, opening the store afresh, resumes the same session.
  Options o;
  o.home = home_;
  auto store = Store::Open(o);
  ASSERT_TRUE(store.ok());
  auto s = Session::Open(**store, "run1");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  auto mine = (*s)->Render({.budget_tokens = 20000});
  ASSERT_TRUE(mine.ok());
  EXPECT_EQ(json::parse(mine->request_json), rendered["request"]);

  json ls = Json({"session", "ls"});
  EXPECT_EQ(ls["sessions"], json::array({"run1"}));
}

TEST_F(CliSessionTest, AnthropicRenderHasCacheBreakpoints) {
  Ok({"session", "new", "a1"});
  const std::string log = WriteLog("a.json", testing::AnthropicLog(3));
  Ok({"session", "ingest", "a1", log, "--format", "anthropic"});
  json r = json::parse(
      Ok({"render", "a1", "--budget", "50000", "--format", "anthropic"}));
  EXPECT_EQ(r["request"]["system"].back()["cache_control"]["type"],
            "ephemeral");
  // Malformed input: a usage error, and the session is unchanged.
  const std::string bad = WriteLog("bad.json", json{{"messages", 5}});
  auto before = Ok({"--json", "session", "show", "a1"});
  auto res = Run({"session", "ingest", "a1", bad, "--format", "anthropic"});
  EXPECT_EQ(res.exit_code, 2) << res.err;
  EXPECT_EQ(Ok({"--json", "session", "show", "a1"}), before);
}

TEST_F(CliSessionTest, AppendCompactDiffAndExpand) {
  Ok({"session", "new", "c1", "--keep-turns", "1", "--summary-tokens", "64"});
  const json msgs = testing::OpenAILog(12, 30)["messages"];
  json head = json::array(), tail = json::array();
  for (size_t i = 0; i < msgs.size(); ++i) {
    (i < 25 ? head : tail).push_back(msgs[i]);
  }
  Ok({"session", "ingest", "c1", WriteLog("head.json", {{"messages", head}})});
  json ing = Json(
      {"session", "ingest", "c1", WriteLog("tail.json", tail), "--append"});
  EXPECT_EQ(ing["messages_added"], 24);
  json wide = json::parse(Ok({"render", "c1", "--budget", "100000"}));
  EXPECT_TRUE(wide["compacted"].is_null());
  json narrow = json::parse(Ok({"render", "c1", "--budget", "1100"}));
  EXPECT_LE(narrow["tokens"].get<uint64_t>(), 1100u);
  ASSERT_FALSE(narrow["compacted"].is_null()) << narrow.dump();
  const std::string ref = narrow["compacted"]["ref"];
  // The compaction gives back exactly the messages it replaced.
  const std::string lines = Ok({"session", "expand", "c1", ref});
  const uint64_t first = narrow["compacted"]["first_message"];
  const uint64_t end = narrow["compacted"]["end_message"];
  EXPECT_EQ(static_cast<uint64_t>(std::count(lines.begin(), lines.end(), '\n')),
            end - first);
  EXPECT_NE(lines.find("Please look for thing 0"), std::string::npos);
  json diff = Json({"session", "diff", "c1", "1", "2"});
  ASSERT_EQ(diff["compacted"].size(), 1u);
  EXPECT_EQ(diff["compacted"][0]["ref"], ref);
  // session show: the records and the last render's breakdown.
  json show = Json({"session", "show", "c1"});
  EXPECT_EQ(show["renders"], 2);
  EXPECT_EQ(show["last_render"]["tokens"], narrow["tokens"]);
  EXPECT_EQ(show["last_render"]["breakdown"], narrow["breakdown"]);
  EXPECT_EQ(show["compactions"].size(), 1u);
  EXPECT_NE(Ok({"session", "show", "c1"}).find("the last used "),
            std::string::npos);
  // The oldest output left the render: collapsed to its placeholder, or
  // folded into the compaction with its turn.
  std::vector<std::string> gone;
  for (const char* list : {"collapsed", "left"}) {
    for (const json& k : diff[list]) gone.push_back(k.get<std::string>());
  }
  EXPECT_NE(std::find(gone.begin(), gone.end(), "toolcall:call_0"), gone.end())
      << diff.dump();
  // Appending in another format is refused; the session is unchanged.
  auto before = Ok({"--json", "session", "show", "c1"});
  auto r = Run({"session", "ingest", "c1", WriteLog("t2.json", tail),
                "--append", "--format", "anthropic"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_EQ(Ok({"--json", "session", "show", "c1"}), before);
}

// A value that is not UTF-8, bad in its first line or after it: activated,
// pinned and rendered (each ill-formed sequence shown as U+FFFD), and the
// render replays; the value itself still reads back byte for byte.
TEST_F(CliSessionTest, ValuesThatAreNotUtf8RenderAndReplay) {
  const std::string first = "caf\xe9\n", later = "ok line\ncaf\xe9 more\n";
  Ok({"session", "new", "u"});
  Ok({"set", "first", "-"}, first);
  Ok({"set", "later", "-"}, later);
  EXPECT_EQ(Ok({"session", "activate", "u", "first"}), "activated\n");
  Ok({"session", "pin", "u", "later"});
  json show = Json({"session", "show", "u"});
  ASSERT_EQ(show["entries"].size(), 2u);
  EXPECT_EQ(show["entries"][0]["title"], "caf\xef\xbf\xbd");
  const std::string out = Ok({"render", "u", "--budget", "5000"});
  json rendered = json::parse(out);
  const std::string request = rendered["request"].dump();
  EXPECT_NE(request.find("caf\xef\xbf\xbd\\n"), std::string::npos) << request;
  EXPECT_NE(request.find("caf\xef\xbf\xbd more"), std::string::npos) << request;
  json replayed = json::parse(Ok({"render", "u", "--at", "1"}));
  EXPECT_EQ(replayed["request"], rendered["request"]);
  EXPECT_EQ(Ok({"get", "first"}), first);
  EXPECT_EQ(Ok({"get", "later"}), later);
  Ok({"session", "deactivate", "u", "first"});
  Ok({"render", "u", "--budget", "5000", "--format", "anthropic"});
}

TEST_F(CliSessionTest, ForkStartsFromARecordedRender) {
  Ok({"session", "new", "p"});
  Ok({"session", "ingest", "p", WriteLog("a.json", testing::OpenAILog(2))});
  json first = json::parse(Ok({"render", "p", "--budget", "20000"}));
  Ok({"session", "ingest", "p", WriteLog("b.json", testing::OpenAILog(3))});
  Ok({"render", "p", "--budget", "20000"});

  EXPECT_EQ(Ok({"session", "fork", "p", "--at", "1", "c"}), "c\n");
  json forked = Json({"session", "fork", "p", "--at", "1", "c2"});
  EXPECT_EQ(forked["session"], "c2");
  EXPECT_EQ(forked["parent"], "p");
  EXPECT_EQ(forked["record"], 1);
  EXPECT_EQ(forked["chat_messages"], 8);
  EXPECT_EQ(forked["ingest_format"], "openai");
  EXPECT_EQ(forked["ingested_items"], 9);
  json child = json::parse(Ok({"render", "c", "--budget", "20000"}));
  EXPECT_EQ(child["request"], first["request"]);
  // The child continues from turn 2 on its own; the parent is unchanged.
  json turn = testing::OpenAITurn(7);
  Ok({"session", "ingest", "c", WriteLog("t.json", turn), "--append"});
  EXPECT_EQ(Json({"session", "show", "c"})["chat_messages"], 12);
  EXPECT_EQ(Json({"session", "show", "p"})["chat_messages"], 12);
  EXPECT_EQ(json::parse(Ok({"render", "p", "--at", "1"}))["request"],
            first["request"]);

  EXPECT_EQ(Run({"session", "fork", "p", "--at", "9", "x"}).exit_code, 1);
  EXPECT_EQ(Run({"session", "fork", "nope", "--at", "1", "x"}).exit_code, 1);
  EXPECT_EQ(Run({"session", "fork", "p", "--at", "1", "c"}).exit_code, 4);
  EXPECT_EQ(Run({"session", "fork", "p", "--at", "0", "x"}).exit_code, 2);
  EXPECT_EQ(Run({"session", "fork", "p", "--at", "1", "b/d"}).exit_code, 2);
  EXPECT_EQ(Run({"session", "fork", "p", "1", "x"}).exit_code, 2);
  EXPECT_EQ(Ok({"session", "ls"}), "c\nc2\np\n");
}

}  // namespace
}  // namespace ctxkit
