// Fixture for the explore tests: a store in a fresh temp home and a view
// ("alice", "s1").

#ifndef CTXKIT_TESTS_EXPLORE_EXPLORE_TEST_UTIL_H_
#define CTXKIT_TESTS_EXPLORE_EXPLORE_TEST_UTIL_H_

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "ctxkit/explore.h"
#include "ctxkit/store.h"

namespace ctxkit::testing {

#define EXPLORE_ASSERT_OK_AND_ASSIGN(lhs, expr)                              \
  auto EXPLORE_CONCAT_(r_, __LINE__) = (expr);                               \
  ASSERT_TRUE(EXPLORE_CONCAT_(r_, __LINE__).ok())                            \
      << #expr << ": " << EXPLORE_CONCAT_(r_, __LINE__).status().ToString(); \
  lhs = std::move(EXPLORE_CONCAT_(r_, __LINE__)).value()
#define EXPLORE_CONCAT_(a, b) EXPLORE_CONCAT_INNER_(a, b)
#define EXPLORE_CONCAT_INNER_(a, b) a##b

class ExploreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* tmp = getenv("TMPDIR");
    std::string pattern =
        std::string(tmp != nullptr ? tmp : "/tmp") + "/ctxkit-explore-XXXXXX";
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    Options o;
    o.home = dir_ + "/home";
    o.durability = Durability::kProcess;
    Tune(&o);
    auto store = Store::Open(o);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(*store);
    auto view = store_->OpenView("alice", "s1");
    ASSERT_TRUE(view.ok());
    view_.emplace(std::move(*view));
  }
  void TearDown() override {
    view_.reset();
    store_.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  virtual void Tune(Options*) {}

  View& view() { return *view_; }
  View Other(const std::string& agent, const std::string& session) {
    return *store_->OpenView(agent, session);
  }
  void Put(const std::string& key, const std::string& value,
           ValueType type = ValueType::kText, const std::string& scope = "") {
    SetOptions o;
    o.type = type;
    o.scope = scope;
    auto r = view().Set(key, value, o);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }

  std::string dir_;
  std::unique_ptr<Store> store_;
  std::optional<View> view_;
};

}  // namespace ctxkit::testing

#endif  // CTXKIT_TESTS_EXPLORE_EXPLORE_TEST_UTIL_H_
