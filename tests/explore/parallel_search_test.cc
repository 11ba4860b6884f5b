// Search over many values, which runs on several threads: the result is
// the one a search of one value after another gives (same matches in the
// same order, same limit, same counts).

#include <algorithm>
#include <string>
#include <vector>

#include "explore/explore_test_util.h"

namespace ctxkit::testing {
namespace {

class ParallelSearchTest : public ExploreTest {
 protected:
  // 48 values of 128 KiB (6 MiB, enough to search on several threads) with
  // hits at different depths, some values with none; written in key
  // order, so the listing order is the key order.
  void SetUp() override {
    ExploreTest::SetUp();
    for (int i = 0; i < kValues; ++i) {
      std::string text;
      int line = 0;
      while (text.size() < (128u << 10)) {
        const bool hit = i % 5 != 3 && (line * 7 + i * 13) % 307 == 0;
        text += "line " + std::to_string(line) + (hit ? " hit " : " miss ") +
                std::string(40 + line % 50, 'x') + "\n";
        ++line;
      }
      keys_.push_back(Key(i));
      sizes_.push_back(text.size());
      Put(keys_.back(), text);
    }
  }

  static std::string Key(int i) {
    return "v" + std::string(i < 10 ? "0" : "") + std::to_string(i);
  }

  // Every value searched alone, in key order, the hits joined.
  std::vector<SearchMatch> OneAtATime() {
    std::vector<SearchMatch> all;
    for (const std::string& key : keys_) {
      SearchOptions o;
      o.keys = {key};
      o.max_results = 1000000;
      o.context_lines = 1;
      Result<SearchResult> r = Search(view(), "hit", o);
      EXPECT_TRUE(r.ok()) << r.status().ToString();
      if (!r.ok()) return {};
      for (SearchMatch& m : r->matches) all.push_back(std::move(m));
    }
    return all;
  }

  static constexpr int kValues = 48;
  std::vector<std::string> keys_;
  std::vector<uint64_t> sizes_;
};

void ExpectSameMatch(const SearchMatch& a, const SearchMatch& b, size_t i) {
  EXPECT_EQ(a.key, b.key) << "match " << i;
  EXPECT_EQ(a.line, b.line) << "match " << i;
  EXPECT_EQ(a.byte_offset, b.byte_offset) << "match " << i;
  EXPECT_EQ(a.preview, b.preview) << "match " << i;
  ASSERT_EQ(a.before.size(), b.before.size()) << "match " << i;
  ASSERT_EQ(a.after.size(), b.after.size()) << "match " << i;
  if (!a.after.empty()) {
    EXPECT_EQ(a.after[0].text, b.after[0].text) << "match " << i;
  }
}

TEST_F(ParallelSearchTest, ManyValuesGiveTheHitsOfOneValueAfterAnother) {
  const std::vector<SearchMatch> expected = OneAtATime();
  ASSERT_GT(expected.size(), 100u);
  uint64_t total_bytes = 0;
  for (uint64_t size : sizes_) total_bytes += size;
  // By listing and by keys given, each searched three times (any thread
  // may finish first; the order must not change).
  SearchOptions listed;
  listed.max_results = 1000000;
  listed.context_lines = 1;
  SearchOptions given = listed;
  given.keys = keys_;
  for (const SearchOptions& o : {listed, listed, listed, given, given}) {
    EXPLORE_ASSERT_OK_AND_ASSIGN(SearchResult r, Search(view(), "hit", o));
    ASSERT_EQ(r.matches.size(), expected.size());
    for (size_t i = 0; i < expected.size(); ++i) {
      ExpectSameMatch(r.matches[i], expected[i], i);
    }
    EXPECT_FALSE(r.truncated);
    EXPECT_EQ(r.variables_searched, static_cast<uint64_t>(kValues));
    EXPECT_EQ(r.bytes_read, total_bytes);
  }
}

TEST_F(ParallelSearchTest, LimitKeepsTheFirstMatchesAndStopsThere) {
  const std::vector<SearchMatch> expected = OneAtATime();
  ASSERT_GT(expected.size(), 100u);
  for (size_t limit : {size_t{1}, size_t{7}, size_t{50}, expected.size() - 1,
                       expected.size()}) {
    SearchOptions o;
    o.max_results = limit;
    o.context_lines = 1;
    EXPLORE_ASSERT_OK_AND_ASSIGN(SearchResult r, Search(view(), "hit", o));
    ASSERT_EQ(r.matches.size(), limit);
    for (size_t i = 0; i < limit; ++i) {
      ExpectSameMatch(r.matches[i], expected[i], i);
    }
    EXPECT_TRUE(r.truncated) << "limit " << limit;
    // The search stopped in the value holding the last match kept.
    const std::string& last_key = expected[limit - 1].key;
    const size_t last_value = static_cast<size_t>(
        std::find(keys_.begin(), keys_.end(), last_key) - keys_.begin());
    EXPECT_EQ(r.variables_searched, last_value + 1) << "limit " << limit;
    uint64_t before = 0;
    for (size_t v = 0; v < last_value; ++v) before += sizes_[v];
    EXPECT_GT(r.bytes_read, before) << "limit " << limit;
    EXPECT_LE(r.bytes_read, before + sizes_[last_value]) << "limit " << limit;
  }
}

}  // namespace
}  // namespace ctxkit::testing
