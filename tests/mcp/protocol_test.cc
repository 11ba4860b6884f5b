// JSON-RPC and lifecycle: the handshake, version negotiation, every error
// code, notifications, logging, completion, and random input.

#include <atomic>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "mcp/mcp_test_util.h"

namespace ctxkit::mcp::testing {
namespace {

using ProtocolTest = McpTest;

TEST_F(ProtocolTest, InitializeEchoesSupportedVersions) {
  for (const char* v : {"2025-06-18", "2025-11-25"}) {
    Client& c = NewClient();
    Json r = c.Initialize(v);
    ASSERT_TRUE(r.contains("result")) << r.dump();
    EXPECT_EQ(r["result"]["protocolVersion"], v);
    EXPECT_EQ(c.conn().negotiated_version(), v);
  }
}

TEST_F(ProtocolTest, UnsupportedVersionGetsTheLatest) {
  Client& c = NewClient();
  Json r = c.Initialize("2024-11-05");
  ASSERT_TRUE(r.contains("result")) << r.dump();
  EXPECT_EQ(r["result"]["protocolVersion"],
            std::string(kLatestProtocolVersion));
}

TEST_F(ProtocolTest, InitializeDeclaresCapabilitiesAndServerInfo) {
  Client& c = NewClient();
  EXPECT_EQ(c.conn().negotiated_version(), "");
  Json r = c.Initialize()["result"];
  EXPECT_EQ(r["capabilities"]["tools"]["listChanged"], false);
  EXPECT_EQ(r["capabilities"]["resources"]["subscribe"], true);
  EXPECT_EQ(r["capabilities"]["resources"]["listChanged"], false);
  EXPECT_TRUE(r["capabilities"].contains("prompts"));
  EXPECT_TRUE(r["capabilities"].contains("logging"));
  EXPECT_TRUE(r["capabilities"].contains("completions"));
  EXPECT_EQ(r["serverInfo"]["name"], "ctxkit");
  EXPECT_FALSE(r["serverInfo"]["version"].get<std::string>().empty());
  EXPECT_NE(r["instructions"].get<std::string>().find("ref"),
            std::string::npos);
}

TEST_F(ProtocolTest, InitializeParamsAreChecked) {
  Client& c = NewClient();
  Json r = c.Request("initialize", {{"capabilities", Json::object()}});
  EXPECT_EQ(r["error"]["code"], -32602);
  EXPECT_NE(r["error"]["message"].get<std::string>().find("protocolVersion"),
            std::string::npos);
  c.Initialize();
  r = c.Request("initialize", {{"protocolVersion", "2025-11-25"}});
  EXPECT_EQ(r["error"]["code"], -32600);
}

TEST_F(ProtocolTest, RequestsBeforeInitializeAreRefusedButPing) {
  Client& c = NewClient();
  Json r = c.Request("tools/list");
  EXPECT_EQ(r["error"]["code"], -32600);
  EXPECT_NE(r["error"]["message"].get<std::string>().find("initialize"),
            std::string::npos);
  r = c.Request("ping");
  EXPECT_EQ(r["result"], Json::object());
}

TEST_F(ProtocolTest, ParseErrorHasNullId) {
  Client& c = Ready();
  for (const char* bad : {"{", "not json", "{\"jsonrpc\":\"2.0\",", ""}) {
    auto reply = c.Raw(bad);
    ASSERT_TRUE(reply) << bad;
    Json j = Json::parse(*reply);
    EXPECT_EQ(j["error"]["code"], -32700) << bad;
    EXPECT_TRUE(j["id"].is_null());
    EXPECT_EQ(j["jsonrpc"], "2.0");
  }
}

TEST_F(ProtocolTest, InvalidRequests) {
  Client& c = Ready();
  const char* cases[] = {
      "42",
      "\"ping\"",
      "null",
      R"({"jsonrpc":"2.0","id":null,"method":"ping"})",
      R"({"jsonrpc":"2.0","id":true,"method":"ping"})",
      R"({"jsonrpc":"2.0","id":{"a":1},"method":"ping"})",
      R"({"jsonrpc":"1.0","id":1,"method":"ping"})",
      R"({"id":1,"method":"ping"})",
      R"({"jsonrpc":"2.0","id":1,"method":7})",
      R"({"jsonrpc":"2.0","id":1})",
  };
  for (const char* bad : cases) {
    auto reply = c.Raw(bad);
    ASSERT_TRUE(reply) << bad;
    Json j = Json::parse(*reply);
    EXPECT_EQ(j["error"]["code"], -32600) << bad << " -> " << *reply;
  }
}

TEST_F(ProtocolTest, BatchesAreRejected) {
  Client& c = Ready();
  auto reply = c.Raw(R"([{"jsonrpc":"2.0","id":1,"method":"ping"}])");
  ASSERT_TRUE(reply);
  Json j = Json::parse(*reply);
  EXPECT_EQ(j["error"]["code"], -32600);
  EXPECT_NE(j["error"]["message"].get<std::string>().find("batch"),
            std::string::npos);
  reply = c.Raw("[]");
  ASSERT_TRUE(reply);
  EXPECT_EQ(Json::parse(*reply)["error"]["code"], -32600);
}

TEST_F(ProtocolTest, UnknownMethod) {
  Client& c = Ready();
  Json r = c.Request("tools/frobnicate");
  EXPECT_EQ(r["error"]["code"], -32601);
  EXPECT_NE(r["error"]["message"].get<std::string>().find("tools/frobnicate"),
            std::string::npos);
}

TEST_F(ProtocolTest, BadParamsNameTheField) {
  Client& c = Ready();
  Json r = c.Request("tools/call", {{"arguments", Json::object()}});
  EXPECT_EQ(r["error"]["code"], -32602);
  EXPECT_NE(r["error"]["message"].get<std::string>().find("name"),
            std::string::npos);
  r = c.Request("tools/call", {{"name", "get"}, {"arguments", "x"}});
  EXPECT_EQ(r["error"]["code"], -32602);
  EXPECT_NE(r["error"]["message"].get<std::string>().find("arguments"),
            std::string::npos);
  r = c.Request("tools/call", {{"name", "no_such_tool"}});
  EXPECT_EQ(r["error"]["code"], -32602);
  r = c.Request("resources/read", Json::object());
  EXPECT_EQ(r["error"]["code"], -32602);
  EXPECT_NE(r["error"]["message"].get<std::string>().find("uri"),
            std::string::npos);
  auto reply =
      c.Raw(R"({"jsonrpc":"2.0","id":9,"method":"ping","params":[1]})");
  ASSERT_TRUE(reply);
  EXPECT_EQ(Json::parse(*reply)["error"]["code"], -32602);
  r = c.Request("logging/setLevel", {{"level", "loud"}});
  EXPECT_EQ(r["error"]["code"], -32602);
}

TEST_F(ProtocolTest, ToolArgumentErrorsDependOnTheRevision) {
  // 2025-06-18: invalid arguments are a protocol error.
  Client& old_client = NewClient("agent-o", "sess-o");
  old_client.Initialize("2025-06-18");
  Json r = old_client.Request("tools/call",
                              {{"name", "get"}, {"arguments", {{"key", 5}}}});
  EXPECT_EQ(r["error"]["code"], -32602);
  EXPECT_NE(r["error"]["message"].get<std::string>().find("arguments.key"),
            std::string::npos);
  // 2025-11-25 (SEP-1303): a tool error the model reads.
  Client& c = Ready();
  std::string text = c.Fails("get", {{"key", 5}});
  EXPECT_NE(text.find("arguments.key"), std::string::npos) << text;
  text = c.Fails("get", {{"key", "k"}, {"bogus", 1}});
  EXPECT_NE(text.find("bogus"), std::string::npos) << text;
  text = c.Fails("set", {{"key", "k"}});
  EXPECT_NE(text.find("arguments.value: is required"), std::string::npos)
      << text;
  text = c.Fails("list", {{"limit", 0}});
  EXPECT_NE(text.find("at least 1"), std::string::npos) << text;
  text = c.Fails("peek", {{"key", "k"}, {"unit", "pages"}});
  EXPECT_NE(text.find("one of"), std::string::npos) << text;
}

TEST_F(ProtocolTest, NotificationsAndResponsesGetNoReply) {
  Client& c = Ready();
  EXPECT_FALSE(c.Raw(R"({"jsonrpc":"2.0","method":"notifications/cancelled",)"
                     R"("params":{"requestId":1}})"));
  EXPECT_FALSE(c.Raw(R"({"jsonrpc":"2.0","method":"no/such/notification"})"));
  EXPECT_FALSE(c.Raw(R"({"jsonrpc":"2.0","id":5,"result":{}})"));
  EXPECT_FALSE(
      c.Raw(R"({"jsonrpc":"2.0","id":5,"error":{"code":1,"message":"x"}})"));
}

TEST_F(ProtocolTest, DeeplyNestedMessagesAreRefused) {
  Client& c = Ready();
  std::string deep(100000, '[');
  auto reply = c.Raw(deep);
  ASSERT_TRUE(reply);
  EXPECT_EQ(Json::parse(*reply)["error"]["code"], -32600);
  std::string args = R"({"jsonrpc":"2.0","id":1,"method":"tools/call",)"
                     R"("params":{"name":"tool_output_save","arguments":)"
                     R"({"tool_name":"t","result":)" +
                     std::string(5000, '[') + std::string(5000, ']') + "}}}";
  reply = c.Raw(args);
  ASSERT_TRUE(reply);
  EXPECT_EQ(Json::parse(*reply)["error"]["code"], -32600);
}

TEST_F(ProtocolTest, LoggingLevelControlsNotifications) {
  Client& c = Ready();
  c.Ok("set", {{"key", "a"}, {"value", "1"}});
  EXPECT_FALSE(
      c.WaitFor("notifications/message", std::chrono::milliseconds(50)));
  EXPECT_EQ(c.Request("logging/setLevel", {{"level", "info"}})["result"],
            Json::object());
  c.Ok("set", {{"key", "a"}, {"value", "2"}});
  auto n = c.WaitFor("notifications/message", std::chrono::milliseconds(500));
  ASSERT_TRUE(n);
  EXPECT_EQ((*n)["params"]["level"], "info");
  EXPECT_EQ((*n)["params"]["data"]["key"], "a");
  c.ClearNotifications();
  c.Request("logging/setLevel", {{"level", "error"}});
  c.Fails("get", {{"key", "missing"}});  // A warning: below error.
  EXPECT_FALSE(
      c.WaitFor("notifications/message", std::chrono::milliseconds(50)));
}

TEST_F(ProtocolTest, NoLogNotificationUntilTheClientSetsALevel) {
  Client& c = Ready();
  // A failing tool is a warning; a client that never asked (the AI SDK's
  // refuses any message it did not ask for) gets no notifications/message.
  c.Fails("get", {{"key", "missing"}});
  EXPECT_FALSE(
      c.WaitFor("notifications/message", std::chrono::milliseconds(100)));
  c.Request("logging/setLevel", {{"level", "warning"}});
  c.ClearNotifications();
  c.Fails("get", {{"key", "missing"}});
  auto n = c.WaitFor("notifications/message", std::chrono::milliseconds(500));
  ASSERT_TRUE(n);
  EXPECT_EQ((*n)["params"]["level"], "warning");
}

TEST_F(ProtocolTest, ServerDiscoverIsMethodNotFoundBeforeAndAfterInitialize) {
  // Protocol 2026-07-28 clients probe with server/discover and fall back
  // to initialize on a method-not-found answer.
  Client& c = NewClient();
  Json r = c.Request("server/discover");
  EXPECT_EQ(r["error"]["code"], -32601) << r.dump();
  EXPECT_NE(r["error"]["message"].get<std::string>().find("initialize"),
            std::string::npos);
  EXPECT_EQ(c.Initialize()["result"]["protocolVersion"], "2025-11-25");
  EXPECT_EQ(c.Request("server/discover")["error"]["code"], -32601);
}

TEST_F(ProtocolTest, CompletionOfKeysVersionsAndSessions) {
  Client& c = Ready();
  c.Ok("set", {{"key", "logs/build"}, {"value", "1"}});
  c.Ok("set", {{"key", "logs/build"}, {"value", "2"}});
  c.Ok("set", {{"key", "logs/test"}, {"value", "1"}});
  c.Ok("set", {{"key", "notes/x"}, {"value", "1"}});
  Json ref = {{"type", "ref/resource"},
              {"uri", "ctxkit://{scope}/{key}@{version}"}};
  Json r = c.Request(
      "completion/complete",
      {{"ref", ref}, {"argument", {{"name", "key"}, {"value", "logs/"}}}});
  EXPECT_EQ(r["result"]["completion"]["values"],
            Json::array({"logs/build", "logs/test"}));
  r = c.Request("completion/complete",
                {{"ref", ref},
                 {"argument", {{"name", "version"}, {"value", ""}}},
                 {"context", {{"arguments", {{"key", "logs%2Fbuild"}}}}}});
  EXPECT_EQ(r["result"]["completion"]["values"], Json::array({"1", "2"}));
  r = c.Request("completion/complete",
                {{"ref", {{"type", "ref/prompt"}, {"name", "root_prompt"}}},
                 {"argument", {{"name", "session"}, {"value", "se"}}}});
  EXPECT_EQ(r["result"]["completion"]["values"], Json::array({"sess-a"}));
  r = c.Request("completion/complete",
                {{"ref", {{"type", "ref/prompt"}, {"name", "nope"}}},
                 {"argument", {{"name", "x"}, {"value", ""}}}});
  EXPECT_EQ(r["error"]["code"], -32602);
}

TEST_F(ProtocolTest, ConcurrentRequestsOnOneConnection) {
  Client& c = Ready();
  Connection& conn = c.conn();
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&conn, &ok, t] {
      for (int i = 0; i < 20; ++i) {
        Json set = {{"jsonrpc", "2.0"},
                    {"id", t * 100 + i},
                    {"method", "tools/call"},
                    {"params",
                     {{"name", "set"},
                      {"arguments",
                       {{"key", "k" + std::to_string(t)},
                        {"value", std::to_string(i)}}}}}};
        auto reply = conn.Handle(set.dump());
        if (reply && Json::parse(*reply)["result"]["isError"] == false) ++ok;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(ok.load(), 160);
  Json v = c.Ok("versions", {{"key", "k3"}});
  EXPECT_EQ(v["structuredContent"]["versions"].size(), 20u);
}

// Random bytes and mutated valid messages: the server answers each with a
// well-formed JSON-RPC message or nothing, and never crashes.
TEST_F(ProtocolTest, RandomInputNeverCrashes) {
  Client& c = Ready();
  std::mt19937 rng(12345);
  std::vector<std::string> seeds = {
      R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get","arguments":{"key":"k"}}})",
      R"({"jsonrpc":"2.0","id":"x","method":"resources/read","params":{"uri":"ctxkit://global/k@1"}})",
      R"({"jsonrpc":"2.0","id":2,"method":"resources/list","params":{"cursor":"ck1.zz"}})",
      R"({"jsonrpc":"2.0","id":3,"method":"prompts/get","params":{"name":"root_prompt","arguments":{"query":"q"}}})",
      R"({"jsonrpc":"2.0","id":4,"method":"completion/complete","params":{"ref":{"type":"ref/resource","uri":"ctxkit://x"},"argument":{"name":"key","value":""}}})",
      R"({"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"peek","arguments":{"key":"k","start":-5}}})",
  };
  c.Ok("set", {{"key", "k"}, {"value", "line 1\nline 2\n"}});
  const std::string alphabet = "{}[]\":,0123456789-.eE truefalsnl\\/u%@";
  for (int i = 0; i < 3000; ++i) {
    std::string msg;
    if (i % 3 == 0) {
      size_t n = rng() % 64;
      for (size_t k = 0; k < n; ++k) msg += static_cast<char>(rng() % 256);
    } else {
      msg = seeds[rng() % seeds.size()];
      int edits = 1 + static_cast<int>(rng() % 4);
      for (int e = 0; e < edits && !msg.empty(); ++e) {
        size_t pos = rng() % msg.size();
        switch (rng() % 3) {
          case 0:
            msg[pos] = alphabet[rng() % alphabet.size()];
            break;
          case 1:
            msg.erase(pos, 1 + rng() % 4);
            break;
          default:
            msg.insert(pos, 1, alphabet[rng() % alphabet.size()]);
        }
      }
    }
    std::optional<std::string> reply = c.Raw(msg);
    if (!reply) continue;
    Json j = Json::parse(*reply, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << msg;
    ASSERT_EQ(j["jsonrpc"], "2.0") << msg;
    ASSERT_TRUE(j.contains("result") != j.contains("error")) << *reply;
    if (j.contains("error")) {
      ASSERT_TRUE(j["error"]["code"].is_number_integer());
      ASSERT_NE(j["error"]["code"], -32603) << msg << " -> " << *reply;
    }
  }
  // Still serving.
  EXPECT_EQ(c.Request("ping")["result"], Json::object());
}

}  // namespace
}  // namespace ctxkit::mcp::testing
