// Peek by lines, bytes, JSON items and stream chunks (SPEC-25.03 peek).

#include <string>
#include <vector>

#include "explore/explore_test_util.h"

namespace ctxkit::testing {
namespace {

class PeekTest : public ExploreTest {};

PeekOptions Range(int64_t start, int64_t end, PeekUnit unit = PeekUnit::kAuto) {
  PeekOptions o;
  o.start = start;
  o.end = end;
  o.unit = unit;
  return o;
}

TEST_F(PeekTest, TextByLinesIsThePythonSliceOfLines) {
  Put("t", "l0\nl1\nl2\nl3\nl4");  // 5 lines, the last unterminated.
  EXPLORE_ASSERT_OK_AND_ASSIGN(PeekResult r, Peek(view(), "t", Range(1, 3)));
  EXPECT_EQ(r.unit, PeekUnit::kLines);
  EXPECT_EQ(r.text, "l1\nl2\n");
  EXPECT_EQ(r.start, 1u);
  EXPECT_EQ(r.end, 3u);
  EXPECT_EQ(r.byte_begin, 3u);
  EXPECT_EQ(r.byte_end, 9u);
  EXPECT_EQ(r.total_bytes, 14u);
  EXPECT_FALSE(r.truncated);
  EXPECT_TRUE(r.ref.is_static());

  // Past the end: clamped, with the total learned on the way.
  EXPLORE_ASSERT_OK_AND_ASSIGN(r, Peek(view(), "t", Range(3, 100)));
  EXPECT_EQ(r.text, "l3\nl4");
  EXPECT_EQ(r.end, 5u);
  ASSERT_TRUE(r.total.has_value());
  EXPECT_EQ(*r.total, 5u);

  // Negative indices count from the end.
  EXPLORE_ASSERT_OK_AND_ASSIGN(r, Peek(view(), "t", Range(-2, kPeekToEnd)));
  EXPECT_EQ(r.text, "l3\nl4");
  EXPECT_EQ(r.start, 3u);
  EXPLORE_ASSERT_OK_AND_ASSIGN(r, Peek(view(), "t", Range(0, -4)));
  EXPECT_EQ(r.text, "l0\n");

  // Out of range and inverted: empty, never an error.
  EXPLORE_ASSERT_OK_AND_ASSIGN(r, Peek(view(), "t", Range(50, 60)));
  EXPECT_EQ(r.text, "");
  EXPECT_EQ(r.start, 5u);
  EXPECT_EQ(r.end, 5u);
  EXPLORE_ASSERT_OK_AND_ASSIGN(r, Peek(view(), "t", Range(3, 1)));
  EXPECT_EQ(r.text, "");
  EXPLORE_ASSERT_OK_AND_ASSIGN(r, Peek(view(), "t", Range(-100, 1)));
  EXPECT_EQ(r.text, "l0\n");
}

TEST_F(PeekTest, LineEdgeCases) {
  Put("empty", "");
  EXPLORE_ASSERT_OK_AND_ASSIGN(PeekResult r, Peek(view(), "empty"));
  EXPECT_EQ(r.text, "");
  EXPECT_EQ(r.total, 0u);
  Put("nl", "\n\n");
  EXPLORE_ASSERT_OK_AND_ASSIGN(r, Peek(view(), "nl", Range(1, 2)));
  EXPECT_EQ(r.text, "\n");
  EXPLORE_ASSERT_OK_AND_ASSIGN(r, Peek(view(), "nl", Range(2, 3)));
  EXPECT_EQ(r.text, "");
  EXPECT_EQ(r.total, 2u);
  Put("crlf", "a\r\nb\r\n");
  EXPLORE_ASSERT_OK_AND_ASSIGN(r, Peek(view(), "crlf", Range(1, 2)));
  EXPECT_EQ(r.text, "b\r\n");
  // Binary and invalid UTF-8 come back verbatim.
  const std::string bin("\x00\xff\xfe\n\x80z", 6);
  Put("bin", bin);
  EXPLORE_ASSERT_OK_AND_ASSIGN(r, Peek(view(), "bin", Range(0, 2)));
  EXPECT_EQ(r.text, bin);
}

TEST_F(PeekTest, MaxBytesCutsOnACharacterBoundaryAndStillProgresses) {
  // One 3-byte character per unit of the line.
  std::string line;
  for (int i = 0; i < 100; ++i) line += "\xe2\x82\xac";  // U+20AC
  Put("euro", line + "\nnext\n");
  PeekOptions o = Range(0, 2);
  o.max_bytes = 10;
  EXPLORE_ASSERT_OK_AND_ASSIGN(PeekResult r, Peek(view(), "euro", o));
  EXPECT_TRUE(r.truncated);
  EXPECT_EQ(r.text.size(), 9u);  // 3 whole characters, not 10 bytes.
  EXPECT_EQ(r.start, 0u);
  EXPECT_EQ(r.end, 1u);  // Paging from `end` moves on.
  EXPECT_EQ(r.byte_end, 9u);
  EXPECT_LE(r.bytes_read, 20u);  // The scan, then the slice.
}

TEST_F(PeekTest, Bytes) {
  Put("b", "0123456789");
  EXPLORE_ASSERT_OK_AND_ASSIGN(
      PeekResult r, Peek(view(), "b", Range(2, 5, PeekUnit::kBytes)));
  EXPECT_EQ(r.text, "234");
  EXPECT_EQ(r.total, 10u);
  EXPECT_EQ(r.bytes_read, 3u);
  EXPLORE_ASSERT_OK_AND_ASSIGN(
      r, Peek(view(), "b", Range(-3, kPeekToEnd, PeekUnit::kBytes)));
  EXPECT_EQ(r.text, "789");
  PeekOptions o = Range(0, 10, PeekUnit::kBytes);
  o.max_bytes = 4;
  EXPLORE_ASSERT_OK_AND_ASSIGN(r, Peek(view(), "b", o));
  EXPECT_EQ(r.text, "0123");
  EXPECT_TRUE(r.truncated);
  EXPECT_EQ(r.end, 4u);
}

TEST_F(PeekTest, JsonArrayByIndex) {
  Put("list", R"([ {"a": [1, 2]}, "x,y]", 3 , null, [[]], "q\"]" ])",
      ValueType::kJson);
  EXPLORE_ASSERT_OK_AND_ASSIGN(PeekResult r, Peek(view(), "list", Range(0, 2)));
  EXPECT_EQ(r.unit, PeekUnit::kItems);
  EXPECT_EQ(r.text, R"([{"a": [1, 2]}, "x,y]"])");
  ASSERT_EQ(r.parts.size(), 2u);
  EXPECT_EQ(r.parts[1], R"("x,y]")");
  EXPECT_FALSE(r.total.has_value());  // Not scanned to the end.
  EXPLORE_ASSERT_OK_AND_ASSIGN(r, Peek(view(), "list", Range(2, 100)));
  EXPECT_EQ(r.text, R"([3, null, [[]], "q\"]"])");
  EXPECT_EQ(r.total, 6u);
  EXPLORE_ASSERT_OK_AND_ASSIGN(r, Peek(view(), "list", Range(-1, kPeekToEnd)));
  EXPECT_EQ(r.text, R"(["q\"]"])");
  EXPECT_EQ(r.start, 5u);
  Put("none", "[]", ValueType::kJson);
  EXPLORE_ASSERT_OK_AND_ASSIGN(r, Peek(view(), "none"));
  EXPECT_EQ(r.text, "[]");
  EXPECT_EQ(r.total, 0u);
}

