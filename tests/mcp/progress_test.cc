// notifications/progress for tools/call requests that carry a progress token
// (mcp/progress_notifications.h), and none for those that do not.

#include <gtest/gtest.h>
#include <stdlib.h>

#include <string>
#include <vector>

#include "mcp/mcp_test_util.h"

namespace ctxkit::mcp::testing {
namespace {

class ProgressTest : public McpTest {
 protected:
  void SetUp() override {
    McpTest::SetUp();
    // A report after every step, so the test does not depend on timing.
    ::setenv("CTXKIT_PROGRESS_INTERVAL_MS", "0", 1);
  }
  void TearDown() override {
    ::unsetenv("CTXKIT_PROGRESS_INTERVAL_MS");
    McpTest::TearDown();
  }

  std::vector<Json> Progress(Client& c) {
    std::vector<Json> out;
    for (const Json& n : c.Notifications()) {
      if (n.value("method", "") == "notifications/progress") out.push_back(n);
    }
    return out;
  }
};

TEST_F(ProgressTest, FindRelevantWithATokenSendsIncreasingProgress) {
  Client& c = Ready();
  for (int i = 0; i < 12; ++i) {
    c.Ok("set", {{"key", "doc/" + std::to_string(i)},
                 {"value", "the token refresh path " + std::to_string(i)}});
  }
  c.ClearNotifications();
  Json r = c.Request("tools/call", {{"name", "find_relevant"},
                                    {"arguments", {{"query", "token refresh"}}},
                                    {"_meta", {{"progressToken", "find-1"}}}});
  ASSERT_TRUE(r.contains("result")) << r.dump();
  EXPECT_EQ(r["result"]["isError"], false);
  std::vector<Json> p = Progress(c);
  ASSERT_GE(p.size(), 2u);
  uint64_t last = 0;
  for (const Json& n : p) {
    EXPECT_EQ(n["params"]["progressToken"], "find-1");
    const uint64_t progress = n["params"]["progress"].get<uint64_t>();
    EXPECT_GT(progress, last) << "progress must increase";
    last = progress;
    EXPECT_TRUE(
        n["params"]["message"].get<std::string>().starts_with("indexing: "));
  }
  EXPECT_EQ(last, 12u);
  EXPECT_EQ(p.back()["params"]["total"], 12);
  // With a report after every step the finished report adds no progress,
  // so none is sent for it.
  EXPECT_EQ(p.back()["params"]["message"].get<std::string>().find(
                "indexing: 12 of 12 changes (100%)"),
            0u);
}

TEST_F(ProgressTest, AnIntegerTokenWorksAndNoTokenSendsNothing) {
  Client& c = Ready();
  for (int i = 0; i < 3; ++i) {
    c.Ok("set", {{"key", "a/" + std::to_string(i)}, {"value", "alpha beta"}});
  }
  c.ClearNotifications();
  c.Ok("find_relevant", {{"query", "alpha"}});
  EXPECT_TRUE(Progress(c).empty());

  c.Ok("set", {{"key", "a/9"}, {"value", "alpha gamma"}});
  c.ClearNotifications();
  Json r = c.Request("tools/call", {{"name", "find_relevant"},
                                    {"arguments", {{"query", "alpha"}}},
                                    {"_meta", {{"progressToken", 7}}}});
  ASSERT_TRUE(r.contains("result")) << r.dump();
  std::vector<Json> p = Progress(c);
  ASSERT_FALSE(p.empty());
  EXPECT_EQ(p.front()["params"]["progressToken"], 7);
}

TEST_F(ProgressTest, SessionIngestReportsLogItems) {
  Client& c = Ready();
  Json messages = Json::array();
  messages.push_back({{"role", "user"}, {"content", "hello"}});
  for (int i = 0; i < 4; ++i) {
    messages.push_back(
        {{"role", "assistant"}, {"content", "step " + std::to_string(i)}});
  }
  c.ClearNotifications();
  Json r = c.Request(
      "tools/call", {{"name", "session_ingest"},
                     {"arguments", {{"messages", messages}, {"append", false}}},
                     {"_meta", {{"progressToken", "ingest"}}}});
  ASSERT_TRUE(r.contains("result")) << r.dump();
  EXPECT_EQ(r["result"]["isError"], false) << r.dump();
  std::vector<Json> p = Progress(c);
  ASSERT_EQ(p.size(), 5u);  // One per item; the finished report adds none.
  EXPECT_EQ(p.back()["params"]["progress"], 5);
  EXPECT_EQ(p.back()["params"]["total"], 5);
}

TEST_F(ProgressTest, AMalformedTokenIsInvalidParams) {
  Client& c = Ready();
  Json r = c.Request("tools/call", {{"name", "find_relevant"},
                                    {"arguments", {{"query", "alpha"}}},
                                    {"_meta", {{"progressToken", 1.5}}}});
  ASSERT_TRUE(r.contains("error")) << r.dump();
  EXPECT_EQ(r["error"]["code"], -32602);
  r = c.Request("tools/call", {{"name", "find_relevant"},
                               {"arguments", {{"query", "alpha"}}},
                               {"_meta", "token"}});
  ASSERT_TRUE(r.contains("error")) << r.dump();
  EXPECT_EQ(r["error"]["code"], -32602);
}

}  // namespace
}  // namespace ctxkit::mcp::testing
