// `ctxkit serve`'s transport end to end over real loopback sockets: the
// HttpServer on an ephemeral port in front of the real protocol core on a
// temporary store, driven with raw HTTP requests.

#include "mcp/http_server.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <initializer_list>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "common/pg_store.h"
#include "ctxkit/mcp.h"
#include "ctxkit/store.h"
#include "mcp_http/http_fixture.h"
#include "mcp_http/http_test_client.h"

namespace ctxkit::mcp::testing {
namespace {

using Json = nlohmann::json;

const HeaderList kPostHeaders = {
    {"Content-Type", "application/json"},
    {"Accept", "application/json, text/event-stream"}};

class HttpServerTest : public HttpFixture {
 protected:
  static std::string Message(int id, const std::string& method,
                             Json params = Json::object()) {
    return Json{{"jsonrpc", "2.0"},
                {"id", id},
                {"method", method},
                {"params", std::move(params)}}
        .dump();
  }

  HttpReply Post(const std::string& body, HeaderList extra = {},
                 const std::string& session = "") {
    HeaderList h = kPostHeaders;
    if (!session.empty()) h.push_back({"Mcp-Session-Id", session});
    h.insert(h.end(), extra.begin(), extra.end());
    return HttpCall(port_, "POST", body, h);
  }

  // initialize + notifications/initialized; returns the session id.
  std::string Open(HeaderList extra = {}) {
    HttpReply r =
        Post(Message(1, "initialize",
                     {{"protocolVersion", "2025-11-25"},
                      {"capabilities", Json::object()},
                      {"clientInfo", {{"name", "gtest"}, {"version", "1"}}}}),
             extra);
    EXPECT_EQ(r.status, 200) << r.body;
    std::string id = r.Header("mcp-session-id");
    EXPECT_FALSE(id.empty());
    HttpReply n = Post(
        R"({"jsonrpc":"2.0","method":"notifications/initialized"})", extra, id);
    EXPECT_EQ(n.status, 202) << n.body;
    return id;
  }

  Json Call(const std::string& session, const std::string& tool, Json args,
            int id = 7) {
    HttpReply r =
        Post(Message(id, "tools/call", {{"name", tool}, {"arguments", args}}),
             {}, session);
    EXPECT_EQ(r.status, 200) << r.body;
    Json j = Json::parse(r.body, nullptr, false);
    EXPECT_TRUE(j.contains("result")) << r.body;
    return j.contains("result") ? j["result"] : Json();
  }

  static int RpcCode(const HttpReply& r) {
    Json j = Json::parse(r.body, nullptr, false);
    if (!j.is_object() || !j.contains("error")) return 0;
    return j["error"].value("code", 0);
  }
};

TEST_F(HttpServerTest, SessionLifecycle) {
  Serve();
  std::string id = Open();
  EXPECT_EQ(id.size(), 72u);
  EXPECT_EQ(http_->session_count(), 1u);
  std::string list = Message(2, "tools/list");

  HttpReply r = Post(list);  // No session id.
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(RpcCode(r), -32000);
  EXPECT_NE(r.body.find("Mcp-Session-Id"), std::string::npos);

  r = Post(list, {}, "0123456789abcdef0123456789abcdef");
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(RpcCode(r), -32001);

  r = Post(list, {}, id);
  EXPECT_EQ(r.status, 200);
  EXPECT_NE(r.Header("content-type").find("application/json"),
            std::string::npos);
  Json j = Json::parse(r.body);
  EXPECT_EQ(j["id"], 2);
  EXPECT_FALSE(j["result"]["tools"].empty());

  // initialize again on an existing session is refused.
  r = Post(Message(3, "initialize", {{"protocolVersion", "2025-11-25"}}), {},
           id);
  EXPECT_EQ(r.status, 400);

  r = HttpCall(port_, "DELETE", "", {{"Mcp-Session-Id", id}});
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(http_->session_count(), 0u);
  EXPECT_EQ(Post(list, {}, id).status, 404);
  EXPECT_EQ(HttpCall(port_, "DELETE", "", {{"Mcp-Session-Id", id}}).status,
            404);
  EXPECT_EQ(HttpCall(port_, "DELETE", "", {}).status, 400);
  EXPECT_EQ(HttpCall(port_, "PUT", "{}", kPostHeaders).status, 405);
}

TEST_F(HttpServerTest, RefusedInitializeOpensNoSession) {
  Serve();
  HttpReply r = Post(Message(1, "initialize", {{"protocolVersion", 5}}));
  EXPECT_EQ(r.status, 200);
  EXPECT_NE(RpcCode(r), 0) << r.body;
  EXPECT_TRUE(r.Header("mcp-session-id").empty());
  EXPECT_EQ(http_->session_count(), 0u);
}

TEST_F(HttpServerTest, NotificationsAndResponsesGet202) {
  Serve();
  std::string id = Open();
  HttpReply r = Post(
      R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}})",
      {}, id);
  EXPECT_EQ(r.status, 202);
  EXPECT_TRUE(r.body.empty());
  r = Post(R"({"jsonrpc":"2.0","id":"s1","result":{}})", {}, id);
  EXPECT_EQ(r.status, 202);
  EXPECT_TRUE(r.body.empty());
}