TEST_F(PeekTest, JsonObjectByKeyOrder) {
  Put("dict", R"({"zeta": 1, "alpha": {"n": [1]}, "mid": "v"})",
      ValueType::kJson);
  EXPLORE_ASSERT_OK_AND_ASSIGN(PeekResult r, Peek(view(), "dict", Range(0, 2)));
  // Document order, not sorted.
  EXPECT_EQ(r.text, R"({"zeta": 1, "alpha": {"n": [1]}})");
  EXPLORE_ASSERT_OK_AND_ASSIGN(r, Peek(view(), "dict", Range(2, 3)));
  EXPECT_EQ(r.text, R"({"mid": "v"})");
}

TEST_F(PeekTest, ItemsOnNonJsonIsAClearError) {
  Put("t", "just text");
  auto r = Peek(view(), "t", Range(0, 1, PeekUnit::kItems));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kFailedPrecondition);
  // Text that looks like a JSON array but is not valid.
  Put("bad", "[1 2, 3]");
  r = Peek(view(), "bad", Range(0, 1, PeekUnit::kItems));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  // A JSON scalar peeks by lines in auto mode.
  Put("scalar", "\"hello\"", ValueType::kJson);
  EXPLORE_ASSERT_OK_AND_ASSIGN(PeekResult p, Peek(view(), "scalar"));
  EXPECT_EQ(p.unit, PeekUnit::kLines);
  EXPECT_EQ(p.text, "\"hello\"");
}

TEST_F(PeekTest, StreamsByChunkOneChunkPerAppend) {
  for (const char* c : {"alpha\n", "beta\n", "", "gamma\n"}) {
    ASSERT_TRUE(view().Append("log", c).ok());
  }
  EXPLORE_ASSERT_OK_AND_ASSIGN(PeekResult r, Peek(view(), "log", Range(1, 4)));
  EXPECT_EQ(r.unit, PeekUnit::kChunks);
  EXPECT_EQ(r.chunk_bytes, 0u);
  EXPECT_EQ(r.total, 4u);
  EXPECT_EQ(r.text, "beta\ngamma\n");
  ASSERT_EQ(r.parts.size(), 3u);
  EXPECT_EQ(r.parts[0], "beta\n");
  EXPECT_EQ(r.parts[1], "");
  EXPECT_EQ(r.parts[2], "gamma\n");
  EXPLORE_ASSERT_OK_AND_ASSIGN(r, Peek(view(), "log", Range(-1, kPeekToEnd)));
  EXPECT_EQ(r.text, "gamma\n");
  // A stream by lines works too.
  EXPLORE_ASSERT_OK_AND_ASSIGN(
      r, Peek(view(), "log", Range(1, 2, PeekUnit::kLines)));
  EXPECT_EQ(r.text, "beta\n");
  // A pinned older version sees only its chunks.
  LookupOptions lo;
  lo.version = 2;
  PeekOptions o = Range(0, kPeekToEnd);
  o.lookup = lo;
  EXPLORE_ASSERT_OK_AND_ASSIGN(r, Peek(view(), "log", o));
  EXPECT_EQ(r.total, 2u);
  EXPECT_EQ(r.text, "alpha\nbeta\n");
}

