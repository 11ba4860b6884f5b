// Token counts in version metadata: counted at set time (values up to
// Options::count_tokens_max_bytes, or on request) or lazily by
// View::CountTokens, then kept, so metadata shows them without reading
// content again, in this instance and in others. The fixture counts only on
// request, to test the lazy path; CountedAtSetUpToTheStoreLimit tests the
// default.

#include <optional>
#include <string>
#include <vector>

#include "ctxkit/tokenizer.h"
#include "store/test_util.h"

namespace ctxkit::testing {
namespace {

class TokenCountTest : public StoreTest {
 protected:
  void SetUp() override {
    StoreTest::SetUp();
    Options lazy = options_;
    lazy.count_tokens_max_bytes = 0;
    Reopen(lazy);
  }
  static uint64_t Exact(std::string_view text) {
    return (*Tokenizer::Get())->Count(text);
  }
};

TEST_F(TokenCountTest, CountedAtSetWhenAsked) {
  const std::string text = "The quick brown fox jumps over the lazy dog.";
  SetOptions counted;
  counted.count_tokens = true;
  ASSERT_OK(view().Set("k", text, counted));
  ASSERT_OK_AND_ASSIGN(ObjectMeta meta, view().Stat("k"));
  ASSERT_TRUE(meta.tokens.has_value());
  EXPECT_EQ(*meta.tokens, Exact(text));
  ASSERT_OK_AND_ASSIGN(std::vector<VersionMeta> versions, view().Versions("k"));
  ASSERT_EQ(versions.size(), 1u);
  EXPECT_EQ(versions[0].tokens, meta.tokens);
  ASSERT_OK_AND_ASSIGN(ListPage page, view().List());
  ASSERT_EQ(page.items.size(), 1u);
  EXPECT_EQ(page.items[0].tokens, meta.tokens);
}

// Every face writes through the store, so every face gets the same
// eager counts.
TEST_F(TokenCountTest, CountedAtSetUpToTheStoreLimit) {
  Options eager = options_;
  eager.count_tokens_max_bytes = 64;
  Reopen(eager);
  const std::string small = "The quick brown fox jumps over the lazy dog.";
  ASSERT_OK(view().Set("small", small));
  ASSERT_OK(view().Set("large", std::string(65, 'x')));
  ASSERT_OK_AND_ASSIGN(ObjectMeta meta, view().Stat("small"));
  ASSERT_TRUE(meta.tokens.has_value());
  EXPECT_EQ(*meta.tokens, Exact(small));
  ASSERT_OK_AND_ASSIGN(ObjectMeta large, view().Stat("large"));
  EXPECT_FALSE(large.tokens.has_value());
  EXPECT_EQ(Options().count_tokens_max_bytes, 8ull << 20);
}

TEST_F(TokenCountTest, LazyCountIsKeptAndSeenByAnotherInstance) {
  const std::string text = RandomText(7, 5000);
  ASSERT_OK(view().Set("k", text));
  ASSERT_OK_AND_ASSIGN(ObjectMeta before, view().Stat("k"));
  EXPECT_FALSE(before.tokens.has_value());

  ASSERT_OK_AND_ASSIGN(uint64_t counted, view().CountTokens("k"));
  EXPECT_EQ(counted, Exact(text));
  ASSERT_OK_AND_ASSIGN(ObjectMeta after, view().Stat("k"));
  EXPECT_EQ(after.tokens, std::optional<uint64_t>(counted));

  std::unique_ptr<Store> second = OpenSecond();
  ASSERT_OK_AND_ASSIGN(View other, second->OpenView("alice", "s1"));
  ASSERT_OK_AND_ASSIGN(ObjectMeta seen, other.Stat("k"));
  EXPECT_EQ(seen.tokens, std::optional<uint64_t>(counted));
  ASSERT_OK_AND_ASSIGN(ListPage page, other.List());
  ASSERT_EQ(page.items.size(), 1u);
  EXPECT_EQ(page.items[0].tokens, std::optional<uint64_t>(counted));
}

TEST_F(TokenCountTest, EachVersionHasItsOwnCount) {
  ASSERT_OK(view().Set("k", "one two three"));
  ASSERT_OK(view().Set("k", "a much longer second version of the value"));
  ASSERT_OK_AND_ASSIGN(uint64_t v1, view().CountTokens("k", {"", 1}));
  EXPECT_EQ(v1, Exact("one two three"));
  ASSERT_OK_AND_ASSIGN(std::vector<VersionMeta> versions, view().Versions("k"));
  ASSERT_EQ(versions.size(), 2u);
  EXPECT_EQ(versions[0].tokens, std::optional<uint64_t>(v1));
  EXPECT_FALSE(versions[1].tokens.has_value());
  // The object's count is the latest version's, still uncounted.
  ASSERT_OK_AND_ASSIGN(ObjectMeta meta, view().Stat("k"));
  EXPECT_FALSE(meta.tokens.has_value());
  ASSERT_OK_AND_ASSIGN(Ref latest, view().RefOf("k"));
  ASSERT_OK_AND_ASSIGN(uint64_t v2, view().CountTokens(latest));
  EXPECT_EQ(v2, Exact("a much longer second version of the value"));
  ASSERT_OK_AND_ASSIGN(meta, view().Stat("k"));
  EXPECT_EQ(meta.tokens, std::optional<uint64_t>(v2));
}

TEST_F(TokenCountTest, LargeBlobValueIsCountedExactlyAcrossSlices) {
  // Over 1 MiB, so the count streams several slices of a blob file; words
  // straddle the slice boundaries.
  std::string text;
  while (text.size() < (3u << 20) + 123) {
    text += "straddling wörds, numbers 1234567 and émoji 🙂 ";
  }
  ASSERT_OK(view().Set("big", text));
  ASSERT_OK_AND_ASSIGN(uint64_t counted, view().CountTokens("big"));
  EXPECT_EQ(counted, Exact(text));
}

TEST_F(TokenCountTest, EmptyBinaryAndInvalidUtf8Values) {
  ASSERT_OK(view().Set("empty", ""));
  ASSERT_OK_AND_ASSIGN(uint64_t empty, view().CountTokens("empty"));
  EXPECT_EQ(empty, 0u);
  const std::string bytes = RandomBytes(3, 4096);
  // Any bytes (NUL and invalid UTF-8 included), counted as tiktoken would.
  ASSERT_OK(view().Set("bin", bytes));
  ASSERT_OK_AND_ASSIGN(uint64_t bin, view().CountTokens("bin"));
  EXPECT_EQ(bin, Exact(bytes));
}

TEST_F(TokenCountTest, SessionOnlyValuesKeepCountsInTheInstance) {
  SetOptions ephemeral;
  ephemeral.persist = false;
  ASSERT_OK(view().Set("tmp", "session only text", ephemeral));
  ASSERT_OK_AND_ASSIGN(ObjectMeta before, view().Stat("tmp"));
  EXPECT_FALSE(before.tokens.has_value());
  ASSERT_OK_AND_ASSIGN(uint64_t counted, view().CountTokens("tmp"));
  EXPECT_EQ(counted, Exact("session only text"));
  ASSERT_OK_AND_ASSIGN(ObjectMeta after, view().Stat("tmp"));
  EXPECT_EQ(after.tokens, std::optional<uint64_t>(counted));

  ephemeral.count_tokens = true;
  ASSERT_OK(view().Set("tmp2", "counted at set", ephemeral));
  ASSERT_OK_AND_ASSIGN(ObjectMeta at_set, view().Stat("tmp2"));
  EXPECT_EQ(at_set.tokens, std::optional<uint64_t>(Exact("counted at set")));
}

TEST_F(TokenCountTest, StreamsAreCountedLazilyAsAWhole) {
  ASSERT_OK(view().Append("log", "first line\n"));
  ASSERT_OK(view().Append("log", "second line\n"));
  ASSERT_OK_AND_ASSIGN(uint64_t counted, view().CountTokens("log"));
  EXPECT_EQ(counted, Exact("first line\nsecond line\n"));
}

TEST_F(TokenCountTest, MissingKeyIsNotFound) {
  EXPECT_THAT(view().CountTokens("nope"), StatusIs(StatusCode::kNotFound));
  EXPECT_THAT(view().CountTokens(""), StatusIs(StatusCode::kInvalidArgument));
}

}  // namespace
}  // namespace ctxkit::testing
