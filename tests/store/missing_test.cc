// View::MarkMissing: a tombstone whose state says the value's source (a
// watched file) is gone, as opposed to a value someone removed.

#include <string>
#include <vector>

#include "store/test_util.h"

namespace ctxkit::testing {
namespace {

class MissingTest : public StoreTest {};

TEST_F(MissingTest, StopsResolvingKeepsHistoryAndRevives) {
  ASSERT_OK_AND_ASSIGN(Ref v1, view().Set("file:/x", "content"));
  ASSERT_OK_AND_ASSIGN(Ref pinned, view().RefOf("file:/x", {"", 1}));
  ASSERT_OK(view().MarkMissing("file:/x"));
  EXPECT_THAT(view().Get("file:/x"), StatusIs(StatusCode::kNotFound));
  ASSERT_OK_AND_ASSIGN(std::string old, view().Resolve(pinned));
  EXPECT_EQ(old, "content");
  ASSERT_OK_AND_ASSIGN(std::vector<VersionMeta> history,
                       view().Versions("file:/x"));
  ASSERT_EQ(history.size(), 2u);
  EXPECT_EQ(history[1].state, VersionState::kMissing);
  // Marking it again is NotFound, like a second Remove.
  EXPECT_THAT(view().MarkMissing("file:/x"), StatusIs(StatusCode::kNotFound));
  // The source comes back: the same object, a new version.
  ASSERT_OK_AND_ASSIGN(Ref back, view().Set("file:/x", "content again"));
  EXPECT_EQ(back.id, v1.id);
  ASSERT_OK_AND_ASSIGN(history, view().Versions("file:/x"));
  EXPECT_EQ(history.size(), 3u);
  EXPECT_EQ(history[2].state, VersionState::kPresent);
}

TEST_F(MissingTest, SessionOnlyValuesToo) {
  SetOptions ephemeral;
  ephemeral.persist = false;
  ASSERT_OK(view().Set("tmp", "t", ephemeral));
  ASSERT_OK(view().MarkMissing("tmp"));
  EXPECT_THAT(view().Get("tmp"), StatusIs(StatusCode::kNotFound));
  ASSERT_OK_AND_ASSIGN(std::vector<VersionMeta> history,
                       view().Versions("tmp"));
  ASSERT_EQ(history.size(), 2u);
  EXPECT_EQ(history[1].state, VersionState::kMissing);
}

}  // namespace
}  // namespace ctxkit::testing
