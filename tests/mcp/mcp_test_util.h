// A store in a temporary directory, an MCP server on it, and helpers that
// feed message texts to Connection::Handle and parse what comes back.

#ifndef CTXKIT_TESTS_MCP_MCP_TEST_UTIL_H_
#define CTXKIT_TESTS_MCP_MCP_TEST_UTIL_H_

#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "common/temp_store.h"
#include "ctxkit/mcp.h"
#include "ctxkit/store.h"

namespace ctxkit::mcp::testing {

using Json = nlohmann::json;

// One client: its connection and the notifications it received.
class Client {
 public:
  Client(Server& server, ClientBinding binding) {
    auto conn = server.Connect(std::move(binding), [this](std::string m) {
      std::lock_guard<std::mutex> lock(mu_);
      notes_.push_back(Json::parse(m));
    });
    EXPECT_TRUE(conn.ok()) << conn.status().ToString();
    if (conn.ok()) conn_ = std::move(*conn);
  }

  // The connection goes first: no notification may arrive once the
  // members it writes to are gone.
  ~Client() { conn_.reset(); }

  Connection& conn() { return *conn_; }

  // The raw reply to a raw message.
  std::optional<std::string> Raw(std::string_view text) {
    return conn_->Handle(text);
  }

  // The parsed response to a request.
  Json Request(const std::string& method, Json params = Json::object()) {
    Json msg = {{"jsonrpc", "2.0"},
                {"id", ++next_id_},
                {"method", method},
                {"params", std::move(params)}};
    std::optional<std::string> reply = conn_->Handle(msg.dump());
    EXPECT_TRUE(reply.has_value()) << method;
    if (!reply) return Json();
    Json j = Json::parse(*reply, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << *reply;
    EXPECT_EQ(j["id"], next_id_);
    return j;
  }

  // initialize + notifications/initialized.
  Json Initialize(const std::string& version = "2025-11-25") {
    Json r = Request("initialize",
                     {{"protocolVersion", version},
                      {"capabilities", Json::object()},
                      {"clientInfo", {{"name", "gtest"}, {"version", "1"}}}});
    conn_->Handle(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
    return r;
  }

  // The result of tools/call (expects a result, not a protocol error).
  Json Tool(const std::string& name, Json args = Json::object()) {
    Json r = Request("tools/call", {{"name", name}, {"arguments", args}});
    EXPECT_TRUE(r.contains("result")) << name << ": " << r.dump();
    return r.contains("result") ? r["result"] : Json();
  }
  // A tool call that must succeed.
  Json Ok(const std::string& name, Json args = Json::object()) {
    Json r = Tool(name, args);
    EXPECT_EQ(r.value("isError", true), false) << name << ": " << r.dump();
    return r;
  }
  // A tool call that must fail as a tool error; returns its text.
  std::string Fails(const std::string& name, Json args = Json::object()) {
    Json r = Tool(name, args);
    EXPECT_EQ(r.value("isError", false), true) << name << ": " << r.dump();
    return r.contains("content") ? r["content"][0].value("text", "") : "";
  }

  static std::string Text(const Json& result) {
    std::string s;
    for (const Json& c : result["content"]) {
      if (c["type"] == "text") s += c["text"].get<std::string>();
    }
    return s;
  }

  std::vector<Json> Notifications() {
    std::lock_guard<std::mutex> lock(mu_);
    return notes_;
  }

  // Waits up to `timeout` for a notification with `method`.
  std::optional<Json> WaitFor(const std::string& method,
                              std::chrono::milliseconds timeout) {
    auto end = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < end) {
      {
        std::lock_guard<std::mutex> lock(mu_);
        for (const Json& n : notes_) {
          if (n.value("method", "") == method) return n;
        }
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return std::nullopt;
  }

  void ClearNotifications() {
    std::lock_guard<std::mutex> lock(mu_);
    notes_.clear();
  }

 private:
  std::unique_ptr<Connection> conn_;
  int64_t next_id_ = 0;
  std::mutex mu_;
  std::vector<Json> notes_;
};

class McpTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ctxkit::testing::MakeTempDir("ctxkit-mcp");
    ASSERT_FALSE(dir_.empty());
    auto store = ctxkit::testing::OpenTempStore(dir_);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(*store);
    options_.capture_root = dir_ + "/capture";
    options_.notes_root = dir_ + "/notes";
    options_.subscription_poll_ms = 20;
  }

  void TearDown() override {
    clients_.clear();
    server_.reset();
    store_.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  Server& server() {
    if (server_ == nullptr) {
      auto s = Server::Create(store_.get(), store_->home(), options_);
      EXPECT_TRUE(s.ok()) << s.status().ToString();
      server_ = std::move(*s);
    }
    return *server_;
  }

  // A connected (not yet initialized) client.
  Client& NewClient(const std::string& agent = "agent-a",
                    const std::string& session = "sess-a") {
    clients_.push_back(
        std::make_unique<Client>(server(), ClientBinding{agent, session}));
    return *clients_.back();
  }
  // A connected, initialized client.
  Client& Ready(const std::string& agent = "agent-a",
                const std::string& session = "sess-a") {
    Client& c = NewClient(agent, session);
    c.Initialize();
    return c;
  }

  std::string dir_;
  std::unique_ptr<Store> store_;
  ServerOptions options_;
  std::unique_ptr<Server> server_;
  std::vector<std::unique_ptr<Client>> clients_;
};

}  // namespace ctxkit::mcp::testing

#endif  // CTXKIT_TESTS_MCP_MCP_TEST_UTIL_H_
