// `ctxkit externalize` and `ctxkit var ...` through the built binary.

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/cli_test_util.h"
#include "ctxkit/ref.h"

namespace ctxkit::cli::testing {
namespace {

constexpr char kSentinel[] = "QQZ-SENTINEL-4417";

class ExternalizeCliTest : public CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    using nlohmann::json;
    json m = json::array();
    m.push_back({{"role", "user"},
                 {"content", std::string("Find the bug ") + kSentinel}});
    for (int i = 0; i < 3; ++i) {
      const std::string id = "c" + std::to_string(i);
      m.push_back(
          {{"role", "assistant"},
           {"content", nullptr},
           {"tool_calls",
            {{{"id", id},
              {"type", "function"},
              {"function", {{"name", "grep"}, {"arguments", "{}"}}}}}}});
      m.push_back(
          {{"role", "tool"},
           {"tool_call_id", id},
           {"content", "result " + std::to_string(i) + " " + kSentinel +
                           "\nline two " + std::to_string(i * 7) + "\n"}});
    }
    const std::string log = tmp_.path() + "/log.json";
    std::ofstream(log) << json{{"messages", m}}.dump();
    Ok({"session", "new", "s1"});
    Ok({"session", "ingest", "s1", log, "--format", "openai"});
    Ok({"set", "file:/src/main.cc",
        std::string("int main() {} // ") + kSentinel, "--type", "file"});
    Ok({"session", "track", "s1", "file:/src/main.cc"});
  }
};