TEST_F(PeekTest, ChunksOfOtherValuesAreFixedBlocks) {
  Put("t", std::string(kFixedChunkBytes + 5, 'x'));
  EXPLORE_ASSERT_OK_AND_ASSIGN(
      PeekResult r, Peek(view(), "t", Range(1, 2, PeekUnit::kChunks)));
  EXPECT_EQ(r.chunk_bytes, kFixedChunkBytes);
  EXPECT_EQ(r.total, 2u);
  EXPECT_EQ(r.text, "xxxxx");
}

TEST_F(PeekTest, ByRefAndScopes) {
  Put("mine", "secret\n", ValueType::kText, "agent");
  View bob = Other("bob", "");
  auto missing = Peek(bob, "mine");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  PeekOptions o;
  o.lookup.scope = "agent:alice";
  auto denied = Peek(bob, "mine", o);
  ASSERT_FALSE(denied.ok());
  EXPECT_EQ(denied.status().code(), StatusCode::kPermissionDenied);
  // A ref is a capability.
  auto ref = view().RefOf("mine");
  ASSERT_TRUE(ref.ok());
  EXPLORE_ASSERT_OK_AND_ASSIGN(PeekResult r, Peek(bob, *ref));
  EXPECT_EQ(r.text, "secret\n");
}

TEST_F(PeekTest, ATargetPeeksItsKeyWithItsLookupOrItsRef) {
  Put("t", "v1\n");
  Put("t", "v2 a\nv2 b\n");
  PeekOptions o = Range(0, 1);
  o.lookup.version = 2;  // Ignored: the target's own lookup counts.
  EXPLORE_ASSERT_OK_AND_ASSIGN(PeekResult by_key,
                               Peek(view(), Target("t", {.version = 1}), o));
  EXPECT_EQ(by_key.text, "v1\n");
  EXPECT_EQ(by_key.ref.version, 1u);
  auto ref = view().RefOf("t");
  ASSERT_TRUE(ref.ok());
  EXPLORE_ASSERT_OK_AND_ASSIGN(PeekResult by_ref,
                               Peek(view(), Target(*ref), o));
  EXPECT_EQ(by_ref.text, "v2 a\n");
  EXPECT_EQ(by_ref.ref.version, 2u);
}

TEST_F(PeekTest, OptionErrors) {
  Put("t", "x");
  PeekOptions o;
  o.max_bytes = 0;
  auto r = Peek(view(), "t", o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_FALSE(ParsePeekUnit("pages").ok());
  EXPECT_EQ(*ParsePeekUnit("items"), PeekUnit::kItems);
}

TEST_F(PeekTest, LenReportsUnits) {
  Put("t", "a\nb\nc");
  EXPLORE_ASSERT_OK_AND_ASSIGN(LenResult l, Len(view(), "t"));
  EXPECT_EQ(l.bytes, 5u);
  EXPECT_EQ(l.lines, 3u);
  EXPECT_FALSE(l.items.has_value());
  Put("j", R"({"a": 1, "b": [1, 2]})", ValueType::kJson);
  EXPLORE_ASSERT_OK_AND_ASSIGN(l, Len(view(), "j"));
  EXPECT_EQ(l.items, 2u);
  ASSERT_TRUE(view().Append("s", "1").ok());
  ASSERT_TRUE(view().Append("s", "2\n").ok());
  EXPLORE_ASSERT_OK_AND_ASSIGN(l, Len(view(), "s"));
  EXPECT_EQ(l.chunks, 2u);
  EXPECT_EQ(l.lines, 1u);
  // Above the count limit, lines are absent unless asked for.
  LenOptions big;
  big.count_limit_bytes = 2;
  EXPLORE_ASSERT_OK_AND_ASSIGN(l, Len(view(), "j", big));
  EXPECT_FALSE(l.items.has_value());
  EXPECT_EQ(l.bytes_read, 0u);
  big.count = true;
  EXPLORE_ASSERT_OK_AND_ASSIGN(l, Len(view(), "j", big));
  EXPECT_EQ(l.items, 2u);
  auto none = Len(view(), "nope");
  EXPECT_EQ(none.status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace ctxkit::testing
