// View::TryGet: Get answered from memory alone, never stale and never
// different from Get. On the embedded engine it answers what this instance
// wrote or read; on PostgreSQL (no change counter without a query) it
// always declines.

#include <optional>
#include <string>

#include "store/test_util.h"

namespace ctxkit::testing {
namespace {

class TryGetTest : public StoreTest {
 protected:
  // Whether the engine can answer at all (SQLite, not PostgreSQL).
  bool Answers() const { return options_.store_url.empty(); }

  // TryGet(key) must be Get(key) when it answers: same value, or same
  // error code and message. Returns whether it answered.
  bool AnswersAsGetDoes(View& v, const std::string& key,
                        const LookupOptions& lookup = {}) {
    std::optional<Result<std::string>> tried = v.TryGet(key, lookup);
    if (!tried) return false;
    Result<std::string> got = v.Get(key, lookup);
    EXPECT_EQ(tried->ok(), got.ok()) << key;
    if (tried->ok() && got.ok()) {
      EXPECT_EQ(tried->value(), got.value()) << key;
    } else if (!tried->ok() && !got.ok()) {
      EXPECT_EQ(tried->status().code(), got.status().code()) << key;
      EXPECT_EQ(tried->status().message(), got.status().message()) << key;
    }
    return true;
  }
};

TEST_F(TryGetTest, AnswersWhatThisInstanceWrote) {
  // A view of the global scope alone: a Set there leaves every scope the
  // view looks in known to the caches.
  ASSERT_OK_AND_ASSIGN(View global, store_->OpenView("", ""));
  ASSERT_OK(global.Set("k", "the value"));
  std::optional<Result<std::string>> tried = global.TryGet("k");
  if (!Answers()) {
    EXPECT_FALSE(tried.has_value());
    return;
  }
  ASSERT_TRUE(tried.has_value());
  ASSERT_OK(*tried);
  EXPECT_EQ(tried->value(), "the value");
  ASSERT_OK(global.Set("k", "a second version"));
  EXPECT_TRUE(AnswersAsGetDoes(global, "k"));
  EXPECT_EQ(global.TryGet("k")->value(), "a second version");
}

TEST_F(TryGetTest, AViewOfSeveralScopesAnswersOnceAGetLookedInThem) {
  // alice/s1 looks in its session, agent and global scopes; a Set in one
  // says nothing of the others, so the first read asks the database.
  ASSERT_OK(view().Set("k", "the value"));
  EXPECT_FALSE(view().TryGet("k").has_value());
  ASSERT_OK(view().Get("k"));
  EXPECT_EQ(AnswersAsGetDoes(view(), "k"), Answers());
  ASSERT_OK(view().Set("k", "a second version"));
  EXPECT_EQ(AnswersAsGetDoes(view(), "k"), Answers());
}

TEST_F(TryGetTest, DeclinesUntilTheValueIsCachedThenAnswers) {
  ASSERT_OK(view().Set("k", "written before the reopen"));
  Reopen();
  EXPECT_FALSE(view().TryGet("k").has_value()) << "nothing is cached yet";
  ASSERT_OK(view().Get("k"));
  EXPECT_EQ(AnswersAsGetDoes(view(), "k"), Answers());
}

TEST_F(TryGetTest, NeverServesAValueAnotherInstanceReplaced) {
  std::unique_ptr<Store> second = OpenSecond();
  ASSERT_NE(second, nullptr);
  ASSERT_OK_AND_ASSIGN(View other, second->OpenView("alice", "s2"));
  ASSERT_OK(view().Set("k", "v1"));
  ASSERT_OK(other.Set("k", "v2 from the other instance"));
  // Whatever TryGet says now must be the new value, or nothing.
  std::optional<Result<std::string>> tried = view().TryGet("k");
  if (tried) {
    ASSERT_OK(*tried);
    EXPECT_EQ(tried->value(), "v2 from the other instance");
  }
  ASSERT_OK_AND_ASSIGN(std::string got, view().Get("k"));
  EXPECT_EQ(got, "v2 from the other instance");
  ASSERT_OK(other.Remove("k"));
  tried = view().TryGet("k");
  if (tried) {
    EXPECT_THAT(*tried, StatusIs(StatusCode::kNotFound));
  }
  EXPECT_THAT(view().Get("k"), StatusIs(StatusCode::kNotFound));
}

TEST_F(TryGetTest, ErrorsAreGetsErrors) {
  // A malformed key and an unknown scope are refused without the caches.
  for (const char* key : {"", "bad\nkey"}) {
    std::optional<Result<std::string>> tried = view().TryGet(key);
    ASSERT_TRUE(tried.has_value()) << key;
    EXPECT_TRUE(AnswersAsGetDoes(view(), key));
    EXPECT_THAT(*tried, StatusIs(StatusCode::kInvalidArgument));
  }
  LookupOptions bad_scope;
  bad_scope.scope = "no-such-scope-kind:x";
  EXPECT_TRUE(AnswersAsGetDoes(view(), "k", bad_scope));
  // An absence Get has cached, and a removed key.
  EXPECT_THAT(view().Get("missing"), StatusIs(StatusCode::kNotFound));
  EXPECT_EQ(AnswersAsGetDoes(view(), "missing"), Answers());
  ASSERT_OK(view().Set("gone", "x"));
  ASSERT_OK(view().Remove("gone"));
  EXPECT_THAT(view().Get("gone"), StatusIs(StatusCode::kNotFound));
  EXPECT_EQ(AnswersAsGetDoes(view(), "gone"), Answers());
}

TEST_F(TryGetTest, ASessionOnlyValueIsLeftToGetAndStillShadows) {
  SetOptions durable;
  durable.scope = "agent";
  ASSERT_OK(view().Set("k", "durable, agent scope", durable));
  ASSERT_OK(view().Get("k"));
  SetOptions memory;
  memory.scope = "session";
  memory.persist = false;
  ASSERT_OK(view().Set("k", "session-only", memory));
  // The session scope's value shadows the agent's: TryGet must not answer
  // with the durable one.
  std::optional<Result<std::string>> tried = view().TryGet("k");
  if (tried) {
    ASSERT_OK(*tried);
    EXPECT_EQ(tried->value(), "session-only");
  }
  ASSERT_OK_AND_ASSIGN(std::string got, view().Get("k"));
  EXPECT_EQ(got, "session-only");
}

TEST_F(TryGetTest, NumberedVersionsAreLeftToGet) {
  ASSERT_OK(view().Set("k", "v1"));
  ASSERT_OK(view().Set("k", "v2"));
  LookupOptions first;
  first.version = 1;
  EXPECT_FALSE(view().TryGet("k", first).has_value());
  ASSERT_OK_AND_ASSIGN(std::string got, view().Get("k", first));
  EXPECT_EQ(got, "v1");
}

}  // namespace
}  // namespace ctxkit::testing
