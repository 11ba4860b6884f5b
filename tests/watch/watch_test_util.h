// Shared fixtures for the watch tests: a temporary store and a temporary
// tree of files, helpers to write, read versions and wait for a watcher.

#ifndef CTXKIT_TESTS_WATCH_WATCH_TEST_UTIL_H_
#define CTXKIT_TESTS_WATCH_WATCH_TEST_UTIL_H_

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "ctxkit/store.h"
#include "ctxkit/watch.h"

namespace ctxkit::watch_testing {

inline std::string MakeTempDir() {
  const char* base = ::getenv("TMPDIR");
  std::string tmpl =
      std::string(base && *base ? base : "/tmp") + "/ctxkit-watch-XXXXXX";
  if (::mkdtemp(tmpl.data()) == nullptr) return "";
  // Canonical, as the watcher names files (TMPDIR may be a symlink).
  return std::filesystem::canonical(tmpl).string();
}

// Writes `content` to `path` in place (open, truncate, write, close).
inline void WriteFile(const std::string& path, const std::string& content) {
  std::filesystem::create_directories(
      std::filesystem::path(path).parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << content;
}

// Polls `done` every 5 ms for up to `timeout`.
inline bool WaitFor(
    const std::function<bool()>& done,
    std::chrono::milliseconds timeout = std::chrono::milliseconds(10000)) {
  auto end = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < end) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return done();
}

class WatchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = MakeTempDir();
    ASSERT_FALSE(root_.empty());
    home_ = root_ + "/store";
    tree_ = root_ + "/tree";
    std::filesystem::create_directories(tree_);
    OpenStore();
  }
  void TearDown() override {
    StopWatcher();
    view_.reset();
    store_.reset();
    std::error_code ec;
    std::filesystem::remove_all(root_, ec);
  }

  void OpenStore() {
    Options o;
    o.home = home_;
    o.durability = Durability::kProcess;  // Tests need no power-loss fsync.
    auto s = Store::Open(o);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    store_ = std::move(*s);
    auto v = store_->OpenView("", "");
    ASSERT_TRUE(v.ok());
    view_ = std::make_unique<View>(*v);
  }

  static std::string Key(const std::string& path) { return "file:" + path; }

  // Versions of a file's object, oldest first; empty when there is none.
  std::vector<VersionMeta> Versions(const std::string& path) {
    auto v = view_->Versions(Key(path));
    return v.ok() ? *v : std::vector<VersionMeta>{};
  }
  // The latest content, or "<none>" when the object is missing/deleted.
  std::string Content(const std::string& path) {
    auto v = view_->Get(Key(path));
    return v.ok() ? *v : "<none>";
  }
  size_t VersionCount(const std::string& path) { return Versions(path).size(); }
  bool LatestIsDeleted(const std::string& path) {
    auto v = Versions(path);
    return !v.empty() && v.back().state != VersionState::kPresent;
  }
  std::string IdOf(const std::string& path) {
    auto r = view_->RefOf(Key(path));
    return r.ok() ? r->id : "";
  }

  // A Watcher on its own thread (as `watch run` runs one).
  void StartWatcher(WatchOptions options = {}) {
    auto w = Watcher::Start(store_.get(), options);
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    watcher_ = std::move(*w);
    thread_ = std::thread([this] { run_status_ = watcher_->Run(); });
  }
  void StopWatcher() {
    if (watcher_ == nullptr) return;
    watcher_->Stop();
    thread_.join();
    EXPECT_TRUE(run_status_.ok()) << run_status_.ToString();
    watcher_.reset();
  }

  std::string root_;
  std::string home_;
  std::string tree_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<View> view_;
  std::unique_ptr<Watcher> watcher_;
  std::thread thread_;
  Status run_status_;
};

}  // namespace ctxkit::watch_testing

#endif  // CTXKIT_TESTS_WATCH_WATCH_TEST_UTIL_H_