TEST_F(HttpServerTest, ProtocolVersionHeader) {
  Serve();
  std::string id = Open();
  std::string ping = Message(4, "ping");
  EXPECT_EQ(Post(ping, {{"MCP-Protocol-Version", "2025-11-25"}}, id).status,
            200);
  EXPECT_EQ(Post(ping, {{"MCP-Protocol-Version", "2025-06-18"}}, id).status,
            200);
  HttpReply r = Post(ping, {{"MCP-Protocol-Version", "2024-01-01"}}, id);
  EXPECT_EQ(r.status, 400);
  EXPECT_NE(r.body.find("2024-01-01"), std::string::npos);
}

TEST_F(HttpServerTest, A2026ClientsProbeFallsBackToInitialize) {
  Serve();
  // server/discover under MCP-Protocol-Version 2026-07-28, without a
  // session: a JSON-RPC method-not-found for that request (HTTP 200), the
  // answer on which dual-era clients fall back to initialize.
  HttpReply r = Post(Message(7, "server/discover"),
                     {{"MCP-Protocol-Version", "2026-07-28"}});
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_TRUE(r.Header("mcp-session-id").empty());
  Json j = Json::parse(r.body);
  EXPECT_EQ(j["id"], 7);
  EXPECT_EQ(j["error"]["code"], -32601);
  // A GET before initialize: no stream outside a session (405, which
  // clients that open one early take quietly), not a session error.
  HttpReply get = HttpCall(port_, "GET", "", {{"Accept", "text/event-stream"}});
  EXPECT_EQ(get.status, 405) << get.body;
  EXPECT_EQ(get.Header("allow"), "POST");
  Open();  // The fallback works.
}

TEST_F(HttpServerTest, OriginAndHostValidation) {
  HttpOptions o;
  o.allowed_origins = {"https://app.example:8443"};
  Serve(o);
  std::string init =
      Message(1, "initialize",
              {{"protocolVersion", "2025-11-25"},
               {"capabilities", Json::object()},
               {"clientInfo", {{"name", "gtest"}, {"version", "1"}}}});
  HttpReply r = Post(init, {{"Origin", "http://evil.example.com"}});
  EXPECT_EQ(r.status, 403);
  EXPECT_EQ(RpcCode(r), -32000);
  r = Post(init, {{"Host", "evil.example.com"}});
  EXPECT_EQ(r.status, 403);
  r = Post(init, {{"Host", "evil.example.com:" + std::to_string(port_)},
                  {"Origin", "http://evil.example.com"}});
  EXPECT_EQ(r.status, 403);
  EXPECT_EQ(http_->session_count(), 0u);

  EXPECT_EQ(Post(init, {{"Origin", "http://localhost:5173"}}).status, 200);
  EXPECT_EQ(Post(init, {{"Host", "localhost:" + std::to_string(port_)},
                        {"Origin", "http://localhost"}})
                .status,
            200);
  EXPECT_EQ(Post(init, {{"Origin", "https://app.example:8443"}}).status, 200);
  EXPECT_EQ(Post(init, {{"Origin", "https://app.example:9999"}}).status, 403);
  // A GET or DELETE from a foreign origin is refused as well.
  EXPECT_EQ(HttpCall(port_, "GET", "",
                     {{"Accept", "text/event-stream"},
                      {"Origin", "http://evil.example.com"}})
                .status,
            403);
}

TEST_F(HttpServerTest, NonLoopbackBindNeedsTokenAndEveryRequestCarriesIt) {
  HttpOptions o;
  o.bind = "0.0.0.0";
  Result<std::unique_ptr<HttpServer>> refused =
      HttpServer::Start(server_.get(), o);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(refused.status().message().find("token"), std::string::npos);

  o.token = "tok-123";
  Serve(o);
  std::string init =
      Message(1, "initialize",
              {{"protocolVersion", "2025-11-25"},
               {"capabilities", Json::object()},
               {"clientInfo", {{"name", "gtest"}, {"version", "1"}}}});
  HttpReply r = Post(init);
  EXPECT_EQ(r.status, 401);
  EXPECT_EQ(r.Header("www-authenticate"), "Bearer");
  EXPECT_EQ(Post(init, {{"Authorization", "Bearer tok-12"}}).status, 401);
  EXPECT_EQ(Post(init, {{"Authorization", "Basic tok-123"}}).status, 401);
  std::string id = Open({{"Authorization", "Bearer tok-123"}});
  EXPECT_EQ(Post(Message(2, "ping"), {}, id).status, 401);
  EXPECT_EQ(Post(Message(2, "ping"), {{"Authorization", "Bearer tok-123"}}, id)
                .status,
            200);
}

TEST_F(HttpServerTest, TokenAlsoGuardsLoopback) {
  HttpOptions o;
  o.token = "abc";
  Serve(o);
  EXPECT_EQ(Post(Message(1, "ping")).status, 401);
}