TEST_F(ExternalizeCliTest, PrintsTheRootPrompt) {
  ProcessResult r =
      Run({"externalize", "--session", "s1", "--query", "Where is the bug?"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Your task: Where is the bug?"), std::string::npos);
  EXPECT_NE(r.out.find("- tool_outputs: List[ToolOutput], 3 items"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("SUBMIT({...})"), std::string::npos);
  EXPECT_EQ(r.out.find(kSentinel), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("root prompt:"), std::string::npos);
}

TEST_F(ExternalizeCliTest, JsonHasVariablesWarningsAndTokens) {
  nlohmann::json j = Json({"externalize", "--session", "s1", "--query", "q",
                           "--compare", "--warn-bytes", "10"});
  ASSERT_EQ(j["variables"].size(), 4u);
  EXPECT_EQ(j["variables"][0]["name"], "conversation");
  EXPECT_EQ(j["variables"][0]["item_count"], 7);
  EXPECT_EQ(j["variables"][1]["name"], "files");
  EXPECT_EQ(j["variables"][1]["item_count"], 1);
  EXPECT_GT(j["prompt_tokens"].get<uint64_t>(), 0u);
  EXPECT_GT(j["inlined_tokens"].get<uint64_t>(), 0u);
  EXPECT_TRUE(j["prompt"].get<std::string>().find(kSentinel) ==
              std::string::npos);
  ASSERT_FALSE(j["warnings"].empty());
  EXPECT_EQ(j["warnings"][0]["kind"], "large_variable");
  uint64_t total = 0;
  for (const auto& v : j["variables"]) total += v["size_bytes"].get<uint64_t>();
  EXPECT_EQ(j["total_size_bytes"], total);
}

TEST_F(ExternalizeCliTest, ErrorsAndExitCodes) {
  EXPECT_EQ(Run({"externalize", "--query", "q"}).exit_code, 2);
  EXPECT_EQ(Run({"externalize", "--session", "s1"}).exit_code, 2);
  EXPECT_EQ(Run({"externalize", "--session", "s1", "--query", ""}).exit_code,
            2);
  ProcessResult nf = Run({"externalize", "--session", "nope", "--query", "q"});
  EXPECT_EQ(nf.exit_code, 1);
  EXPECT_NE(nf.err.find("nope"), std::string::npos);
  const std::string tmpl = tmp_.path() + "/t.txt";
  std::ofstream(tmpl) << "{query} only";
  EXPECT_EQ(Run({"externalize", "--session", "s1", "--query", "q", "--template",
                 tmpl})
                .exit_code,
            2);
  std::ofstream(tmpl) << "Q={query}\n{variable_summaries}\n";
  std::string out = Ok(
      {"externalize", "--session", "s1", "--query", "abc", "--template", tmpl});
  EXPECT_TRUE(out.starts_with("Q=abc\n- conversation")) << out;
  EXPECT_EQ(
      Run({"externalize", "--session", "s1", "--query", "q", "--var", "bad"})
          .exit_code,
      2);
  EXPECT_EQ(Run({"var", "peek", "--session", "s1", "nope"}).exit_code, 1);
  EXPECT_EQ(
      Run({"var", "search", "--session", "s1", "files", "(", "-E"}).exit_code,
      2);
}

// A refused request leaves the store as it was. A forged --var used to be
// refused only after the session's four ctxkit.externalize/* manifests
// were written; every variable is now resolved, and the template checked,
// before anything is.
TEST_F(ExternalizeCliTest, RefusedRequestsLeaveTheStoreAsItWas) {
  const std::string tagged = Chomp(Ok({"--agent", "alice", "set", "secret",
                                       "alice's plan", "--scope", "agent"}));
  Result<Ref> ref = ParseRef(tagged);
  ASSERT_TRUE(ref.ok()) << tagged;
  Ref forged = *ref;
  forged.tag.clear();
  const std::string bad_template = tmp_.path() + "/bad.txt";
  std::ofstream(bad_template) << "{query} {variable_summaries} {bogus}";
  const std::vector<std::string> bob = {"--agent", "bob", "--session", "s1"};
  const std::vector<std::string> manifests = {
      "ctxkit.externalize/conversation", "ctxkit.externalize/files",
      "ctxkit.externalize/tool_outputs", "ctxkit.externalize/working_memory"};
  const std::string before = Snapshot(manifests, bob);
  auto as_bob = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {"--agent", "bob"});
    return Run(args);
  };
  const std::vector<std::vector<std::string>> refused = {
      {"externalize", "--session", "s1", "--query", "q", "--var",
       "x=" + FormatRef(forged)},
      {"externalize", "--session", "s1", "--query", "q", "--var",
       "ok=" + tagged, "--var", "x=" + FormatRef(forged)},
      {"externalize", "--session", "s1", "--query", "q", "--var",
       "files=" + tagged},
      {"externalize", "--session", "s1", "--query", "q", "--var", "x=" + tagged,
       "--var", "x=" + tagged},
      {"externalize", "--session", "s1", "--query", "q", "--template",
       bad_template},
      {"var", "len", "--session", "s1", "x", "--var", "x=" + FormatRef(forged)},
  };
  for (const std::vector<std::string>& args : refused) {
    ProcessResult r = as_bob(args);
    EXPECT_NE(r.exit_code, 0) << Describe(args, r);
    EXPECT_EQ(r.out, "") << Describe(args, r);
    EXPECT_EQ(Snapshot(manifests, bob), before) << Describe(args, r);
  }
  // The forged ref is answered as a ref to nothing (docs/security.md).
  ProcessResult forged_run = as_bob(refused[0]);
  EXPECT_EQ(forged_run.exit_code, 1) << forged_run.err;
  EXPECT_NE(forged_run.err.find("variable x"), std::string::npos)
      << forged_run.err;
  EXPECT_EQ(forged_run.err.find("alice"), std::string::npos) << forged_run.err;
  // The ref as the store gave it is a capability: accepted, it writes the
  // manifests (so the snapshot above would have seen them).
  ProcessResult ok = as_bob({"--json", "externalize", "--session", "s1",
                             "--query", "q", "--var", "x=" + tagged});
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  nlohmann::json j = nlohmann::json::parse(ok.out);
  ASSERT_EQ(j["variables"].size(), 5u);
  EXPECT_EQ(j["variables"][4]["name"], "x");
  EXPECT_NE(Snapshot(manifests, bob), before);
}

TEST_F(ExternalizeCliTest, Helpers) {
  nlohmann::json p =
      Json({"var", "peek", "--session", "s1", "tool_outputs", "1", "3"});
  ASSERT_EQ(p["items"].size(), 2u);
  EXPECT_EQ(p["items"][0]["key"], "toolcall:c1");
  EXPECT_TRUE(p["items"][0]["text"].get<std::string>().starts_with("result 1"));
  nlohmann::json d = Json({"var", "peek", "--session", "s1", "files"});
  EXPECT_EQ(d["shape"], "dict");
  EXPECT_EQ(d["items"][0]["key"], "/src/main.cc");
  nlohmann::json s = Json({"var", "search", "--session", "s1", "tool_outputs",
                           "^line two (7|14)$", "--regex"});
  ASSERT_EQ(s["matches"].size(), 2u);
  EXPECT_EQ(s["matches"][0]["index"], 1);
  EXPECT_EQ(s["matches"][0]["line"], 2);
  nlohmann::json l = Json({"var", "len", "--session", "s1", "conversation"});
  EXPECT_EQ(l["items"], 7);
  nlohmann::json sum = Json({"var", "summarize", "--session", "s1",
                             "tool_outputs", "--max-tokens", "60"});
  EXPECT_LE(sum["tokens"].get<uint64_t>(), 60u);
  nlohmann::json f = Json({"var", "find", "--session", "s1", "files", "main"});
  EXPECT_EQ(f["method"], "bm25");
  ASSERT_FALSE(f["hits"].empty());
  EXPECT_EQ(f["hits"][0]["key"], "file:/src/main.cc");
  // A custom variable by ref.
  std::string ref = Ok({"set", "extra", "alpha\nbeta\ngamma\n"});
  while (!ref.empty() && ref.back() == '\n') ref.pop_back();
  nlohmann::json c = Json({"var", "peek", "--session", "s1", "notes", "1", "2",
                           "--var", "notes=" + ref});
  EXPECT_EQ(c["text"], "beta\n");
}

}  // namespace
}  // namespace ctxkit::cli::testing
