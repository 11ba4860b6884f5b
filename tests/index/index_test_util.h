// Fixture for the index tests: a store in a fresh temp home, a view
// ("alice", "s1"), and helpers that check hits resolve to their text.

#ifndef CTXKIT_TESTS_INDEX_INDEX_TEST_UTIL_H_
#define CTXKIT_TESTS_INDEX_INDEX_TEST_UTIL_H_

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "ctxkit/index.h"
#include "ctxkit/store.h"

namespace ctxkit::testing {

class IndexTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // Embeddings only where a test asks for them.
    unsetenv("CTXKIT_EMBED_URL");
    unsetenv("CTXKIT_EMBED_MODEL");
    const char* tmp = getenv("TMPDIR");
    std::string pattern =
        std::string(tmp != nullptr ? tmp : "/tmp") + "/ctxkit-index-XXXXXX";
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    options_.home = dir_ + "/home";
    options_.durability = Durability::kProcess;
    Reopen();
  }
  // Opens the store at options_.home (closing the one open) and the view.
  void Reopen() {
    view_.reset();
    store_.reset();
    auto store = Store::Open(options_);
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

  View& view() { return *view_; }
  void Put(const std::string& key, const std::string& value,
           SetOptions o = {}) {
    auto r = view().Set(key, value, o);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  FindResult Find(const std::string& query, FindOptions o = {}) {
    return FindIn(view(), query, o);
  }
  static FindResult FindIn(View& v, const std::string& query,
                           FindOptions o = {}) {
    auto r = FindRelevant(v, query, o);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? std::move(*r) : FindResult{};
  }
  // The hit's text, read through its ref.
  std::string Text(const FindHit& h) {
    auto r = view().ReadRange(h.ref, h.byte_offset, h.byte_length);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : "";
  }

  std::string dir_;
  Options options_;
  std::unique_ptr<Store> store_;
  std::optional<View> view_;
};

}  // namespace ctxkit::testing

#endif  // CTXKIT_TESTS_INDEX_INDEX_TEST_UTIL_H_
