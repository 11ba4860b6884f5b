// A store (on PostgreSQL when the pg test variant asks), the MCP core over
// it and, once Serve() is called, `ctxkit serve`'s HttpServer on an
// ephemeral loopback port: the fixture of the HTTP transport's tests.

#ifndef CTXKIT_TESTS_MCP_HTTP_HTTP_FIXTURE_H_
#define CTXKIT_TESTS_MCP_HTTP_HTTP_FIXTURE_H_

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <string>

#include "common/pg_store.h"
#include "ctxkit/mcp.h"
#include "ctxkit/store.h"
#include "mcp/http_server.h"

namespace ctxkit::mcp::testing {

class HttpFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* base = ::getenv("TMPDIR");
    std::string pattern =
        std::string(base && *base ? base : "/tmp") + "/ctxkit-http-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    Options o;
    o.home = dir_ + "/store";
    o.store_url = ::ctxkit::testing::PgStoreUrlFor(o.home);
    Result<std::unique_ptr<Store>> store = Store::Open(o);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(*store);
    ServerOptions so;
    so.capture_root = dir_ + "/captures";
    so.notes_root = dir_ + "/notes";
    so.subscription_poll_ms = 20;
    Result<std::unique_ptr<Server>> server =
        Server::Create(store_.get(), store_->home(), so);
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(*server);
  }

  void TearDown() override {
    http_.reset();
    server_.reset();
    store_.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  void Serve(HttpOptions o = {}) {
    o.port = 0;
    Result<std::unique_ptr<HttpServer>> s = HttpServer::Start(server_.get(), o);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    http_ = std::move(*s);
    port_ = http_->port();
  }

  std::string dir_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<Server> server_;
  std::unique_ptr<HttpServer> http_;
  int port_ = 0;
};

}  // namespace ctxkit::mcp::testing

#endif  // CTXKIT_TESTS_MCP_HTTP_HTTP_FIXTURE_H_
