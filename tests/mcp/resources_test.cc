// Resources (list pagination, read text and binary, templates, subscribe),
// prompts, and resources and prompts a program adds (ServerExtension).

#include <openssl/evp.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <thread>

#include "mcp/mcp_test_util.h"

namespace ctxkit::mcp::testing {
namespace {

using ResourcesTest = McpTest;

std::string DecodeBase64(const std::string& b64) {
  std::string out(b64.size(), '\0');
  int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(b64.data()),
                          static_cast<int>(b64.size()));
  if (n < 0) return "";
  size_t pad = 0;
  if (!b64.empty() && b64.back() == '=') ++pad;
  if (b64.size() > 1 && b64[b64.size() - 2] == '=') ++pad;
  out.resize(static_cast<size_t>(n) - pad);
  return out;
}

TEST_F(ResourcesTest, ListIsPaginatedWithAnOpaqueCursor) {
  Client& c = Ready();
  for (int i = 0; i < 230; ++i) {
    c.Ok("set", {{"key", "k/" + std::to_string(1000 + i)}, {"value", "v"}});
  }
  c.Ok("set", {{"key", "odd key@x y"}, {"value", "v"}, {"scope", "agent"}});
  std::set<std::string> uris;
  Json params = Json::object();
  int pages = 0;
  for (;;) {
    Json r = c.Request("resources/list", params)["result"];
    ++pages;
    for (const Json& res : r["resources"]) {
      EXPECT_TRUE(res.contains("name"));
      EXPECT_TRUE(res.contains("description"));
      EXPECT_TRUE(uris.insert(res["uri"].get<std::string>()).second);
    }
    if (!r.contains("nextCursor")) break;
    params = {{"cursor", r["nextCursor"]}};
  }
  EXPECT_EQ(pages, 3);
  EXPECT_EQ(uris.size(), 231u);
  EXPECT_TRUE(uris.count("ctxkit://global/k/1000"));
  EXPECT_TRUE(uris.count("ctxkit://agent/odd%20key%40x%20y"));
  Json bad = c.Request("resources/list", {{"cursor", "not-ours"}});
  EXPECT_EQ(bad["error"]["code"], -32602);
  bad = c.Request("resources/list", {{"cursor", "ck1.garbage"}});
  EXPECT_EQ(bad["error"]["code"], -32602);
}

TEST_F(ResourcesTest, ReadTextBinaryVersionsAndRefs) {
  Client& c = Ready();
  c.Ok("set", {{"key", "doc"}, {"value", "{\"a\":1}"}, {"type", "json"}});
  c.Ok("set", {{"key", "doc"}, {"value", "{\"a\":2}"}, {"type", "json"}});
  Json r = c.Request("resources/read", {{"uri", "ctxkit://global/doc"}});
  EXPECT_EQ(r["result"]["contents"][0]["text"], "{\"a\":2}");
  EXPECT_EQ(r["result"]["contents"][0]["mimeType"], "application/json");
  EXPECT_EQ(r["result"]["contents"][0]["uri"], "ctxkit://global/doc");
  r = c.Request("resources/read", {{"uri", "ctxkit://global/doc@1"}});
  EXPECT_EQ(r["result"]["contents"][0]["text"], "{\"a\":1}");
  // Binary: not UTF-8, served as a base64 blob.
  std::string bin("\x89PNG\r\n\x1a\n\x00\xff\xfe", 11);
  ASSERT_TRUE(store_->OpenView("agent-a", "sess-a")->Set("img", bin, {}).ok());
  r = c.Request("resources/read", {{"uri", "ctxkit://global/img"}});
  const Json& blob = r["result"]["contents"][0];
  EXPECT_FALSE(blob.contains("text"));
  EXPECT_EQ(blob["mimeType"], "application/octet-stream");
  EXPECT_EQ(DecodeBase64(blob["blob"]), bin);
  // By ref.
  Json ref = c.Ok("ref", {{"key", "doc"}, {"version", 1}});
  std::string wire = ref["structuredContent"]["ref"];
  std::string enc;
  for (char ch : wire) {
    if (ch == '=') {
      enc += "%3D";
    } else {
      enc += ch;
    }
  }
  r = c.Request("resources/read", {{"uri", "ctxkit://ref/" + enc}});
  EXPECT_EQ(r["result"]["contents"][0]["text"], "{\"a\":1}") << r.dump();
  // Errors.
  EXPECT_EQ(c.Request("resources/read",
                      {{"uri", "ctxkit://global/nope"}})["error"]["code"],
            -32002);
  EXPECT_EQ(c.Request("resources/read",
                      {{"uri", "ctxkit://global/doc@9"}})["error"]["code"],
            -32002);
  for (const char* bad :
       {"http://x", "ctxkit://elsewhere/doc", "ctxkit://global/doc@0",
        "ctxkit://global/%zz", "ctxkit://global/a@b", "ctxkit://ref/ck:bad"}) {
    EXPECT_EQ(c.Request("resources/read", {{"uri", bad}})["error"]["code"],
              -32602)
        << bad;
  }
  EXPECT_EQ(c.Request("resources/read",
                      {{"uri", "test://static-text"}})["error"]["code"],
            -32602);
}

TEST_F(ResourcesTest, OversizedReadPointsAtRangedGet) {
  options_.max_resource_read_bytes = 10;
  Client& c = Ready();
  c.Ok("set", {{"key", "big"}, {"value", std::string(100, 'a')}});
  Json r = c.Request("resources/read", {{"uri", "ctxkit://global/big"}});
  EXPECT_EQ(r["error"]["code"], -32602);
  EXPECT_NE(r["error"]["message"].get<std::string>().find("byte_offset"),
            std::string::npos);
}

TEST_F(ResourcesTest, TemplateForKeyAtVersion) {
  Client& c = Ready();
  Json t = c.Request("resources/templates/list")["result"]["resourceTemplates"];
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0]["uriTemplate"], "ctxkit://{scope}/{key}@{version}");
  c.Ok("set", {{"key", "a/b"}, {"value", "x"}});
  // RFC 6570 simple expansion encodes '/' in the key: accepted.
  Json r = c.Request("resources/read", {{"uri", "ctxkit://global/a%2Fb@1"}});
  EXPECT_EQ(r["result"]["contents"][0]["text"], "x");
}

