// LineDiff (src/text/line_diff.h): unified hunks that turn one text into
// another, checked by applying them, plus the diff -u conventions.

#include "text/line_diff.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace ctxkit::text {
namespace {

std::vector<std::string> SplitLines(const std::string& text) {
  std::vector<std::string> lines;
  size_t at = 0;
  while (at < text.size()) {
    size_t nl = text.find('\n', at);
    if (nl == std::string::npos) nl = text.size();
    lines.push_back(text.substr(at, nl - at));
    at = nl + 1;
  }
  return lines;
}

// `from`'s lines with the hunks applied; fails the test when a hunk's
// context or removed lines are not where its header says.
std::vector<std::string> Apply(const std::string& from,
                               const std::vector<DiffHunk>& hunks) {
  std::vector<std::string> a = SplitLines(from), out;
  size_t next = 0;  // Next line of `a` not yet copied (0-based).
  for (const DiffHunk& h : hunks) {
    const size_t start = h.from_count == 0 ? h.from_line : h.from_line - 1;
    EXPECT_GE(start, next);
    while (next < start) out.push_back(a[next++]);
    EXPECT_EQ(h.to_line - (h.to_count == 0 ? 0 : 1), out.size());
    for (const DiffLine& l : h.lines) {
      if (l.op != '+') {
        EXPECT_LT(next, a.size());
        if (next < a.size()) {
          EXPECT_EQ(a[next], l.text);
        }
        ++next;
      }
      if (l.op != '-') out.emplace_back(l.text);
    }
  }
  while (next < a.size()) out.push_back(a[next++]);
  return out;
}

TEST(LineDiffTest, EqualTextsHaveNoHunks) {
  auto d = LineDiff("a\nb\n", "a\nb\n");
  ASSERT_TRUE(d.ok());
  EXPECT_TRUE(d->empty());
  EXPECT_TRUE(LineDiff("", "")->empty());
}

TEST(LineDiffTest, OneChangeAsDiffShowsIt) {
  auto d = LineDiff("1\n2\n3\n4\n5\n6\n7\n8\n", "1\n2\n3\n4\nfive\n6\n7\n8\n");
  ASSERT_TRUE(d.ok());
  ASSERT_EQ(d->size(), 1u);
  const DiffHunk& h = (*d)[0];
  // @@ -2,7 +2,7 @@ with three lines of context around the change.
  EXPECT_EQ(h.from_line, 2u);
  EXPECT_EQ(h.from_count, 7u);
  EXPECT_EQ(h.to_line, 2u);
  EXPECT_EQ(h.to_count, 7u);
  ASSERT_EQ(h.lines.size(), 8u);
  EXPECT_EQ(h.lines[3].op, '-');
  EXPECT_EQ(h.lines[3].text, "5");
  EXPECT_EQ(h.lines[4].op, '+');
  EXPECT_EQ(h.lines[4].text, "five");
}

TEST(LineDiffTest, EmptySidesNameTheLineBefore) {
  auto added = LineDiff("", "x\ny\n");
  ASSERT_TRUE(added.ok());
  ASSERT_EQ(added->size(), 1u);
  EXPECT_EQ((*added)[0].from_line, 0u);  // @@ -0,0 +1,2 @@
  EXPECT_EQ((*added)[0].from_count, 0u);
  EXPECT_EQ((*added)[0].to_line, 1u);
  EXPECT_EQ((*added)[0].to_count, 2u);
  auto removed = LineDiff("x\ny\n", "");
  ASSERT_TRUE(removed.ok());
  EXPECT_EQ((*removed)[0].to_line, 0u);
  EXPECT_EQ((*removed)[0].to_count, 0u);
}

TEST(LineDiffTest, FarApartChangesMakeSeparateHunks) {
  std::string a, b;
  for (int i = 0; i < 40; ++i) {
    a += std::to_string(i) + "\n";
    b += (i == 3 || i == 30 ? "changed " : "") + std::to_string(i) + "\n";
  }
  auto d = LineDiff(a, b);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->size(), 2u);
  EXPECT_EQ(Apply(a, *d), SplitLines(b));
  auto near = LineDiff(a, b, {.context_lines = 20});
  ASSERT_TRUE(near.ok());
  EXPECT_EQ(near->size(), 1u);  // Within 2 x context: one hunk.
}

TEST(LineDiffTest, RandomEditsApplyBackExactly) {
  std::mt19937 rng(7);
  for (int round = 0; round < 300; ++round) {
    std::string a, b;
    const int n = static_cast<int>(rng() % 60);
    for (int i = 0; i < n; ++i) {
      const std::string line = "L" + std::to_string(rng() % 12);
      a += line + "\n";
      switch (rng() % 5) {
        case 0:
          break;  // Dropped.
        case 1:
          b += "new" + std::to_string(rng() % 4) + "\n" + line + "\n";
          break;
        default:
          b += line + "\n";
      }
    }
    if (round % 7 == 0 && !b.empty()) b.pop_back();  // No final newline.
    auto d = LineDiff(a, b, {.context_lines = static_cast<size_t>(round % 4)});
    ASSERT_TRUE(d.ok());
    EXPECT_EQ(Apply(a, *d), SplitLines(b)) << "round " << round;
  }
}

TEST(LineDiffTest, TooManyChangedLinesAreRefused) {
  std::string a, b;
  for (int i = 0; i < 100; ++i) {
    a += "a" + std::to_string(i) + "\n";
    b += "b" + std::to_string(i) + "\n";
  }
  auto d = LineDiff(a, b, {.max_changed_lines = 50});
  EXPECT_EQ(d.status().code(), StatusCode::kResourceExhausted);
  // The common head and tail do not count.
  auto small = LineDiff("same\n" + a + "end\n", "same\n" + a + "x\nend\n",
                        {.max_changed_lines = 5});
  EXPECT_TRUE(small.ok());
}

}  // namespace
}  // namespace ctxkit::text
