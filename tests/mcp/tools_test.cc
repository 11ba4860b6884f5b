// Every tool: tools/list's contract, a happy path and an error path each,
// the per-result token limit, and isolation between clients.

#include <regex>
#include <set>
#include <string>

#include "common/fake_chat_server.h"
#include "ctxkit/ref.h"
#include "ctxkit/session.h"
#include "mcp/mcp_test_util.h"
#include "session/log_builders.h"

namespace ctxkit::mcp::testing {
namespace {

using ToolsTest = McpTest;

TEST_F(ToolsTest, ListIsSortedDeterministicAndSchemaComplete) {
  Client& c = Ready();
  Json a = c.Request("tools/list")["result"];
  Json b = c.Request("tools/list")["result"];
  EXPECT_EQ(a.dump(), b.dump());
  std::vector<std::string> names;
  std::regex name_re("^[a-zA-Z0-9_-]{1,64}$");
  for (const Json& t : a["tools"]) {
    std::string name = t["name"];
    names.push_back(name);
    EXPECT_TRUE(std::regex_match(name, name_re)) << name;
    EXPECT_GT(t["description"].get<std::string>().size(), 60u) << name;
    const Json& s = t["inputSchema"];
    EXPECT_EQ(s["type"], "object") << name;
    EXPECT_EQ(s["additionalProperties"], false) << name;
    EXPECT_TRUE(s["properties"].is_object()) << name;
    for (auto it = s["properties"].begin(); it != s["properties"].end(); ++it) {
      EXPECT_TRUE(it.value().contains("description"))
          << name << "." << it.key();
    }
    if (s.contains("required")) {
      for (const Json& r : s["required"]) {
        EXPECT_TRUE(s["properties"].contains(r.get<std::string>())) << name;
      }
    }
  }
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  std::set<std::string> have(names.begin(), names.end());
  for (const char* want : {"set",
                           "get",
                           "ref",
                           "peek",
                           "search",
                           "find_relevant",
                           "summarize",
                           "list",
                           "versions",
                           "remove",
                           "promote",
                           "tokens",
                           "session_activate",
                           "session_compact",
                           "session_deactivate",
                           "session_fork",
                           "session_pin",
                           "session_render",
                           "externalize",
                           "tool_output_save",
                           "tool_output_load",
                           "tool_output_select",
                           "notes_add",
                           "notes_update",
                           "notes_search"}) {
    EXPECT_TRUE(have.count(want)) << want;
  }
}

TEST_F(ToolsTest, SetGetRefVersionsRemove) {
  Client& c = Ready();
  Json r = c.Ok("set", {{"key", "doc"}, {"value", "one\ntwo\nthree\n"}});
  std::string ref = r["structuredContent"]["ref"];
  EXPECT_EQ(Client::Text(r), ref);
  ASSERT_TRUE(ParseRef(ref).ok());
  EXPECT_EQ(Client::Text(c.Ok("get", {{"key", "doc"}})), "one\ntwo\nthree\n");
  EXPECT_EQ(Client::Text(c.Ok("get", {{"ref", ref}})), "one\ntwo\nthree\n");
  EXPECT_EQ(
      Client::Text(c.Ok(
          "get", {{"key", "doc"}, {"byte_offset", 4}, {"byte_length", 3}})),
      "two");
  EXPECT_EQ(Client::Text(c.Ok(
                "get", {{"key", "doc"}, {"line_start", 1}, {"line_end", 2}})),
            "two\n");
  c.Ok("set", {{"key", "doc"}, {"value", "v2"}});
  // The static ref from v1 still reads v1.
  EXPECT_EQ(Client::Text(c.Ok("get", {{"ref", ref}})), "one\ntwo\nthree\n");
  EXPECT_EQ(Client::Text(c.Ok("get", {{"key", "doc"}, {"version", 1}})),
            "one\ntwo\nthree\n");
  Json refr = c.Ok("ref", {{"key", "doc"}, {"version", 2}});
  EXPECT_EQ(refr["structuredContent"]["version"], 2);
  Json vs = c.Ok("versions", {{"key", "doc"}});
  ASSERT_EQ(vs["structuredContent"]["versions"].size(), 2u);
  c.Ok("remove", {{"key", "doc"}});
  EXPECT_NE(c.Fails("get", {{"key", "doc"}}).find("not_found"),
            std::string::npos);
  EXPECT_NE(c.Fails("remove", {{"key", "doc"}}).find("not_found"),
            std::string::npos);
  // Errors: key and ref together, neither, both ranges, bad ref, bad JSON.
  c.Fails("get", {{"key", "doc"}, {"ref", ref}});
  c.Fails("get", Json::object());
  c.Fails("get", {{"ref", ref}, {"byte_offset", 0}, {"line_start", 0}});
  c.Fails("get", {{"ref", "ck:nonsense"}});
  c.Fails("get", {{"ref", ref}, {"version", 1}});
  c.Fails("get", {{"ref", ref}, {"scope", "global"}});
  c.Fails("set", {{"key", "j"}, {"value", "{oops"}, {"type", "json"}});
  c.Fails("ref", {{"key", "missing"}});
  c.Fails("versions", {{"key", "missing"}});
}

TEST_F(ToolsTest, ListPromoteTokens) {
  Client& c = Ready();
  c.Ok("set", {{"key", "a/1"}, {"value", "x"}, {"tags", {"t1"}}});
  c.Ok("set", {{"key", "a/2"}, {"value", "y"}});
  c.Ok("set", {{"key", "mine"}, {"value", "private"}, {"scope", "agent"}});
  Json l = c.Ok("list", {{"key_prefix", "a/"}, {"limit", 1}});
  ASSERT_EQ(l["structuredContent"]["items"].size(), 1u);
  std::string cursor = l["structuredContent"]["next_cursor"];
  Json l2 = c.Ok("list", {{"key_prefix", "a/"}, {"cursor", cursor}});
  ASSERT_EQ(l2["structuredContent"]["items"].size(), 1u);
  EXPECT_EQ(l2["structuredContent"]["items"][0]["key"], "a/2");
  Json tagged = c.Ok("list", {{"tags", {"t1"}}});
  EXPECT_EQ(tagged["structuredContent"]["items"].size(), 1u);
  c.Fails("list", {{"cursor", "garbage"}});
  Json p = c.Ok("promote", {{"key", "mine"}});
  EXPECT_EQ(p["structuredContent"]["scope"], "global");
  c.Fails("promote", {{"key", "mine"}});  // No longer in the agent scope.
  Json t = c.Ok("tokens", {{"key", "a/1"}});
  EXPECT_EQ(t["structuredContent"]["tokens"], 1);
  Json t2 = c.Ok("tokens", {{"key", "a/1"}, {"encoding", "cl100k_base"}});
  EXPECT_EQ(t2["structuredContent"]["tokens"], 1);
  c.Fails("tokens", {{"key", "nope"}});
}

TEST_F(ToolsTest, PeekSearchFindSummarize) {
  Client& c = Ready();
  std::string text;
  for (int i = 0; i < 50; ++i) {
    text += "line " + std::to_string(i) +
            (i == 37 ? " the token refresh fails with ERROR 401\n" : "\n");
  }
  c.Ok("set", {{"key", "logs/build"}, {"value", text}});
  Json p = c.Ok("peek", {{"key", "logs/build"}, {"start", 2}, {"end", 4}});
  EXPECT_EQ(Client::Text(p), "line 2\nline 3\n");
  EXPECT_EQ(p["structuredContent"]["unit"], "lines");
  Json tail = c.Ok("peek", {{"key", "logs/build"}, {"start", -1}});
  EXPECT_EQ(Client::Text(tail), "line 49\n");
  c.Fails("peek", {{"key", "nope"}});
  Json s = c.Ok("search", {{"pattern", "error"}, {"case_insensitive", true}});
  ASSERT_EQ(s["structuredContent"]["matches"].size(), 1u);
  EXPECT_EQ(s["structuredContent"]["matches"][0]["line"], 38);
  Json rx = c.Ok("search", {{"pattern", "ERROR [0-9]+"}, {"regex", true}});
  EXPECT_EQ(rx["structuredContent"]["matches"].size(), 1u);
  c.Fails("search", {{"pattern", "("}, {"regex", true}});
  Json f = c.Ok("find_relevant", {{"query", "token refresh"}});
  ASSERT_FALSE(f["structuredContent"]["hits"].empty());
  EXPECT_EQ(f["structuredContent"]["hits"][0]["key"], "logs/build");
  c.Fails("find_relevant", {{"query", "   "}});
  // "mistake" is not in the log; WordNet relates it to "error". The
  // literal query finds nothing.
  Json wide = c.Ok("find_relevant", {{"query", "mistake"}});
  ASSERT_FALSE(wide["structuredContent"]["hits"].empty()) << wide.dump();
  EXPECT_EQ(wide["structuredContent"]["hits"][0]["key"], "logs/build");
  Json literal =
      c.Ok("find_relevant", {{"query", "mistake"}, {"widen", false}});
  EXPECT_TRUE(literal["structuredContent"]["hits"].empty()) << literal.dump();
  c.Fails("find_relevant", {{"query", "mistake"}, {"widen", "no"}});
  Json sum = c.Ok("summarize", {{"key", "logs/build"},
                                {"max_tokens", 60},
                                {"summarizer", "structural"}});
  EXPECT_LE(sum["structuredContent"]["tokens"].get<int>(), 60);
  EXPECT_FALSE(Client::Text(sum).empty());
  c.Fails("summarize", {{"key", "nope"}});
}

TEST_F(ToolsTest, LargeValueComesBackAsHeadTailNamingItsResource) {
  options_.result_token_limit = 200;
  Client& c = Ready();
  std::string big;
  for (int i = 0; i < 2000; ++i) {
    big += "row " + std::to_string(i) + " alpha beta gamma\n";
  }
  Json set = c.Ok("set", {{"key", "big"}, {"value", big}});
  std::string ref = set["structuredContent"]["ref"];
  Json r = c.Ok("get", {{"key", "big"}});
  std::string text = Client::Text(r);
  EXPECT_LT(text.size(), 3000u);
  EXPECT_NE(text.find("row 0 alpha"), std::string::npos);     // Head.
  EXPECT_NE(text.find("row 1999 alpha"), std::string::npos);  // Tail.
  EXPECT_EQ(text.find("row 1000 alpha"), std::string::npos);  // Not whole.
  EXPECT_NE(text.find("byte_offset"), std::string::npos);
  const Json& st = r["structuredContent"]["truncated"];
  EXPECT_EQ(st["total_bytes"], big.size());
  EXPECT_GT(st["tokens"].get<uint64_t>(), 200u);
  // One text item: no resource_link unless the server is asked for them
  // (a client that does not read resources hands it to the model).
  ASSERT_EQ(r["content"].size(), 1u) << r.dump();
  EXPECT_EQ(st["uri"], "ctxkit://global/big@1");
  EXPECT_NE(text.find("ctxkit://global/big@1"), std::string::npos);
  // The head and tail stay within the limit.
  uint64_t head_end = st["head_bytes"][1];
  uint64_t tail_begin = st["tail_bytes"][0];
  EXPECT_LT(head_end, tail_begin);
  // Paging by range returns exactly the bytes asked for.
  Json page = c.Ok(
      "get", {{"ref", ref}, {"byte_offset", head_end}, {"byte_length", 100}});
  EXPECT_EQ(Client::Text(page), big.substr(head_end, 100));
  // The resource named resolves.
  Json read = c.Request("resources/read", {{"uri", st["uri"]}});
  EXPECT_EQ(read["result"]["contents"][0]["text"], big);
  // A range larger than the limit is cut too.
  Json ranged =
      c.Ok("get", {{"key", "big"}, {"line_start", 0}, {"line_end", 1500}});
  EXPECT_TRUE(ranged["structuredContent"].contains("truncated"));
}

TEST_F(ToolsTest, ResourceLinksWhenAskedFor) {
  options_.result_token_limit = 100;
  options_.resource_links = true;
  Client& c = Ready();
  std::string big;
  for (int i = 0; i < 1000; ++i) big += "row " + std::to_string(i) + "\n";
  c.Ok("set", {{"key", "big"}, {"value", big}});
  Json r = c.Ok("get", {{"key", "big"}});
  ASSERT_EQ(r["content"].size(), 2u) << r.dump();
  const Json& link = r["content"][1];
  EXPECT_EQ(link["type"], "resource_link");
  EXPECT_EQ(link["uri"], "ctxkit://global/big@1");
  EXPECT_EQ(link["size"], big.size());
  EXPECT_EQ(link["name"], "big");
}

TEST_F(ToolsTest, WholeValueIsTextAlone) {
  Client& c = Ready();
  c.Ok("set", {{"key", "doc"}, {"value", "the value"}});
  Json r = c.Ok("get", {{"key", "doc"}});
  EXPECT_EQ(Client::Text(r), "the value");
  EXPECT_FALSE(r.contains("structuredContent")) << r.dump();
}

TEST_F(ToolsTest, NullOptionalArgumentsAreAbsent) {
  // A strict-mode model sends null for every optional argument it leaves
  // out.
  Client& c = Ready();
  c.Ok("set", {{"key", "doc"},
               {"value", "alpha\nbeta\n"},
               {"scope", nullptr},
               {"tags", nullptr},
               {"if_version", nullptr}});
  Json got = c.Ok("get", {{"key", "doc"},
                          {"ref", nullptr},
                          {"version", nullptr},
                          {"byte_offset", nullptr},
                          {"byte_length", nullptr},
                          {"line_start", nullptr},
                          {"line_end", nullptr}});
  EXPECT_EQ(Client::Text(got), "alpha\nbeta\n");
  EXPECT_EQ(Client::Text(c.Ok("peek", {{"key", "doc"},
                                       {"start", -1},
                                       {"end", nullptr},
                                       {"unit", "lines"},
                                       {"max_bytes", nullptr}})),
            "beta\n");
  // A required argument stays required: null is not a value for it.
  EXPECT_NE(
      c.Fails("set", {{"key", nullptr}, {"value", "x"}}).find("arguments.key"),
      std::string::npos);
  // get takes key or ref: both null is neither.
  EXPECT_NE(c.Fails("get", {{"key", nullptr}, {"ref", nullptr}}).find("key"),
            std::string::npos);
}

TEST_F(ToolsTest, SessionTools) {
  Client& c = Ready();
  // The first line is the object's title in the session index; the second
  // is content, rendered only while the object is active or pinned.
  c.Ok(
      "set",
      {{"key", "plan"}, {"value", "the plan\nBODY-ONE"}, {"scope", "session"}});
  c.Ok("session_activate", {{"object", "plan"}});
  Json render = c.Ok("session_render", {{"budget_tokens", 2000}});
  EXPECT_NE(Client::Text(render).find("BODY-ONE"), std::string::npos)
      << Client::Text(render);
  c.Ok("session_deactivate", {{"object", "plan"}});
  render = c.Ok("session_render", {{"budget_tokens", 2000}});
  EXPECT_EQ(Client::Text(render).find("BODY-ONE"), std::string::npos)
      << Client::Text(render);
  c.Ok(
      "set",
      {{"key", "plan"}, {"value", "the plan\nBODY-TWO"}, {"scope", "session"}});
  c.Ok("session_pin", {{"object", "plan"}, {"version", 1}});
  render = c.Ok("session_render",
                {{"budget_tokens", 2000}, {"format", "anthropic"}});
  EXPECT_NE(Client::Text(render).find("BODY-ONE"), std::string::npos);
  EXPECT_EQ(Client::Text(render).find("BODY-TWO"), std::string::npos);
  c.Ok("session_pin", {{"object", "plan"}, {"unpin", true}});
  c.Fails("session_pin", {{"object", "plan"}, {"unpin", true}});
  c.Fails("session_activate", {{"object", "no-such-key"}});
  c.Fails("session_deactivate", {{"object", "chat"}});
  c.Fails("session_render", {{"budget_tokens", 0}});
}

// Values that are not UTF-8 (bad in the first line or after it) are
// activated, pinned and rendered, each ill-formed sequence shown as
// U+FFFD; the render replays. Before, session_activate answered -32603.
TEST_F(ToolsTest, SessionToolsTakeValuesThatAreNotUtf8) {
  auto v = store_->OpenView("", "");
  ASSERT_TRUE(v.ok());
  ASSERT_TRUE(v->Set("first", "caf\xe9\n").ok());
  ASSERT_TRUE(v->Set("later", "ok line\ncaf\xe9 more\n").ok());
  Client& c = Ready();
  c.Ok("session_activate", {{"object", "first"}});
  c.Ok("session_pin", {{"object", "later"}});
  for (const char* format : {"openai", "anthropic"}) {
    Json render =
        c.Ok("session_render", {{"budget_tokens", 5000}, {"format", format}});
    const std::string text = Client::Text(render);
    EXPECT_NE(text.find("caf\xef\xbf\xbd\\n"), std::string::npos) << text;
    EXPECT_NE(text.find("caf\xef\xbf\xbd more"), std::string::npos) << text;
    const uint64_t record = render["structuredContent"]["record"];
    Json replay = c.Ok("session_render", {{"at", record}});
    EXPECT_EQ(Client::Text(replay), text);
  }
  // A URI naming a key that is not UTF-8: invalid params, not internal.
  Json read = c.Request("resources/read", {{"uri", "ctxkit://global/caf%E9"}});
  ASSERT_TRUE(read.contains("error")) << read.dump();
  EXPECT_EQ(read["error"]["code"], -32602) << read.dump();
}

// session_render hands the server's LLM endpoint to the render: the
// summary of a compaction it makes is the endpoint's.
// The server's LLM endpoint: `llm`.
LlmEndpoint EndpointOf(ctxkit::testing::FakeChatServer& llm) {
  LlmEndpoint endpoint;
  endpoint.base_url = llm.base_url();
  endpoint.model = "test-model";
  endpoint.timeout_ms = 2000;
  return endpoint;
}

TEST_F(ToolsTest, SessionRenderCompactsWithTheServersEndpoint) {
  ctxkit::testing::FakeChatServer llm(
      ctxkit::testing::FakeChatServer::Mode::kOk, "Things 0-5 were found.");
  options_.llm = EndpointOf(llm);
  Client& c = Ready();
  Json log = ctxkit::testing::OpenAILog(8, 30);
  c.Ok(
      "session_ingest",
      {{"messages", log["messages"]}, {"append", false}, {"format", "openai"}});
  Json render = c.Ok("session_render", {{"budget_tokens", 700}});
  EXPECT_FALSE(render["structuredContent"]["compacted"].is_null());
  EXPECT_EQ(llm.hits(), 1u);
  EXPECT_NE(Client::Text(render).find("Things 0-5 were found."),
            std::string::npos)
      << Client::Text(render);
}

// session_compact: the next render compacts the older turns whatever the
// budget, and the endpoint writing the summary is given the instructions.
TEST_F(ToolsTest, SessionCompactAsksTheNextRenderForACompaction) {
  ctxkit::testing::FakeChatServer llm(
      ctxkit::testing::FakeChatServer::Mode::kOk, "Kept: the failing test.");
  options_.llm = EndpointOf(llm);
  Client& c = Ready();
  Json log = ctxkit::testing::OpenAILog(4, 5);
  c.Ok(
      "session_ingest",
      {{"messages", log["messages"]}, {"append", false}, {"format", "openai"}});
  Json plain = c.Ok("session_render", {{"budget_tokens", 100000}});
  EXPECT_TRUE(plain["structuredContent"]["compacted"].is_null());
  c.Ok("session_compact", {{"instructions", "keep the failing test name"}});
  Json render = c.Ok("session_render", {{"budget_tokens", 100000}});
  ASSERT_FALSE(render["structuredContent"]["compacted"].is_null())
      << render.dump();
  ASSERT_EQ(llm.hits(), 1u);
  EXPECT_NE(llm.requests()[0].body.find("keep the failing test name"),
            std::string::npos);
  EXPECT_NE(Client::Text(render).find("Kept: the failing test."),
            std::string::npos);
  c.Fails("session_compact", {{"instructions", std::string(2001, 'x')}});
}

// session_fork: a new session from a recorded render of the client's own,
// which stays the client's and unchanged.
TEST_F(ToolsTest, SessionForkStartsANewSessionFromARecord) {
  Client& c = Ready();
  Json log = ctxkit::testing::OpenAILog(3, 5);
  c.Ok(
      "session_ingest",
      {{"messages", log["messages"]}, {"append", false}, {"format", "openai"}});
  Json first = c.Ok("session_render", {{"budget_tokens", 20000}});
  c.Ok("session_ingest", {{"messages", ctxkit::testing::OpenAITurn(3, 5)}});
  c.Ok("session_render", {{"budget_tokens", 20000}});
  Json forked = c.Ok("session_fork", {{"at", 1}, {"new_session", "branch"}});
  EXPECT_EQ(forked["structuredContent"]["session"], "branch");
  EXPECT_EQ(forked["structuredContent"]["record"], 1);
  EXPECT_EQ(forked["structuredContent"]["chat_messages"], 12);
  auto branch = Session::Open(*store_, "branch");
  ASSERT_TRUE(branch.ok()) << branch.status().ToString();
  auto r = (*branch)->Render({.budget_tokens = 20000});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->request_json, Client::Text(first));
  Json own = c.Ok("session_render", {{"at", 1}});
  EXPECT_EQ(Client::Text(own), Client::Text(first));
  c.Fails("session_fork", {{"at", 1}, {"new_session", "branch"}});
  c.Fails("session_fork", {{"at", 9}, {"new_session", "other"}});
  c.Fails("session_fork", {{"at", 1}, {"new_session", "bad id"}});
}

TEST_F(ToolsTest, Externalize) {
  Client& c = Ready();
  c.Ok("set", {{"key", "scratch"},
               {"value", "remember this"},
               {"scope", "session"},
               {"type", "memory"}});
  Json r = c.Ok("externalize", {{"query", "What should I remember?"}});
  std::string prompt = Client::Text(r);
  EXPECT_NE(prompt.find("What should I remember?"), std::string::npos);
  EXPECT_NE(prompt.find("working_memory"), std::string::npos);
  EXPECT_EQ(prompt.find("remember this"), std::string::npos);  // No content.
  EXPECT_TRUE(r["structuredContent"]["variables"].is_array());
  c.Fails("externalize", {{"query", ""}});
}

TEST_F(ToolsTest, ToolOutputSaveLoadSelect) {
  Client& c = Ready();
  Json small =
      c.Ok("tool_output_save", {{"tool_name", "grep"},
                                {"args", {{"pattern", "TODO"}}},
                                {"result", "src/a.cc:3: TODO fix the parser"}});
  std::string p1 = small["structuredContent"]["pointer"];
  EXPECT_TRUE(small["structuredContent"]["in_memory"]);
  std::string big;
  for (int i = 0; i < 4000; ++i) big += "step " + std::to_string(i) + " ok\n";
  big += "database migration failed\n";
  Json large =
      c.Ok("tool_output_save", {{"tool_name", "build"}, {"result", big}});
  std::string p2 = large["structuredContent"]["pointer"];
  EXPECT_FALSE(large["structuredContent"]["in_memory"]);
  EXPECT_EQ(p2.rfind(dir_ + "/capture/session-sess-a-build-", 0), 0u) << p2;
  EXPECT_EQ(Client::Text(c.Ok("tool_output_load", {{"pointer", p1}})),
            "src/a.cc:3: TODO fix the parser");
  Json loaded = c.Ok("tool_output_load", {{"pointer", p2}});
  EXPECT_TRUE(loaded["structuredContent"].contains("truncated"));
  EXPECT_TRUE(loaded["structuredContent"].contains("ref"));
  Json sel = c.Ok("tool_output_select",
                  {{"question", "where is the TODO"}, {"use_llm", false}});
  ASSERT_FALSE(sel["structuredContent"]["selected"].empty());
  EXPECT_EQ(sel["structuredContent"]["selected"][0]["pointer"], p1);
  c.Fails("tool_output_load", {{"pointer", "/etc/passwd"}});
  c.Fails(
      "tool_output_save",
      {{"tool_name", "x"}, {"result", 1}, {"task_id", std::string(200, 'a')}});
  // Another session's file is not this client's to read.
  Client& other = Ready("agent-b", "sess-b");
  EXPECT_NE(other.Fails("tool_output_load", {{"pointer", p2}})
                .find("another session"),
            std::string::npos);
}

TEST_F(ToolsTest, Notes) {
  Client& c = Ready();
  Json added = c.Ok("notes_add", {{"slug", "JWT expiry"},
                                  {"body", "The JWT expires after 15 min."},
                                  {"type", "finding"},
                                  {"tags", {"security"}}});
  std::string path = added["structuredContent"]["path"];
  EXPECT_EQ(path.rfind("agent-a/sess-a/", 0), 0u) << path;
  c.Ok("notes_update", {{"path", path}, {"message", "checked again"}});
  Json found = c.Ok("notes_search", {{"text", "jwt"}, {"tags", {"security"}}});
  ASSERT_EQ(found["structuredContent"]["notes"].size(), 1u);
  EXPECT_EQ(found["structuredContent"]["notes"][0]["path"], path);
  std::string ref = found["structuredContent"]["notes"][0]["ref"];
  EXPECT_NE(Client::Text(c.Ok("get", {{"ref", ref}})).find("checked again"),
            std::string::npos);
  c.Fails("notes_update", {{"path", "../escape.md"}, {"message", "x"}});
  c.Fails("notes_update", {{"path", "agent-a/none.md"}, {"message", "x"}});
  c.Fails("notes_add", {{"slug", "!!!"}, {"body", "x"}});
}

TEST_F(ToolsTest, ClientsDoNotSeeEachOthersScopedData) {
  Client& a = Ready("agent-a", "sess-a");
  Client& b = Ready("agent-b", "sess-b");
  Json set =
      a.Ok("set",
           {{"key", "secret"}, {"value", "a's eyes only"}, {"scope", "agent"}});
  a.Ok("set", {{"key", "sess-note"}, {"value", "s"}, {"scope", "session"}});
  std::string ref = set["structuredContent"]["ref"];
  b.Fails("get", {{"key", "secret"}});
  b.Fails("get", {{"key", "sess-note"}});
  b.Fails("peek", {{"key", "secret"}});
  Json listed = b.Ok("list");
  EXPECT_TRUE(listed["structuredContent"]["items"].empty());
  Json s = b.Ok("search", {{"pattern", "eyes"}});
  EXPECT_TRUE(s["structuredContent"]["matches"].empty());
  Json res = b.Request("resources/list")["result"]["resources"];
  EXPECT_TRUE(res.empty());
  EXPECT_NE(b.Request("resources/read",
                      {{"uri", "ctxkit://agent/secret"}})["error"]["code"],
            nullptr);
  // A ref handed over explicitly is a capability (docs/mcp.md).
  EXPECT_EQ(Client::Text(b.Ok("get", {{"ref", ref}})), "a's eyes only");
  // A's own view sees it.
  EXPECT_EQ(Client::Text(a.Ok("get", {{"key", "secret"}})), "a's eyes only");
  // Prompts never externalize another client's session.
  Json p = b.Request("prompts/get",
                     {{"name", "root_prompt"},
                      {"arguments", {{"query", "q"}, {"session", "sess-a"}}}});
  EXPECT_EQ(p["error"]["code"], -32602);
}

}  // namespace
}  // namespace ctxkit::mcp::testing
