// Fixture for the explore tests: a store in a fresh temp home and a view
// ("alice", "s1") (common/view_test.h), and helpers to write values.

#ifndef CTXKIT_TESTS_EXPLORE_EXPLORE_TEST_UTIL_H_
#define CTXKIT_TESTS_EXPLORE_EXPLORE_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <string>

#include "common/view_test.h"
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

class ExploreTest : public ViewTest {
 protected:
  ExploreTest() : ViewTest("ctxkit-explore") {}

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
};

}  // namespace ctxkit::testing

#endif  // CTXKIT_TESTS_EXPLORE_EXPLORE_TEST_UTIL_H_