TEST_F(ResourcesTest, SubscriptionNotifiesNewVersionsFromAnyWriter) {
  Client& c = Ready();
  c.Ok("set", {{"key", "watched"}, {"value", "1"}});
  EXPECT_EQ(c.Request("resources/subscribe",
                      {{"uri", "ctxkit://global/watched"}})["result"],
            Json::object());
  EXPECT_FALSE(c.WaitFor("notifications/resources/updated",
                         std::chrono::milliseconds(150)));
  // Another Store instance on the same home: as another process would.
  Options o;
  o.home = store_->home();
  o.store_url = ctxkit::testing::PgStoreUrlFor(o.home);
  auto other = Store::Open(o);
  ASSERT_TRUE(other.ok());
  ASSERT_TRUE((*other)->OpenView("x", "")->Set("watched", "2", {}).ok());
  auto n = c.WaitFor("notifications/resources/updated",
                     std::chrono::milliseconds(3000));
  ASSERT_TRUE(n);
  EXPECT_EQ((*n)["params"]["uri"], "ctxkit://global/watched");
  // Unsubscribed: no more.
  c.Request("resources/unsubscribe", {{"uri", "ctxkit://global/watched"}});
  c.ClearNotifications();
  ASSERT_TRUE((*other)->OpenView("x", "")->Set("watched", "3", {}).ok());
  EXPECT_FALSE(c.WaitFor("notifications/resources/updated",
                         std::chrono::milliseconds(200)));
  EXPECT_EQ(
      c.Request("resources/subscribe", {{"uri", "nope://x"}})["error"]["code"],
      -32602);
  // A key that does not exist yet is notified when it appears.
  c.Request("resources/subscribe", {{"uri", "ctxkit://session/later"}});
  c.Ok("set", {{"key", "later"}, {"value", "now"}, {"scope", "session"}});
  n = c.WaitFor("notifications/resources/updated",
                std::chrono::milliseconds(3000));
  ASSERT_TRUE(n);
  EXPECT_EQ((*n)["params"]["uri"], "ctxkit://session/later");
}

