// SetOptions::expected_version makes a Set a compare-and-set, on both
// engines (durable and session-only): a writer that read version N replaces
// exactly N, and a refused write leaves the store as it was.

#include <string>

#include "store/test_util.h"

namespace ctxkit::testing {
namespace {

class ConditionalSetTest : public StoreTest,
                           public ::testing::WithParamInterface<bool> {
 protected:
  SetOptions At(uint64_t expected) {
    SetOptions o;
    o.persist = GetParam();
    o.expected_version = expected;
    return o;
  }
};

TEST_P(ConditionalSetTest, ReplacesOnlyTheExpectedVersion) {
  ASSERT_OK_AND_ASSIGN(Ref first, view().Set("k", "one", At(0)));
  ASSERT_OK_AND_ASSIGN(Ref second, view().Set("k", "two", At(first.version)));
  EXPECT_EQ(second.version, first.version + 1);
  // A writer still holding `first` is refused, and nothing is written.
  Result<Ref> stale = view().Set("k", "lost update", At(first.version));
  EXPECT_EQ(stale.status().code(), StatusCode::kFailedPrecondition)
      << stale.status().ToString();
  ASSERT_OK_AND_ASSIGN(std::string now, view().Get("k"));
  EXPECT_EQ(now, "two");
  ASSERT_OK_AND_ASSIGN(std::vector<VersionMeta> versions, view().Versions("k"));
  EXPECT_EQ(versions.size(), 2u);
}

TEST_P(ConditionalSetTest, AnExpectedVersionNeverCreatesAKey) {
  Result<Ref> r = view().Set("absent", "x", At(1));
  EXPECT_EQ(r.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_TRUE(view().Get("absent").status().IsNotFound());
}

INSTANTIATE_TEST_SUITE_P(Engines, ConditionalSetTest, ::testing::Bool(),
                         [](const auto& info) {
                           return info.param ? "Durable" : "SessionOnly";
                         });

}  // namespace
}  // namespace ctxkit::testing
