// The web inspector's routes on `ctxkit serve` (docs/inspector.md): the
// page and its API behind the MCP endpoint's security (token, Host,
// Origin), GET only, with the headers that keep a browser safe.

#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "mcp_http/http_fixture.h"
#include "mcp_http/http_test_client.h"

namespace ctxkit::mcp::testing {
namespace {

using Json = nlohmann::json;

class HttpInspectorTest : public HttpFixture {
 protected:
  void SetUp() override {
    HttpFixture::SetUp();
    Result<View> view = store_->OpenView("", "");
    ASSERT_TRUE(view.ok());
    ASSERT_TRUE(view->Set("doc/a", "hello").ok());
  }

  HttpReply Get(const std::string& path, HeaderList headers = {}) {
    return HttpCallPath(port_, "GET", path, headers);
  }
};

TEST_F(HttpInspectorTest, ThePageAndTheApiAreServedReadOnly) {
  Serve();
  EXPECT_EQ(http_->ui_url(),
            "http://127.0.0.1:" + std::to_string(http_->port()) + "/ui/");
  HttpReply page = Get("/ui/");
  ASSERT_EQ(page.status, 200);
  EXPECT_NE(page.body.find("<html"), std::string::npos);
  EXPECT_EQ(page.Header("content-type"), "text/html; charset=utf-8");
  EXPECT_NE(page.Header("content-security-policy").find("default-src 'self'"),
            std::string::npos);
  EXPECT_NE(
      page.Header("content-security-policy").find("frame-ancestors 'none'"),
      std::string::npos);
  EXPECT_EQ(page.Header("x-content-type-options"), "nosniff");
  // The chart library comes from the binary, not a CDN.
  HttpReply chart = Get("/ui/chart.min.js");
  ASSERT_EQ(chart.status, 200);
  EXPECT_NE(chart.body.find("Chart"), std::string::npos);
  EXPECT_EQ(Get("/ui/no-such-file.js").status, 404);
  EXPECT_EQ(Get("/ui/../store/ctxkit.db").status, 404);
  EXPECT_EQ(Get("/").status, 302);
  EXPECT_EQ(Get("/").Header("location"), "/ui/");

  HttpReply objects = Get("/api/objects?prefix=doc%2F");
  ASSERT_EQ(objects.status, 200) << objects.body;
  EXPECT_EQ(objects.Header("cache-control"), "no-store");
  Json j = Json::parse(objects.body);
  ASSERT_EQ(j["objects"].size(), 1u);
  EXPECT_EQ(j["objects"][0]["key"], "doc/a");
  EXPECT_EQ(Get("/api/no/such/endpoint").status, 404);
  EXPECT_EQ(Json::parse(Get("/api/objects?limit=zero").body)["error"]["code"],
            "invalid_argument");

  // Nothing but GET.
  for (const char* method : {"POST", "PUT", "PATCH", "DELETE"}) {
    HttpReply r = HttpCallPath(http_->port(), method, "/api/objects",
                               {{"Content-Type", "application/json"}}, "{}");
    EXPECT_EQ(r.status, 405) << method;
    EXPECT_EQ(r.Header("allow"), "GET");
  }
  Result<View> view = store_->OpenView("", "");
  ASSERT_TRUE(view.ok());
  EXPECT_EQ(view->List({})->items.size(), 1u);  // Nothing was written.
}

TEST_F(HttpInspectorTest, TheApiNeedsTheTokenThePageDoesNot) {
  HttpOptions o;
  o.token = "s3cret";
  Serve(o);
  EXPECT_EQ(Get("/ui/").status, 200);
  EXPECT_EQ(Get("/ui/app.js").status, 200);
  EXPECT_EQ(Get("/api/store").status, 401);
  EXPECT_EQ(Get("/api/store", {{"Authorization", "Bearer wrong"}}).status, 401);
  HttpReply ok = Get("/api/store", {{"Authorization", "Bearer s3cret"}});
  ASSERT_EQ(ok.status, 200) << ok.body;
  EXPECT_FALSE(Json::parse(ok.body)["read_only"].get<bool>());
}

TEST_F(HttpInspectorTest, HostAndOriginAreCheckedForThePageAndTheApi) {
  Serve();
  for (const std::string path : {"/ui/", "/api/store"}) {
    EXPECT_EQ(Get(path, {{"Host", "evil.example:80"}}).status, 403) << path;
    EXPECT_EQ(Get(path, {{"Origin", "http://evil.example"}}).status, 403)
        << path;
    std::string own = "http://127.0.0.1:" + std::to_string(http_->port());
    EXPECT_EQ(Get(path, {{"Origin", own}}).status, 200) << path;
  }
}

TEST_F(HttpInspectorTest, NoUiServesNeither) {
  HttpOptions o;
  o.ui = false;
  Serve(o);
  EXPECT_EQ(http_->ui_url(), "");
  EXPECT_EQ(Get("/ui/").status, 404);
  EXPECT_EQ(Get("/api/store").status, 404);
}

TEST_F(HttpInspectorTest, StopEndsAWaitingChangesCall) {
  Serve();
  HttpReply store = Get("/api/store");
  ASSERT_EQ(store.status, 200);
  const uint64_t change = Json::parse(store.body)["change"].get<uint64_t>();
  std::thread waiter([&] {
    // Answered or cut off as the server stops; either way, promptly.
    (void)Get("/api/changes?since=" + std::to_string(change) +
              "&wait_ms=30000");
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const auto start = std::chrono::steady_clock::now();
  http_->Stop();
  waiter.join();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}

}  // namespace
}  // namespace ctxkit::mcp::testing