TEST_F(HttpServerTest, MalformedAndInvalidMessages) {
  Serve();
  std::string id = Open();
  HttpReply r = Post("{\"jsonrpc\":\"2.0\",\"id\":", {}, id);
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(RpcCode(r), -32700);
  EXPECT_TRUE(Json::parse(r.body)["id"].is_null());
  r = Post("not json at all");  // Even without a session.
  EXPECT_EQ(RpcCode(r), -32700);
  r = Post(R"([{"jsonrpc":"2.0","id":1,"method":"ping"}])", {}, id);
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(RpcCode(r), -32600);
  std::string deep = R"({"jsonrpc":"2.0","id":1,"method":"ping","params":)" +
                     std::string(100000, '[') + std::string(100000, ']') + "}";
  EXPECT_EQ(RpcCode(Post(deep, {}, id)), -32600);
  r = Post(Message(5, "no/such/method"), {}, id);
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(RpcCode(r), -32601);
  r = Post(Message(6, "tools/call", {{"name", 42}}), {}, id);
  EXPECT_EQ(RpcCode(r), -32602);
  // A failing tool is a result the model can read, not a protocol error.
  Json res = Call(id, "get", {{"key", "missing/key"}});
  EXPECT_EQ(res.value("isError", false), true);
  // Wrong media types.
  EXPECT_EQ(HttpCall(port_, "POST", Message(8, "ping"),
                     {{"Content-Type", "text/plain"}, {"Mcp-Session-Id", id}})
                .status,
            415);
  EXPECT_EQ(HttpCall(port_, "POST", Message(8, "ping"),
                     {{"Content-Type", "application/json"},
                      {"Accept", "text/html"},
                      {"Mcp-Session-Id", id}})
                .status,
            406);
  EXPECT_EQ(HttpCall(port_, "POST", Message(8, "ping"),
                     {{"Content-Type", "application/json"},
                      {"Content-Encoding", "gzip"},
                      {"Mcp-Session-Id", id}})
                .status,
            415);
  // The server is still fine.
  EXPECT_EQ(Post(Message(9, "ping"), {}, id).status, 200);
}

TEST_F(HttpServerTest, OversizedBodyGets413WithJsonRpcError) {
  HttpOptions o;
  o.max_request_bytes = 64 * 1024;
  Serve(o);
  std::string id = Open();
  std::string big = Message(
      2, "tools/call",
      {{"name", "set"},
       {"arguments", {{"key", "big"}, {"value", std::string(100000, 'x')}}}});
  HttpReply r = Post(big, {}, id);
  EXPECT_EQ(r.status, 413);
  EXPECT_EQ(RpcCode(r), -32600);
  EXPECT_NE(r.body.find("--max-request-bytes"), std::string::npos);
  EXPECT_FALSE(store_->OpenView("x", "")->Get("big").ok());
  EXPECT_EQ(Post(Message(3, "ping"), {}, id).status, 200);
}

TEST_F(HttpServerTest, SixtyFourMebibyteSetAcceptedByDefault) {
  Serve();
  std::string id = Open();
  std::string value(64u << 20, 'v');
  for (size_t i = 0; i < value.size(); i += 4096) value[i] = '\n';
  HeaderList h = kPostHeaders;
  h.push_back({"Mcp-Session-Id", id});
  // Minutes, not seconds: a sanitizer build parses 64 MiB slowly.
  HttpReply r =
      HttpCall(port_, "POST",
               Message(2, "tools/call",
                       {{"name", "set"},
                        {"arguments", {{"key", "huge"}, {"value", value}}}}),
               h, 240000);
  ASSERT_EQ(r.status, 200) << r.body.substr(0, 500);
  Json res = Json::parse(r.body)["result"];
  EXPECT_EQ(res.value("isError", true), false) << res.dump().substr(0, 500);
  Result<std::string> got = store_->OpenView("x", "")->Get("huge");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->size(), value.size());
  EXPECT_TRUE(*got == value);
}

TEST_F(HttpServerTest, EventStreamDeliversResourceUpdated) {
  Serve();
  std::string id = Open();
  Call(id, "set", {{"key", "watched"}, {"value", "1"}});
  HttpReply r = Post(
      Message(3, "resources/subscribe", {{"uri", "ctxkit://global/watched"}}),
      {}, id);
  ASSERT_EQ(r.status, 200) << r.body;

  HttpConn stream(port_);
  ASSERT_TRUE(
      stream.Send(port_, "GET", "",
                  {{"Accept", "text/event-stream"}, {"Mcp-Session-Id", id}}));
  HttpReply head = stream.ReadHead(5000);
  ASSERT_EQ(head.status, 200);
  EXPECT_EQ(head.Header("content-type"), "text/event-stream");

  Call(id, "set", {{"key", "watched"}, {"value", "2"}});
  std::string got = stream.ReadUntil("notifications/resources/updated", 10000);
  EXPECT_NE(got.find("notifications/resources/updated"), std::string::npos)
      << got;
  EXPECT_NE(got.find("ctxkit://global/watched"), std::string::npos);
  EXPECT_NE(got.find("event: message\ndata: {"), std::string::npos);

  // Without Accept: text/event-stream the GET is refused.
  EXPECT_EQ(HttpCall(port_, "GET", "",
                     {{"Accept", "application/json"}, {"Mcp-Session-Id", id}})
                .status,
            406);
  // DELETE ends the open stream.
  EXPECT_EQ(HttpCall(port_, "DELETE", "", {{"Mcp-Session-Id", id}}).status,
            200);
  stream.ReadUntil("0\r\n\r\n", 5000);
  EXPECT_TRUE(stream.ReadUntil("0\r\n\r\n", 100).find("0\r\n\r\n") !=
                  std::string::npos ||
              stream.peer_closed());
}

