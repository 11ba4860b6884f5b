// What a new user hits first, following the README: tool capture without a
// session, repeatable options next to positionals, peek to the end, render
// budgets, JSON errors with a position, spawn's output, refs given as keys.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/cli_test_util.h"

namespace ctxkit::cli::testing {
namespace {

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

class FirstContactTest : public CliTest {
 protected:
  std::string WriteFile(const std::string& name, const std::string& bytes) {
    std::string path = tmp_.path() + "/" + name;
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }
};

TEST_F(FirstContactTest, ToolsSaveWorksWithoutASession) {
  RunOptions o;
  o.input = "build.log:3:error: 'ssl_ctx' undeclared\n";
  ProcessResult saved = Run(
      {"tools", "save", "--tool", "grep", "--args", R"({"pattern":"error"})"},
      o);
  ASSERT_EQ(saved.exit_code, 0) << saved.err;
  const std::string pointer = Chomp(saved.out);
  EXPECT_TRUE(pointer.starts_with("ck:")) << pointer;
  // A later process without a session sees the same default session.
  nlohmann::json list = Json({"tools", "ls"});
  ASSERT_EQ(list.size(), 1u) << list.dump();
  EXPECT_EQ(list[0]["tool_name"], "grep");
  EXPECT_EQ(Ok({"tools", "load", pointer}),
            "build.log:3:error: 'ssl_ctx' undeclared\n");
  EXPECT_EQ(Json({"tools", "load", pointer})["session_id"], "default");
  // An explicit session still wins and keeps its outputs apart.
  EXPECT_EQ(Json({"--session", "s1", "tools", "ls"}).size(), 0u);
}

TEST_F(FirstContactTest, RepeatableOptionsTakeOneValueEach) {
  const std::string root = tmp_.path() + "/notes";
  RunOptions o;
  o.input = "JWT expiry is 15 min\n";
  ASSERT_EQ(Run({"notes", "--root", root, "add", "--agent", "auditor", "--type",
                 "finding", "--tag", "security", "--slug", "jwt-expiry"},
                o)
                .exit_code,
            0);
  o.input = "Passwords are hashed with argon2id\n";
  ASSERT_EQ(Run({"notes", "--root", root, "add", "--agent", "auditor", "--type",
                 "finding", "--tag", "security", "--tag", "crypto", "--slug",
                 "password-hashing"},
                o)
                .exit_code,
            0);
  // `jwt` is the query, not a second tag.
  nlohmann::json hits =
      Json({"notes", "--root", root, "search", "--tag", "security", "jwt"});
  ASSERT_TRUE(hits.is_array()) << hits.dump();
  ASSERT_EQ(hits.size(), 1u) << hits.dump();
  EXPECT_TRUE(Contains(hits[0].dump(), "jwt-expiry")) << hits.dump();
  // Repeated, every occurrence counts.
  EXPECT_EQ(Json({"notes", "--root", root, "search", "--tag", "security",
                  "--tag", "crypto"})
                .size(),
            1u);
  // The same rule for the store's verbs: `set K --tag T VALUE` takes VALUE
  // as the value, `search P --key K OTHER` searches both keys.
  Ok({"set", "a", "--tag", "t1", "needle in a"});
  EXPECT_EQ(Ok({"get", "a"}), "needle in a");
  Ok({"set", "b", "needle in b"});
  nlohmann::json found = Json({"search", "needle", "--key", "a", "b"});
  EXPECT_EQ(found["variables_searched"], 2) << found.dump();
}

TEST_F(FirstContactTest, PeekReadsToTheEnd) {
  std::string lines;
  for (int i = 0; i < 30; ++i) lines += std::to_string(i) + "\n";
  Ok({"set", "k", lines});
  auto tail_from = [&](int first) {
    std::string out;
    for (int i = first; i < 30; ++i) out += std::to_string(i) + "\n";
    return out;
  };
  EXPECT_EQ(Ok({"peek", "k", "25:"}), tail_from(25));   // x[25:]
  EXPECT_EQ(Ok({"peek", "k", "-20:"}), tail_from(10));  // x[-20:]
  EXPECT_EQ(Ok({"peek", "k", "-20"}), tail_from(10));   // as MCP peek
  EXPECT_EQ(Ok({"peek", "k", "--start", "-12"}), tail_from(18));
  EXPECT_EQ(Ok({"peek", "k", ":2"}), "0\n1\n");   // x[:2]
  EXPECT_EQ(Ok({"peek", "k", "3:5"}), "3\n4\n");  // x[3:5]
  EXPECT_EQ(Ok({"peek", "k", "3"}), "3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n");
  EXPECT_EQ(Ok({"peek", "k", "28:", "--unit", "bytes"}), lines.substr(28));
  nlohmann::json j = Json({"peek", "k", "25:"});
  EXPECT_EQ(j["start"], 25);
  EXPECT_EQ(j["end"], 30);
  // A slice already has its end; a second one is a usage error.
  EXPECT_EQ(Run({"peek", "k", "3:5", "9"}).exit_code, 2);
  EXPECT_EQ(Run({"peek", "k", "3:", "--end", "9"}).exit_code, 2);
  EXPECT_EQ(Run({"peek", "k", "3:x"}).exit_code, 2);
}

TEST_F(FirstContactTest, RenderOverBudgetIsAPreconditionNamingTheMinimum) {
  Ok({"session", "new", "s"});
  std::string words;
  for (int i = 0; i < 200; ++i) words += "word" + std::to_string(i) + " ";
  nlohmann::json log = {{"messages",
                         {{{"role", "system"}, {"content", "You are terse."}},
                          {{"role", "user"}, {"content", words}}}}};
  Ok({"session", "ingest", "s", WriteFile("chat.json", log.dump()), "--format",
      "openai"});
  ProcessResult r = Run({"render", "s", "--budget", "10"});
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_EQ(r.out, "");
  const std::string marker = "at least ";
  size_t at = r.err.find(marker);
  ASSERT_NE(at, std::string::npos) << r.err;
  const std::string minimum =
      std::to_string(std::stoull(r.err.substr(at + marker.size())));
  // The budget the message names is enough, and one less is not.
  nlohmann::json ok = Json({"render", "s", "--budget", minimum});
  EXPECT_LE(ok["tokens"].get<uint64_t>(), std::stoull(minimum));
  EXPECT_EQ(
      Run({"render", "s", "--budget", std::to_string(std::stoull(minimum) - 1)})
          .exit_code,
      4);
}

// --request-only prints the body to send, byte for byte: the report's
// "request", and what a replay of the record emits.
TEST_F(FirstContactTest, RenderRequestOnlyPrintsTheBodyToSend) {
  Ok({"session", "new", "s"});
  nlohmann::json log = {{"messages",
                         {{{"role", "system"}, {"content", "You are terse."}},
                          {{"role", "user"}, {"content", "caf\u00e9 \"q\""}}}}};
  Ok({"session", "ingest", "s", WriteFile("chat.json", log.dump())});
  const std::string body =
      Ok({"render", "s", "--budget", "1000", "--request-only"});
  ASSERT_FALSE(body.empty());
  EXPECT_NE(body.back(), '\n');
  nlohmann::json report = Json({"render", "s", "--at", "1"});
  EXPECT_EQ(nlohmann::json::parse(body), report["request"]);
  EXPECT_EQ(Ok({"render", "s", "--at", "1", "--request-only"}), body);
  EXPECT_EQ(report["record"], 1);
}

TEST_F(FirstContactTest, JsonErrorsGiveTheirPosition) {
  ProcessResult set =
      RunIn({"set", "cfg", "--type", "json"},
            "{\n  \"retries\": 3,\n  \"hosts\": [\"a\" \"b\"]\n}");
  EXPECT_EQ(set.exit_code, 2) << set.err;
  EXPECT_TRUE(Contains(set.err, "line 3, column")) << set.err;
  EXPECT_EQ(Run({"get", "cfg"}).exit_code, 1) << "nothing was stored";

  ProcessResult save = RunIn(
      {"tools", "save", "--tool", "grep", "--args", R"({"pattern": })"}, "x");
  EXPECT_EQ(save.exit_code, 2) << save.err;
  EXPECT_TRUE(Contains(save.err, "args is not valid JSON")) << save.err;
  EXPECT_TRUE(Contains(save.err, "line 1, column 13")) << save.err;

  Ok({"session", "new", "s"});
  ProcessResult ingest = Run(
      {"session", "ingest", "s",
       WriteFile("bad.json", "{\"messages\": [\n  {\"role\": \"user\",,}\n]}"),
       "--format", "openai"});
  EXPECT_EQ(ingest.exit_code, 2) << ingest.err;
  EXPECT_TRUE(Contains(ingest.err, "line 2, column")) << ingest.err;
}

TEST_F(FirstContactTest, SpawnPrintsTheResultRefOnce) {
  Ok({"--agent", "planner", "set", "doc", "hello"});
  ProcessResult r =
      Run({"--agent", "planner", "spawn", "--ref", "doc=doc", "--", "sh", "-c",
           "\"$0\" result set done", CTXKIT_BINARY});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.out.starts_with("ck:")) << r.out;
  EXPECT_EQ(r.out.find('\n'), r.out.size() - 1) << "one line: " << r.out;
  // Outside spawn, `result set` still prints its ref.
  ProcessResult direct =
      Run({"--agent", "planner", "spawn", "--ref", "doc=doc", "--", "sh", "-c",
           "CTXKIT_RESULT_PRINTED_BY_SPAWN= \"$0\" result "
           "set again >&2",
           CTXKIT_BINARY});
  ASSERT_EQ(direct.exit_code, 0) << direct.err;
  EXPECT_TRUE(Contains(direct.err, "ck:")) << direct.err;
}

TEST_F(FirstContactTest, ARefGivenAsAKeySaysHowToPassIt) {
  const std::string ref = Chomp(Ok({"set", "notes/plan", "ship it"}));
  // Read verbs take a ref in place of a key (ReadVerbsTakeARefInPlaceOfAKey);
  // a verb that changes an object wants its key, and says how to give it.
  for (const char* verb : {"rm"}) {
    ProcessResult r = Run({verb, ref});
    EXPECT_NE(r.exit_code, 0) << verb << ": " << r.err;
    // The library's hint, the same in every face.
    EXPECT_TRUE(Contains(r.err,
                         "is a ref, not a key: give it as a ref, or "
                         "give its key 'notes/plan' with scope global"))
        << verb << r.err;
  }
  // What the message suggests works.
  EXPECT_EQ(Ok({"resolve", ref}), "ship it");
  EXPECT_EQ(Ok({"get", "notes/plan", "--scope", "global"}), "ship it");
  // A plain missing key keeps its plain message.
  ProcessResult plain = Run({"get", "nope"});
  EXPECT_EQ(plain.exit_code, 1);
  EXPECT_FALSE(Contains(plain.err, "is a ref")) << plain.err;
}

}  // namespace
}  // namespace ctxkit::cli::testing
