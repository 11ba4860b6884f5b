// Fixture for the index tests: a store in a fresh temp home, a view
// ("alice", "s1") (common/view_test.h), and helpers that check hits resolve to
// their text.

#ifndef CTXKIT_TESTS_INDEX_INDEX_TEST_UTIL_H_
#define CTXKIT_TESTS_INDEX_INDEX_TEST_UTIL_H_

#include <gtest/gtest.h>
#include <stdlib.h>

#include <string>
#include <utility>

#include "common/view_test.h"
#include "ctxkit/index.h"
#include "ctxkit/store.h"

namespace ctxkit::testing {

class IndexTest : public ViewTest {
 protected:
  IndexTest() : ViewTest("ctxkit-index") {}

  void SetUp() override {
    // Embeddings only where a test asks for them.
    unsetenv("CTXKIT_EMBED_URL");
    unsetenv("CTXKIT_EMBED_MODEL");
    ViewTest::SetUp();
  }

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
};

}  // namespace ctxkit::testing

#endif  // CTXKIT_TESTS_INDEX_INDEX_TEST_UTIL_H_