// On PostgreSQL, a commit made elsewhere wakes the watcher at once
// (LISTEN/NOTIFY): the notification comes long before the poll interval.
TEST_F(ResourcesTest, CommitsElsewhereNotifyBeforeThePollInterval) {
  if (ctxkit::testing::PgTestUrl().empty()) {
    GTEST_SKIP() << "SQLite has no commit wake-up: subscriptions poll "
                    "(SubscriptionNotifiesNewVersionsFromAnyWriter)";
  }
  options_.subscription_poll_ms = 60'000;
  Client& c = Ready();
  c.Ok("set", {{"key", "watched"}, {"value", "1"}});
  ASSERT_EQ(c.Request("resources/subscribe",
                      {{"uri", "ctxkit://global/watched"}})["result"],
            Json::object());
  Options o;
  o.home = store_->home();
  o.store_url = ctxkit::testing::PgStoreUrlFor(o.home);
  auto other = Store::Open(o);
  ASSERT_TRUE(other.ok());
  // The listener opens as the first subscription arrives; a commit made
  // before its LISTEN took effect gives no wake-up, so the first may take
  // a few tries.
  bool listening = false;
  for (int i = 0; i < 50 && !listening; ++i) {
    c.ClearNotifications();
    ASSERT_TRUE((*other)->OpenView("x", "")->Set("watched", "warm", {}).ok());
    listening = c.WaitFor("notifications/resources/updated",
                          std::chrono::milliseconds(200))
                    .has_value();
  }
  ASSERT_TRUE(listening);
  // Then every commit is seen well inside the interval.
  for (int i = 2; i < 5; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    c.ClearNotifications();
    ASSERT_TRUE((*other)
                    ->OpenView("x", "")
                    ->Set("watched", std::to_string(i), {})
                    .ok());
    auto n = c.WaitFor("notifications/resources/updated",
                       std::chrono::milliseconds(10'000));
    ASSERT_TRUE(n) << "commit " << i;
    EXPECT_EQ((*n)["params"]["uri"], "ctxkit://global/watched");
  }
}

TEST_F(ResourcesTest, RootPrompt) {
  Client& c = Ready();
  Json list = c.Request("prompts/list")["result"]["prompts"];
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0]["name"], "root_prompt");
  EXPECT_EQ(list[0]["arguments"][0]["name"], "query");
  EXPECT_EQ(list[0]["arguments"][0]["required"], true);
  c.Ok("set", {{"key", "mem"},
               {"value", "SECRET-CONTENT"},
               {"scope", "session"},
               {"type", "memory"}});
  Json r = c.Request(
      "prompts/get",
      {{"name", "root_prompt"},
       {"arguments", {{"query", "find the bug"}, {"session", "sess-a"}}}});
  ASSERT_TRUE(r.contains("result")) << r.dump();
  std::string text = r["result"]["messages"][0]["content"]["text"];
  EXPECT_NE(text.find("find the bug"), std::string::npos);
  EXPECT_NE(text.find("peek"), std::string::npos);
  EXPECT_NE(text.find("SUBMIT"), std::string::npos);
  EXPECT_EQ(text.find("SECRET-CONTENT"), std::string::npos);
  EXPECT_EQ(
      c.Request("prompts/get", {{"name", "root_prompt"}})["error"]["code"],
      -32602);
  EXPECT_EQ(c.Request("prompts/get", {{"name", "nope"}})["error"]["code"],
            -32602);
  EXPECT_EQ(c.Request("prompts/get",
                      {{"name", "test_simple_prompt"}})["error"]["code"],
            -32602);
}