TEST_F(HttpServerTest, SessionsAreIsolated) {
  Serve();
  std::string a = Open();
  std::string b = Open();
  ASSERT_NE(a, b);
  for (const char* scope : {"session", "agent"}) {
    Json res = Call(a, "set",
                    {{"key", std::string("secret-") + scope},
                     {"value", "A-ONLY"},
                     {"scope", scope}});
    ASSERT_EQ(res.value("isError", true), false) << res.dump();
    Json mine = Call(a, "get", {{"key", std::string("secret-") + scope}});
    EXPECT_EQ(mine.value("isError", true), false) << mine.dump();
    EXPECT_NE(mine.dump().find("A-ONLY"), std::string::npos);

    Json theirs = Call(b, "get", {{"key", std::string("secret-") + scope}});
    EXPECT_EQ(theirs.value("isError", false), true) << theirs.dump();
    EXPECT_EQ(theirs.dump().find("A-ONLY"), std::string::npos);
    HttpReply r = Post(Message(11, "resources/read",
                               {{"uri", std::string("ctxkit://") + scope +
                                            "/secret-" + scope}}),
                       {}, b);
    EXPECT_NE(RpcCode(r), 0) << r.body;
    EXPECT_EQ(r.body.find("A-ONLY"), std::string::npos);
  }
  HttpReply list = Post(Message(12, "resources/list"), {}, b);
  EXPECT_EQ(list.body.find("secret-"), std::string::npos) << list.body;
  list = Post(Message(12, "resources/list"), {}, a);
  EXPECT_NE(list.body.find("secret-session"), std::string::npos) << list.body;
}

// A second `ctxkit serve` of the same store, as on another machine: its own
// Store instance, MCP server and port (in the pg. variant, a PostgreSQL
// store: the home, on one machine here, holds only local caches).
struct OtherServer {
  std::unique_ptr<Store> store;
  std::unique_ptr<Server> server;
  std::unique_ptr<HttpServer> http;

  static OtherServer Of(const std::string& home) {
    OtherServer o;
    Options options;
    options.home = home;
    options.store_url = ::ctxkit::testing::PgStoreUrlFor(home);
    Result<std::unique_ptr<Store>> store = Store::Open(options);
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    if (!store.ok()) return o;
    o.store = std::move(*store);
    Result<std::unique_ptr<Server>> server =
        Server::Create(o.store.get(), home, {});
    EXPECT_TRUE(server.ok()) << server.status().ToString();
    if (!server.ok()) return o;
    o.server = std::move(*server);
    HttpOptions h;
    h.port = 0;
    Result<std::unique_ptr<HttpServer>> http =
        HttpServer::Start(o.server.get(), h);
    EXPECT_TRUE(http.ok()) << http.status().ToString();
    if (http.ok()) o.http = std::move(*http);
    return o;
  }
  int port() const { return http ? http->port() : 0; }
};

TEST_F(HttpServerTest, SessionResumesOnAnotherServerOfTheStore) {
  Serve();
  std::string id = Open();
  Json set = Call(id, "set",
                  {{"key", "plan"}, {"value", "MINE"}, {"scope", "session"}});
  ASSERT_EQ(set.value("isError", true), false) << set.dump();

  OtherServer b = OtherServer::Of(store_->home());
  ASSERT_NE(b.port(), 0);
  const HeaderList old_version = {{"MCP-Protocol-Version", "2025-06-18"}};
  HeaderList h = kPostHeaders;
  h.push_back({"Mcp-Session-Id", id});
  h.push_back(old_version[0]);
  HttpReply r =
      HttpCall(b.port(), "POST",
               Message(2, "tools/call",
                       {{"name", "get"}, {"arguments", {{"key", "plan"}}}}),
               h);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_NE(r.body.find("MINE"), std::string::npos) << r.body;
  EXPECT_EQ(b.http->session_count(), 1u);
  // It speaks the revision the header names: under 2025-06-18 a schema
  // violation is a protocol error, not a tool result.
  r = HttpCall(
      b.port(), "POST",
      Message(3, "tools/call", {{"name", "get"}, {"arguments", {{"key", 5}}}}),
      h);
  EXPECT_EQ(RpcCode(r), -32602) << r.body;

  // Written on B in the session's scope, read back on A.
  r = HttpCall(
      b.port(), "POST",
      Message(
          4, "tools/call",
          {{"name", "set"},
           {"arguments",
            {{"key", "from-b"}, {"value", "B-WROTE"}, {"scope", "session"}}}}),
      h);
  ASSERT_EQ(r.status, 200) << r.body;
  Json got = Call(id, "get", {{"key", "from-b"}});
  EXPECT_NE(got.dump().find("B-WROTE"), std::string::npos) << got.dump();

  // Another client's session stays out of reach on B too.
  std::string other = Open();
  HeaderList ho = kPostHeaders;
  ho.push_back({"Mcp-Session-Id", other});
  r = HttpCall(b.port(), "POST",
               Message(5, "tools/call",
                       {{"name", "get"}, {"arguments", {{"key", "plan"}}}}),
               ho);
  ASSERT_EQ(r.status, 200) << r.body;
  Json theirs = Json::parse(r.body, nullptr, false);
  EXPECT_EQ(theirs["result"].value("isError", false), true) << r.body;
  EXPECT_EQ(r.body.find("MINE"), std::string::npos) << r.body;
}

