// A temporary store per test, for the session layer's tests.

#ifndef CTXKIT_TESTS_SESSION_SESSION_TEST_UTIL_H_
#define CTXKIT_TESTS_SESSION_SESSION_TEST_UTIL_H_

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/pg_store.h"
#include "ctxkit/session.h"
#include "ctxkit/store.h"

namespace ctxkit::testing {

class SessionStoreFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* base = ::getenv("TMPDIR");
    std::string pattern =
        std::string(base && *base ? base : "/tmp") + "/ctxkit-sess-XXXXXX";
    std::vector<char> buf(pattern.begin(), pattern.end());
    buf.push_back('\0');
    ASSERT_NE(::mkdtemp(buf.data()), nullptr);
    dir_ = buf.data();
    OpenStore();
  }
  void TearDown() override {
    view_.reset();
    store_.reset();
    std::error_code ec;
    if (!dir_.empty()) std::filesystem::remove_all(dir_, ec);
  }

  // (Re)opens the store, as a new process would.
  void OpenStore() {
    view_.reset();
    store_.reset();
    Options o;
    o.home = home();
    o.durability = Durability::kProcess;
    o.store_url = PgStoreUrlFor(o.home);
    auto s = Store::Open(o);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    store_ = std::move(*s);
    auto v = store_->OpenView("", "");
    ASSERT_TRUE(v.ok());
    view_.emplace(std::move(*v));
  }

  // A new session in the store; nullptr (and a test failure) when refused.
  std::unique_ptr<Session> NewSession(const std::string& id,
                                      SessionPolicy policy = {}) {
    auto s = Session::Create(store(), id, policy);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    return s.ok() ? std::move(*s) : nullptr;
  }

  Store& store() { return *store_; }
  View& view() { return *view_; }
  std::string home() const { return dir_ + "/store"; }
  std::string dir() const { return dir_; }

 private:
  std::string dir_;
  std::unique_ptr<Store> store_;
  std::optional<View> view_;
};

}  // namespace ctxkit::testing

#endif  // CTXKIT_TESTS_SESSION_SESSION_TEST_UTIL_H_
