// Shared fixture for the spawn tests: one empty store in a temp directory,
// a parent view, and a second Store instance on the same home standing in
// for the child's process (each instance has its own caches, as a process
// has).

#ifndef CTXKIT_TESTS_SPAWN_SPAWN_TEST_UTIL_H_
#define CTXKIT_TESTS_SPAWN_SPAWN_TEST_UTIL_H_

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ctxkit/spawn.h"
#include "ctxkit/store.h"

namespace ctxkit::testing {

#define ASSERT_OK(expr)                                     \
  do {                                                      \
    auto _s = (expr);                                       \
    ASSERT_TRUE(_s.ok()) << #expr << ": " << _s.ToString(); \
  } while (0)

template <typename T>
Status StatusOf(const Result<T>& r) {
  return r.status();
}
inline Status StatusOf(const Status& s) { return s; }

#define EXPECT_CODE(expr, want)                                        \
  do {                                                                 \
    ::ctxkit::Status _s = ::ctxkit::testing::StatusOf(expr);           \
    EXPECT_EQ(_s.code(), ::ctxkit::StatusCode::want) << _s.ToString(); \
  } while (0)

class SpawnTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* base = ::getenv("TMPDIR");
    std::string pattern =
        std::string(base && *base ? base : "/tmp") + "/ctxkit-spawn-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    home_ = dir_ + "/store";
    store_ = Open(home_);
    ASSERT_NE(store_, nullptr);
    Result<View> parent = store_->OpenView("planner", "run-1");
    ASSERT_TRUE(parent.ok()) << parent.status().ToString();
    parent_.emplace(std::move(*parent));
  }
  void TearDown() override {
    parent_.reset();
    store_.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  static std::unique_ptr<Store> Open(const std::string& home) {
    Options options;
    options.home = home;
    options.durability = Durability::kProcess;
    Result<std::unique_ptr<Store>> store = Store::Open(options);
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    return store.ok() ? std::move(*store) : nullptr;
  }

  View& parent() { return *parent_; }

  Ref SetGlobal(const std::string& key, const std::string& value) {
    Result<Ref> ref = parent_->Set(key, value, {});
    EXPECT_TRUE(ref.ok()) << ref.status().ToString();
    return ref.ok() ? *ref : Ref{};
  }

  // Files in <home>/spawn/ (the default manifest directory).
  std::vector<std::string> SpawnDirFiles() const {
    std::vector<std::string> out;
    std::error_code ec;
    for (const auto& e :
         std::filesystem::directory_iterator(home_ + "/spawn", ec)) {
      out.push_back(e.path().filename().string());
    }
    return out;
  }

  std::string dir_;
  std::string home_;
  std::unique_ptr<Store> store_;
  std::optional<View> parent_;
};

}  // namespace ctxkit::testing

#endif  // CTXKIT_TESTS_SPAWN_SPAWN_TEST_UTIL_H_
