// LineDiff (src/text/line_diff.h): unified hunks that turn one text into
// another, checked by applying them, plus the diff -u conventions.

#include "text/line_diff.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace ctxkit::text {
namespace {

// Lines with their '\n' (the last may have none).
std::vector<std::string> SplitLines(const std::string& text) {
  std::vector<std::string> lines;
  size_t at = 0;
  while (at < text.size()) {
    size_t nl = text.find('\n', at);
    nl = nl == std::string::npos ? text.size() : nl + 1;
    lines.push_back(text.substr(at, nl - at));
    at = nl;
  }
  return lines;
}

std::string Whole(const DiffLine& l) {
  return std::string(l.text) + (l.no_newline ? "" : "\n");
}

// `from` with the hunks applied, byte for byte; fails the test when a
// hunk's context or removed lines are not where its header says.
std::string Apply(const std::string& from, const std::vector<DiffHunk>& hunks) {
  std::vector<std::string> a = SplitLines(from);
  std::string out;
  size_t next = 0;  // Next line of `a` not yet copied (0-based).
  size_t out_lines = 0;
  for (const DiffHunk& h : hunks) {
    const size_t start = h.from_count == 0 ? h.from_line : h.from_line - 1;
    EXPECT_GE(start, next);
    for (; next < start; ++next, ++out_lines) out += a[next];
    EXPECT_EQ(h.to_line - (h.to_count == 0 ? 0 : 1), out_lines);
    for (const DiffLine& l : h.lines) {
      if (l.op != '+') {
        EXPECT_LT(next, a.size());
        if (next < a.size()) {
          EXPECT_EQ(a[next], Whole(l));
        }
        ++next;
      }
      if (l.op != '-') {
        out += Whole(l);
        ++out_lines;
      }
    }
  }
  for (; next < a.size(); ++next) out += a[next];
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
  EXPECT_EQ(Apply(a, *d), b);
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
    EXPECT_EQ(Apply(a, *d), b) << "round " << round;
  }
}

TEST(LineDiffTest, AMissingFinalNewlineIsAChange) {
  auto d = LineDiff("a\nb\n", "a\nb");
  ASSERT_TRUE(d.ok());
  ASSERT_EQ(d->size(), 1u);
  const std::vector<DiffLine>& lines = (*d)[0].lines;
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[1].op, '-');
  EXPECT_EQ(lines[1].text, "b");
  EXPECT_FALSE(lines[1].no_newline);
  EXPECT_EQ(lines[2].op, '+');
  EXPECT_EQ(lines[2].text, "b");
  EXPECT_TRUE(lines[2].no_newline);
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
