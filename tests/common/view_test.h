// A store in a fresh temporary home and a view ("alice", "s1") on it: the
// fixture the explore and index tests start from.

#ifndef CTXKIT_TESTS_COMMON_VIEW_TEST_H_
#define CTXKIT_TESTS_COMMON_VIEW_TEST_H_

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <utility>

#include "common/temp_store.h"
#include "ctxkit/store.h"

namespace ctxkit::testing {

class ViewTest : public ::testing::Test {
 protected:
  // `prefix` names the temporary directory ($TMPDIR/<prefix>-XXXXXX).
  explicit ViewTest(std::string prefix) : prefix_(std::move(prefix)) {}

  void SetUp() override {
    dir_ = MakeTempDir(prefix_);
    ASSERT_FALSE(dir_.empty()) << "mkdtemp failed";
    options_.home = dir_ + "/home";
    options_.durability = Durability::kProcess;
    Tune(&options_);
    Reopen();
  }
  void TearDown() override {
    view_.reset();
    store_.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  // Adjusts the options before the store first opens.
  virtual void Tune(Options*) {}

  // Opens the store at options_.home (closing the one open) and the view.
  void Reopen() {
    view_.reset();
    store_.reset();
    auto store = Store::Open(options_);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(*store);
    auto view = store_->OpenView("alice", "s1");
    ASSERT_TRUE(view.ok()) << view.status().ToString();
    view_.emplace(std::move(*view));
  }

  View& view() { return *view_; }

  std::string dir_;
  Options options_;
  std::unique_ptr<Store> store_;
  std::optional<View> view_;

 private:
  std::string prefix_;
};

}  // namespace ctxkit::testing

#endif  // CTXKIT_TESTS_COMMON_VIEW_TEST_H_