TEST_F(HttpServerTest, ConcurrentRequestsResumeOneSession) {
  Serve();
  std::string id = Open();
  OtherServer b = OtherServer::Of(store_->home());
  HeaderList h = kPostHeaders;
  h.push_back({"Mcp-Session-Id", id});
  std::atomic<int> ok{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      HttpReply r =
          HttpCall(b.port(), "POST", Message(100 + t, "tools/list"), h);
      // Never "not initialized": a resumed session joins the table ready.
      if (r.status == 200 && RpcCode(r) == 0) ++ok;
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(ok.load(), 8);
  EXPECT_EQ(b.http->session_count(), 1u);
}

TEST_F(HttpServerTest, SessionResumesAfterARestart) {
  Serve();
  std::string id = Open();
  Call(id, "set", {{"key", "k"}, {"value", "KEPT"}, {"scope", "session"}});
  http_.reset();
  Serve();  // A new transport, as after `ctxkit serve` restarted.
  EXPECT_EQ(http_->session_count(), 0u);
  // The first request after the restart may be the event stream's GET.
  HttpConn stream(port_);
  ASSERT_TRUE(
      stream.Send(port_, "GET", "",
                  {{"Accept", "text/event-stream"}, {"Mcp-Session-Id", id}}));
  ASSERT_EQ(stream.ReadHead(5000).status, 200);
  EXPECT_EQ(http_->session_count(), 1u);
  Json got = Call(id, "get", {{"key", "k"}});
  EXPECT_NE(got.dump().find("KEPT"), std::string::npos) << got.dump();
  // Subscriptions are the server's own: the client subscribes again.
  HttpReply r =
      Post(Message(3, "resources/subscribe", {{"uri", "ctxkit://session/k"}}),
           {}, id);
  ASSERT_EQ(r.status, 200) << r.body;
  Call(id, "set", {{"key", "k"}, {"value", "NEW"}, {"scope", "session"}});
  std::string events =
      stream.ReadUntil("notifications/resources/updated", 10000);
  EXPECT_NE(events.find("ctxkit://session/k"), std::string::npos) << events;
}

TEST_F(HttpServerTest, ForgedForeignAndTerminatedIdsAreNotResumed) {
  Serve();
  std::string id = Open();
  std::string list = Message(2, "tools/list");
  std::string forged = id;
  forged[3] = forged[3] == 'a' ? 'b' : 'a';
  EXPECT_EQ(Post(list, {}, forged).status, 404);
  EXPECT_EQ(HttpCall(port_, "DELETE", "", {{"Mcp-Session-Id", forged}}).status,
            404);

  // A server of another store does not accept this store's ids.
  OtherServer foreign = OtherServer::Of(dir_ + "/other-store");
  HeaderList h = kPostHeaders;
  h.push_back({"Mcp-Session-Id", id});
  EXPECT_EQ(HttpCall(foreign.port(), "POST", list, h).status, 404);

  // Terminated on A: served nowhere, not by B that holds it too, and not
  // by A after a restart.
  OtherServer b = OtherServer::Of(store_->home());
  ASSERT_EQ(HttpCall(b.port(), "POST", list, h).status, 200);
  EXPECT_EQ(b.http->session_count(), 1u);
  EXPECT_EQ(HttpCall(port_, "DELETE", "", {{"Mcp-Session-Id", id}}).status,
            200);
  EXPECT_EQ(HttpCall(b.port(), "POST", list, h).status, 404);
  EXPECT_EQ(b.http->session_count(), 0u);
  http_.reset();
  Serve();
  EXPECT_EQ(Post(list, {}, id).status, 404);

  // A session can be terminated on a server that never held it.
  std::string second = Open();
  EXPECT_EQ(
      HttpCall(b.port(), "DELETE", "", {{"Mcp-Session-Id", second}}).status,
      200);
  http_.reset();
  Serve();
  EXPECT_EQ(Post(list, {}, second).status, 404);
}

TEST_F(HttpServerTest, OperatorsSharedSessionIsEveryClientsSessionOnly) {
  HttpOptions o;
  o.shared_session = "team-1";
  Serve(o);
  std::string a = Open();
  std::string b = Open();
  for (const char* scope : {"session", "agent"}) {
    Json set = Call(a, "set",
                    {{"key", std::string("k-") + scope},
                     {"value", std::string("FROM-A-") + scope},
                     {"scope", scope}});
    ASSERT_EQ(set.value("isError", true), false) << set.dump();
  }
  // The session scope is shared; the agent scope stays each client's.
  Json shared = Call(b, "get", {{"key", "k-session"}});
  EXPECT_NE(shared.dump().find("FROM-A-session"), std::string::npos)
      << shared.dump();
  Json agent = Call(b, "get", {{"key", "k-agent"}});
  EXPECT_EQ(agent.value("isError", false), true) << agent.dump();
  // One client's DELETE ends only its own transport session.
  EXPECT_EQ(HttpCall(port_, "DELETE", "", {{"Mcp-Session-Id", a}}).status, 200);
  EXPECT_EQ(Post(Message(2, "tools/list"), {}, a).status, 404);
  EXPECT_EQ(Post(Message(2, "tools/list"), {}, b).status, 200);

  HttpOptions bad;
  bad.shared_session = "no spaces";
  bad.port = 0;
  EXPECT_EQ(HttpServer::Start(server_.get(), bad).status().code(),
            StatusCode::kInvalidArgument);
}

TEST_F(HttpServerTest, EightConcurrentClients) {
  Serve();
  std::atomic<int> ok{0}, bad{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      std::string id = Open();
      for (int i = 0; i < 25; ++i) {
        std::string key = "c" + std::to_string(t) + "/" + std::to_string(i);
        HttpReply r =
            Post(Message(100 + i, "tools/call",
                         {{"name", "set"},
                          {"arguments", {{"key", key}, {"value", key}}}}),
                 {}, id);
        (r.status == 200 && RpcCode(r) == 0 ? ok : bad)++;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(ok.load(), 200);
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(http_->session_count(), 8u);
}

// Eight clients writing one key: each set must hand back the static ref of
// the version it wrote (a set followed by a lookup named other clients'
// versions under this load).
TEST_F(HttpServerTest, ConcurrentSetsOfOneKeyReturnEachWritersVersion) {
  Serve();
  constexpr int kClients = 8;
  constexpr int kSets = 50;
  std::vector<std::vector<std::pair<std::string, std::string>>> got(kClients);
  std::vector<std::thread> threads;
  for (int t = 0; t < kClients; ++t) {
    threads.emplace_back([&, t] {
      std::string id = Open();
      for (int i = 0; i < kSets; ++i) {
        std::string value =
            "client " + std::to_string(t) + " write " + std::to_string(i);
        HttpReply r = Post(
            Message(100 + i, "tools/call",
                    {{"name", "set"},
                     {"arguments", {{"key", "shared"}, {"value", value}}}}),
            {}, id);
        Json j = Json::parse(r.body, nullptr, false);
        if (!j.is_object() || !j.contains("result")) continue;
        Json structured = j["result"].value("structuredContent", Json());
        got[t].push_back({structured.value("ref", ""), value});
      }
    });
  }
  for (auto& th : threads) th.join();
  auto view = store_->OpenView("", "");
  ASSERT_TRUE(view.ok());
  std::set<uint64_t> versions;
  for (int t = 0; t < kClients; ++t) {
    ASSERT_EQ(got[t].size(), static_cast<size_t>(kSets)) << "client " << t;
    for (const auto& [wire, value] : got[t]) {
      Result<Ref> ref = ParseRef(wire);
      ASSERT_TRUE(ref.ok()) << wire;
      EXPECT_TRUE(ref->is_static()) << wire;
      versions.insert(ref->version);
      Result<std::string> read = view->Resolve(*ref);
      ASSERT_TRUE(read.ok()) << read.status().ToString();
      EXPECT_EQ(*read, value) << wire << " names another client's version";
    }
  }
  EXPECT_EQ(versions.size(), static_cast<size_t>(kClients * kSets))
      << "a version number was handed out twice";
}

TEST_F(HttpServerTest, KeepAliveConnectionServesManyRequests) {
  Serve();
  std::string id = Open();
  HttpConn c(port_);
  HeaderList h = kPostHeaders;
  h.push_back({"Mcp-Session-Id", id});
  for (int i = 0; i < 20; ++i) {
    ASSERT_TRUE(c.Send(port_, "POST", Message(i, "ping"), h)) << i;
    HttpReply r = c.Read(5000);
    ASSERT_EQ(r.status, 200) << i;
    EXPECT_EQ(Json::parse(r.body)["id"], i);
  }
}

TEST_F(HttpServerTest, StopEndsOpenStreamsPromptly) {
  HttpOptions o;
  o.keepalive_interval = std::chrono::milliseconds(60000);
  Serve(o);
  std::string id = Open();
  HttpConn stream(port_);
  ASSERT_TRUE(
      stream.Send(port_, "GET", "",
                  {{"Accept", "text/event-stream"}, {"Mcp-Session-Id", id}}));
  ASSERT_EQ(stream.ReadHead(5000).status, 200);
  auto start = std::chrono::steady_clock::now();
  http_->Stop();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST_F(HttpServerTest, PortInUseIsAnError) {
  Serve();
  HttpOptions o;
  o.port = port_;
  Result<std::unique_ptr<HttpServer>> again =
      HttpServer::Start(server_.get(), o);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().code(), StatusCode::kIoError);
}

// ---- Hardening: what a hostile or careless client could do before.

// A chunked body is held to --max-request-bytes as it arrives (httplib
// checks only Content-Length): a 5 KB chunked set under a 2 KB limit is 413
// and stores nothing.
TEST_F(HttpServerTest, ChunkedBodiesAreHeldToTheLimit) {
  HttpOptions o;
  o.max_request_bytes = 2048;
  Serve(o);
  std::string id = Open();
  std::string body = Message(
      2, "tools/call",
      {{"name", "set"},
       {"arguments", {{"key", "big"}, {"value", std::string(5000, 'x')}}}});
  std::string chunked;
  for (size_t at = 0; at < body.size(); at += 1000) {
    std::string piece = body.substr(at, 1000);
    char size[16];
    std::snprintf(size, sizeof size, "%zx\r\n", piece.size());
    chunked += size + piece + "\r\n";
  }
  chunked += "0\r\n\r\n";
  HeaderList h = kPostHeaders;
  h.push_back({"Mcp-Session-Id", id});
  h.push_back({"Transfer-Encoding", "chunked"});
  std::string head =
      "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port_) + "\r\n";
  for (const auto& [k, v] : h) head += k + ": " + v + "\r\n";
  HttpConn raw(port_);
  ASSERT_TRUE(raw.connected());
  ASSERT_TRUE(raw.SendRaw(head + "\r\n" + chunked));
  HttpReply r = raw.Read();
  EXPECT_EQ(r.status, 413) << r.body;
  EXPECT_EQ(RpcCode(r), -32600);
  EXPECT_FALSE(store_->OpenView("x", "")->Get("big").ok());
}

// Clients that send their request head a byte at a time each hold a
// connection; they no longer starve a client that sends a whole request.
TEST_F(HttpServerTest, SlowClientsDoNotStarveOthers) {
  HttpOptions o;
  o.threads = 2;
  o.max_connections = 64;
  Serve(o);
  std::vector<std::unique_ptr<HttpConn>> slow;
  for (int i = 0; i < 8; ++i) {
    slow.push_back(std::make_unique<HttpConn>(port_));
    ASSERT_TRUE(slow.back()->SendRaw("P"));
  }
  std::atomic<bool> done{false};
  std::thread drip([&] {
    // One more header byte a second keeps each slow client under the
    // server's per-read timeout.
    const std::string head = "OST /mcp HTTP/1.1\r\nX-Slow: ";
    for (size_t i = 0; !done && i < 30; ++i) {
      for (auto& c : slow) c->SendRaw(std::string(1, head[i % head.size()]));
      for (int t = 0; t < 10 && !done; ++t) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
    }
  });
  HttpConn normal(port_);
  ASSERT_TRUE(normal.Send(port_, "POST", Message(1, "ping"), kPostHeaders));
  HttpReply r = normal.Read(/*timeout_ms=*/10000);
  done = true;
  drip.join();
  // Served (400: no session yet), not left waiting behind the slow ones.
  EXPECT_EQ(r.status, 400) << "a whole request waited behind slow clients";
}

// Opening sessions in a loop never evicts a live session: new ones are
// refused (503) once the table is full.
TEST_F(HttpServerTest, SessionFloodsDoNotEvictLiveSessions) {
  HttpOptions o;
  o.max_sessions = 4;
  Serve(o);
  std::string live = Open();
  int refused = 0;
  for (int i = 0; i < 10; ++i) {
    HttpReply r =
        Post(Message(1, "initialize",
                     {{"protocolVersion", "2025-11-25"},
                      {"capabilities", Json::object()},
                      {"clientInfo", {{"name", "flood"}, {"version", "1"}}}}));
    if (r.status == 503) ++refused;
  }
  EXPECT_EQ(refused, 7);  // 3 more fit beside the live one.
  EXPECT_EQ(Post(Message(3, "ping"), {}, live).status, 200);
}

TEST_F(HttpServerTest, RepeatedEmptyOrJunkSecurityHeadersAreRefused) {
  HttpOptions o;
  o.token = "s3cret-token";
  Serve(o);
  const HeaderList auth = {{"Authorization", "Bearer s3cret-token"}};
  const std::string ping = Message(1, "ping");
  auto post = [&](HeaderList extra) {
    HeaderList h = kPostHeaders;
    h.insert(h.end(), extra.begin(), extra.end());
    return HttpCall(port_, "POST", ping, h);
  };
  // Each first gets in with the right headers (400: no session).
  EXPECT_EQ(post(auth).status, 400);
  EXPECT_EQ(post({{"Authorization", "Bearer s3cret-token"},
                  {"Host", "127.0.0.1"},
                  {"Host", "evil.example"}})
                .status,
            400);
  EXPECT_EQ(
      post({{"Authorization", "Bearer s3cret-token"}, {"Host", ""}}).status,
      400);
  EXPECT_EQ(post({{"Authorization", "Bearer s3cret-token"},
                  {"Origin", "http://localhost"},
                  {"Origin", "http://evil.example"}})
                .status,
            400);
  // A NUL is refused with every other control byte, before the token is
  // compared (HeaderValuesWithNulOrControlBytesAreRefused).
  EXPECT_EQ(post({{"Authorization", std::string("Bearer s3cret-token\0x", 21)}})
                .status,
            400);
  EXPECT_EQ(post({{"Authorization", "Bearer s3cret-token junk"}}).status, 401);
  EXPECT_EQ(post({{"Authorization", "Bearer s3cret-token"},
                  {"Authorization", "Bearer other"}})
                .status,
            400);
}

// Mcp-Session-Id was read up to a NUL, so "<id>\0junk" resumed the
// session. A header value with a control byte, sent raw or %-encoded (httplib
// decodes values), is refused before any handler sees it, and neither the
// session id nor the protocol version may be repeated.
TEST_F(HttpServerTest, HeaderValuesWithNulOrControlBytesAreRefused) {
  Serve();
  const std::string id = Open();
  const std::string ping = Message(2, "ping");
  for (const std::string& junk : {id + std::string("\0junk", 5), id + "%00junk",
                                  id + "\x01", id + "\x7f"}) {
    HttpReply r = Post(ping, {}, junk);
    EXPECT_EQ(r.status, 400) << r.body;
    EXPECT_NE(r.body.find("control byte"), std::string::npos) << r.body;
    EXPECT_EQ(HttpCall(port_, "DELETE", "", {{"Mcp-Session-Id", junk}}).status,
              400);
  }
  // Nothing was ended by those: the session still answers.
  EXPECT_EQ(Post(ping, {}, id).status, 200);
  EXPECT_EQ(
      Post(ping, {{"MCP-Protocol-Version", std::string("2025-06-18\0x", 12)}},
           id)
          .status,
      400);
  EXPECT_EQ(Post(ping, {{"Accept", "application/json\x01"}}, id).status, 400);
  EXPECT_EQ(Post(ping, {{"Mcp-Session-Id", id}}, id).status, 400);
  EXPECT_EQ(Post(ping,
                 {{"MCP-Protocol-Version", "2025-06-18"},
                  {"MCP-Protocol-Version", "2025-11-25"}},
                 id)
                .status,
            400);
  EXPECT_EQ(Post(ping, {}, id).status, 200);
}

// httplib drops a header whose value is empty, so "Origin:" passed for a
// request without one; docs/security.md says it is refused. So are the
// other ways a header can be sent yet go unseen by httplib's parse: a line
// ending in a bare LF (skipped), "Origin :" (filed under "Origin "), a
// folded line. On /mcp and on the inspector's /api/ alike.
TEST_F(HttpServerTest, EmptyOrHiddenOriginsAreRefused) {
  HttpOptions o;
  o.token = "s3cret-token";
  Serve(o);
  const HeaderList auth = {{"Authorization", "Bearer s3cret-token"}};
  auto with = [&](HeaderList base, HeaderList extra) {
    base.insert(base.end(), extra.begin(), extra.end());
    return base;
  };
  const std::string ping = Message(1, "ping");
  const std::string initialize =
      Message(1, "initialize",
              {{"protocolVersion", "2025-11-25"},
               {"capabilities", Json::object()},
               {"clientInfo", {{"name", "gtest"}, {"version", "1"}}}});
  // Without Origin, or with a loopback one, each gets in.
  EXPECT_EQ(
      HttpCall(port_, "POST", initialize, with(kPostHeaders, auth)).status,
      200);
  EXPECT_EQ(
      HttpCall(port_, "POST", initialize,
               with(kPostHeaders, with(auth, {{"Origin", "http://localhost"}})))
          .status,
      200);
  EXPECT_EQ(HttpCallPath(port_, "GET", "/api/store", auth).status, 200);
  for (const HeaderList& hidden : std::initializer_list<HeaderList>{
           {{"Origin", ""}},
           {{"Origin", "  "}},
           {{"Origin", "http://evil.example\nX-Other: y"}},
           {{"Origin ", "http://evil.example"}},
           {{"Origin", "http://localhost"}, {" evil", ""}},
       }) {
    HttpReply r = HttpCall(port_, "POST", initialize,
                           with(kPostHeaders, with(auth, hidden)));
    EXPECT_EQ(r.status, 400) << hidden[0].first << ": " << r.body;
    EXPECT_EQ(r.Header("mcp-session-id"), "");
    r = HttpCallPath(port_, "GET", "/api/store", with(auth, hidden));
    EXPECT_EQ(r.status, 400) << hidden[0].first << ": " << r.body;
  }
  EXPECT_EQ(http_->session_count(), 2u);
}

// A request refused for its depth is answered with its own id.
TEST_F(HttpServerTest, TooDeepRequestsAreAnsweredWithTheirId) {
  Serve();
  std::string id = Open();
  const std::string deep = std::string(100, '[') + std::string(100, ']');
  for (const std::string& body :
       {R"({"jsonrpc":"2.0","id":42,"method":"ping","params":{"x":)" + deep +
            "}}",
        R"({"jsonrpc":"2.0","method":"ping","params":{"x":)" + deep +
            R"(},"id":"late")"}) {
    HttpReply r = Post(body, {}, id);
    EXPECT_EQ(RpcCode(r), -32600) << r.body;
    Json j = Json::parse(r.body, nullptr, false);
    ASSERT_TRUE(j.is_object()) << r.body;
    EXPECT_EQ(j["id"],
              body.find("late") != std::string::npos ? Json("late") : Json(42));
  }
}

// All bodies being received together are held to max_inflight_bytes.
TEST_F(HttpServerTest, BodiesInFlightAreBoundedInTotal) {
  HttpOptions o;
  o.max_request_bytes = 64 * 1024;
  o.max_inflight_bytes = 8 * 1024;
  Serve(o);
  std::string id = Open();
  HttpReply r = Post(
      Message(
          2, "tools/call",
          {{"name", "set"},
           {"arguments", {{"key", "k"}, {"value", std::string(20000, 'x')}}}}),
      {}, id);
  EXPECT_EQ(r.status, 503) << r.body;
  EXPECT_FALSE(store_->OpenView("x", "")->Get("k").ok());
  // Small requests still pass, and the budget was given back.
  EXPECT_EQ(Post(Message(3, "ping"), {}, id).status, 200);
  EXPECT_EQ(Post(Message(4, "ping"), {}, id).status, 200);
}
}  // namespace
}  // namespace ctxkit::mcp::testing