// A program's own resources and prompts beside ctxkit's (what the
// conformance server adds its fixtures through).
class NoteExtension : public ServerExtension {
 public:
  std::string ResourcesJson() const override {
    return R"([{"uri": "ext://note", "name": "note", "mimeType": "text/plain"}])";
  }
  std::string ResourceTemplatesJson() const override {
    return R"([{"uriTemplate": "ext://note/{id}", "name": "notes"}])";
  }
  std::string PromptsJson() const override {
    return R"([{"name": "greet", "arguments": [{"name": "who", "required": true}]}])";
  }
  bool OwnsUri(std::string_view uri) const override {
    ++owns_calls;
    return uri.starts_with("ext://");
  }
  Result<std::string> ReadResource(std::string_view uri) const override {
    if (uri != "ext://note") return Status::NotFound("no such note");
    return std::string(
        R"([{"uri": "ext://note", "mimeType": "text/plain", "text": "hi"}])");
  }
  Result<std::string> GetPrompt(std::string_view name,
                                std::string_view arguments) const override {
    Json args = Json::parse(arguments);
    if (name != "greet" || !args.contains("who")) {
      return Status::InvalidArgument("missing required argument 'who'");
    }
    return Json{
        {"messages",
         Json::array(
             {{{"role", "user"},
               {"content",
                {{"type", "text"},
                 {"text", "hello " + args["who"].get<std::string>()}}}}})}}
        .dump();
  }
  mutable std::atomic<int> owns_calls{0};
};

TEST_F(ResourcesTest, ExtensionServedBesideOwnResourcesAndPrompts) {
  auto ext = std::make_shared<NoteExtension>();
  options_.extension = ext;
  Client& c = Ready();
  Json list = c.Request("resources/list")["result"]["resources"];
  ASSERT_GE(list.size(), 1u);
  EXPECT_EQ(list[0]["uri"], "ext://note");
  Json read = c.Request("resources/read", {{"uri", "ext://note"}});
  EXPECT_EQ(read["result"]["contents"][0]["text"], "hi");
  EXPECT_EQ(
      c.Request("resources/read", {{"uri", "ext://other"}})["error"]["code"],
      -32002);
  EXPECT_EQ(c.Request("resources/subscribe", {{"uri", "ext://note"}})["result"],
            Json::object());
  Json tmpl = c.Request("resources/templates/list")["result"];
  ASSERT_EQ(tmpl["resourceTemplates"].size(), 2u);
  EXPECT_EQ(tmpl["resourceTemplates"][1]["name"], "notes");

  Json prompts = c.Request("prompts/list")["result"]["prompts"];
  ASSERT_EQ(prompts.size(), 2u);
  EXPECT_EQ(prompts[1]["name"], "greet");
  Json p = c.Request("prompts/get",
                     {{"name", "greet"}, {"arguments", {{"who", "Ada"}}}});
  EXPECT_EQ(p["result"]["messages"][0]["content"]["text"], "hello Ada");
  Json missing = c.Request("prompts/get", {{"name", "greet"}});
  EXPECT_EQ(missing["error"]["code"], -32602);
  EXPECT_NE(missing["error"]["message"].get<std::string>().find("who"),
            std::string::npos);
  Json done = c.Request("completion/complete",
                        {{"ref", {{"type", "ref/prompt"}, {"name", "greet"}}},
                         {"argument", {{"name", "who"}, {"value", "A"}}}});
  EXPECT_TRUE(done.contains("result")) << done.dump();

  // ctxkit's own URIs never reach the extension.
  int before = ext->owns_calls;
  c.Request("resources/read", {{"uri", "ctxkit://global/missing"}});
  EXPECT_EQ(ext->owns_calls, before);
}

TEST_F(ResourcesTest, ServerRejectsAnExtensionWithMalformedLists) {
  class Broken : public NoteExtension {
   public:
    std::string PromptsJson() const override { return "{\"not\": \"a list\"}"; }
  };
  ServerOptions bad = options_;
  bad.extension = std::make_shared<Broken>();
  auto server = Server::Create(store_.get(), "", bad);
  EXPECT_EQ(server.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(server.status().message().find("PromptsJson"), std::string::npos);
}

TEST_F(ResourcesTest, ServerRejectsBadOptionsAndBindings) {
  ServerOptions bad = options_;
  bad.result_token_limit = 1;
  EXPECT_FALSE(Server::Create(store_.get(), "", bad).ok());
  bad = options_;
  bad.subscription_poll_ms = 0;
  EXPECT_FALSE(Server::Create(store_.get(), "", bad).ok());
  EXPECT_FALSE(Server::Create(nullptr, "", options_).ok());
  auto conn = server().Connect({"bad agent!", "s"}, nullptr);
  EXPECT_EQ(conn.status().code(), StatusCode::kInvalidArgument);
  conn = server().Connect({"a", ""}, nullptr);
  EXPECT_EQ(conn.status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace ctxkit::mcp::testing
