// Chunk / ForEachChunk through the public API (include/ctxkit/chunk.h).

#include "ctxkit/chunk.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "ctxkit/tokenizer.h"
#include "index/index_test_util.h"

namespace ctxkit::testing {
namespace {

class ChunkTest : public IndexTest {
 protected:
  // Every chunk read back through the ref: tiles the value, exact counts
  // within the budget.
  void ExpectTiles(const ChunkList& list, const std::string& value,
                   uint32_t max) {
    const Tokenizer* tok = *Tokenizer::Get();
    ASSERT_TRUE(list.ref.is_static());
    uint64_t at = 0;
    uint64_t tokens = 0;
    for (size_t i = 0; i < list.chunks.size(); ++i) {
      const ChunkRange& c = list.chunks[i];
      EXPECT_EQ(c.index, i);
      ASSERT_EQ(c.byte_begin, at);
      ASSERT_GT(c.byte_end, c.byte_begin);
      auto text =
          view().ReadRange(list.ref, c.byte_begin, c.byte_end - c.byte_begin);
      ASSERT_TRUE(text.ok());
      ASSERT_EQ(*text, value.substr(c.byte_begin, c.byte_end - c.byte_begin));
      EXPECT_EQ(tok->Count(*text), c.tokens);
      EXPECT_LE(c.tokens, max);
      tokens += c.tokens;
      at = c.byte_end;
    }
    EXPECT_EQ(at, value.size());
    EXPECT_EQ(list.total_bytes, value.size());
    EXPECT_EQ(list.total_tokens, tokens);
  }
};

TEST_F(ChunkTest, TextByKeyIsPinnedAndTiled) {
  std::string v;
  for (int i = 0; i < 300; ++i) {
    v += "Line " + std::to_string(i) + " of the build log: compiling unit\n";
    if (i % 7 == 6) v += "\n";
  }
  Put("logs/build", v);
  auto list = Chunk(view(), "logs/build", 50);
  ASSERT_TRUE(list.ok()) << list.status().ToString();
  EXPECT_GT(list->chunks.size(), 20u);
  EXPECT_EQ(list->ref.version, 1u);
  EXPECT_EQ(list->ref.key, "logs/build");
  ExpectTiles(*list, v, 50);
  // Line ranges: the first chunk starts at line 0, lines are contiguous.
  EXPECT_EQ(list->chunks[0].line_begin, 0u);
  for (size_t i = 1; i < list->chunks.size(); ++i) {
    EXPECT_EQ(list->chunks[i].line_begin, list->chunks[i - 1].line_end);
  }

  // The ranges stay valid after the value changes (static ref).
  Put("logs/build", "replaced");
  auto again =
      view().ReadRange(list->ref, list->chunks[1].byte_begin,
                       list->chunks[1].byte_end - list->chunks[1].byte_begin);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again,
            v.substr(list->chunks[1].byte_begin,
                     list->chunks[1].byte_end - list->chunks[1].byte_begin));
  // An older version by number, and by static ref.
  ChunkOptions o;
  o.lookup.version = 1;
  auto v1 = Chunk(view(), "logs/build", 50, o);
  ASSERT_TRUE(v1.ok());
  EXPECT_EQ(v1->chunks.size(), list->chunks.size());
  auto by_ref = Chunk(view(), FormatRef(list->ref), 50);
  ASSERT_TRUE(by_ref.ok());
  EXPECT_EQ(by_ref->chunks.size(), list->chunks.size());
  // A dynamic ref is pinned to the latest version.
  auto dyn = view().RefOf("logs/build");
  ASSERT_TRUE(dyn.ok());
  auto latest = Chunk(view(), FormatRef(*dyn), 50);
  ASSERT_TRUE(latest.ok());
  EXPECT_EQ(latest->ref.version, 2u);
  ASSERT_EQ(latest->chunks.size(), 1u);
  EXPECT_EQ(latest->chunks[0].byte_end, 8u);
}

TEST_F(ChunkTest, SameSplitAsFindRelevant) {
  std::string v;
  for (int i = 0; i < 400; ++i) {
    v += "alpha beta gamma " + std::to_string(i) + "\n";
    if (i % 9 == 0) v += "\n";
  }
  v += "the zanzibar needle sits here\n";
  Put("doc", v);
  FindOptions fo;
  fo.chunk_tokens = 64;
  FindResult r = Find("zanzibar needle", fo);
  ASSERT_EQ(r.hits.size(), 1u);
  auto list = Chunk(view(), "doc", 64);
  ASSERT_TRUE(list.ok());
  bool found = false;
  for (const ChunkRange& c : list->chunks) {
    if (c.byte_begin == r.hits[0].byte_offset) {
      found = true;
      EXPECT_EQ(c.byte_end - c.byte_begin, r.hits[0].byte_length);
      EXPECT_EQ(c.tokens, r.hits[0].tokens);
    }
  }
  EXPECT_TRUE(found);
}

TEST_F(ChunkTest, JsonArrayIsSplitBetweenItems) {
  std::string v = "[";
  for (int i = 0; i < 100; ++i) {
    v += std::string(i ? "," : "") + R"({"id":)" + std::to_string(i) +
         R"(,"msg":"hello, world"})";
  }
  v += "]";
  SetOptions so;
  so.type = ValueType::kJson;
  Put("data", v, so);
  auto list = Chunk(view(), "data", 40);
  ASSERT_TRUE(list.ok()) << list.status().ToString();
  ExpectTiles(*list, v, 40);
  for (size_t i = 0; i + 1 < list->chunks.size(); ++i) {
    EXPECT_EQ(v[list->chunks[i].byte_end - 1], ',');
  }
}

TEST_F(ChunkTest, StreamsAreChunkedAtTheirPinnedVersion) {
  std::string all;
  for (int i = 0; i < 50; ++i) {
    std::string part = "event " + std::to_string(i) + " happened\n";
    all += part;
    ASSERT_TRUE(view().Append("events", part).ok());
  }
  auto list = Chunk(view(), "events", 20);
  ASSERT_TRUE(list.ok()) << list.status().ToString();
  EXPECT_EQ(list->ref.version, 50u);
  ExpectTiles(*list, all, 20);
}

TEST_F(ChunkTest, EmptyInvalidUtf8AndBinary) {
  Put("empty", "");
  auto empty = Chunk(view(), "empty", 10);
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->chunks.empty());
  EXPECT_EQ(empty->total_bytes, 0u);
  EXPECT_TRUE(empty->ref.is_static());

  std::string bin(50000, '\0');
  std::mt19937 rng(11);
  for (char& c : bin) c = static_cast<char>(rng());
  Put("blob", bin);
  auto list = Chunk(view(), "blob", 16);
  ASSERT_TRUE(list.ok());
  ExpectTiles(*list, bin, 16);
  size_t invalid = 0;
  for (const ChunkRange& c : list->chunks) invalid += c.valid_utf8 ? 0 : 1;
  EXPECT_GT(invalid, 0u);

  std::string mixed = "caf\xc3\xa9 ok\n\xff\xfe broken \xe2\x82 tail\n";
  Put("mixed", mixed);
  auto m = Chunk(view(), "mixed", 3);
  ASSERT_TRUE(m.ok());
  ExpectTiles(*m, mixed, 3);
}

TEST_F(ChunkTest, HugeValueWithForEachChunk) {
  // 24 MiB: chunked by range with bounded memory; only counts are kept.
  std::string v;
  v.reserve(24u << 20);
  for (int i = 0; v.size() < (24u << 20); ++i) {
    v += "record " + std::to_string(i) + " value " + std::to_string(i * 7) +
         "\n";
  }
  Put("huge", v);
  uint64_t n = 0;
  uint64_t end = 0;
  Status s = ForEachChunk(view(), "huge", 4096,
                          [&](const Ref& ref, const ChunkRange& c) {
                            EXPECT_TRUE(ref.is_static());
                            EXPECT_EQ(c.byte_begin, end);
                            EXPECT_LE(c.tokens, 4096u);
                            end = c.byte_end;
                            ++n;
                            return Status::Ok();
                          });
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(end, v.size());
  EXPECT_GT(n, 1000u);
  // The visitor's error stops the walk and is returned.
  n = 0;
  s = ForEachChunk(view(), "huge", 4096, [&](const Ref&, const ChunkRange&) {
    return ++n == 3 ? Status::Internal("stop") : Status::Ok();
  });
  EXPECT_EQ(s.code(), StatusCode::kInternal);
  EXPECT_EQ(n, 3u);
}

TEST_F(ChunkTest, Errors) {
  Put("k", "value");
  EXPECT_EQ(Chunk(view(), "k", 0).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(Chunk(view(), "k", kMaxChunkTokens + 1).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(Chunk(view(), "missing", 10).status().code(),
            StatusCode::kNotFound);
  EXPECT_EQ(Chunk(view(), "", 10).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(Chunk(view(), "ck:garbage", 10).status().code(),
            StatusCode::kInvalidArgument);
  ChunkOptions o;
  o.lookup.version = 9;
  EXPECT_EQ(Chunk(view(), "k", 10, o).status().code(), StatusCode::kNotFound);
  o = {};
  o.lookup.scope = "agent:mallory";
  EXPECT_EQ(Chunk(view(), "k", 10, o).status().code(),
            StatusCode::kPermissionDenied);
}

TEST_F(ChunkTest, RefIsACapabilityForASubAgent) {
  SetOptions so;
  so.scope = "agent";
  Put("private/notes", "first paragraph\n\nsecond paragraph\n", so);
  auto ref = view().RefOf("private/notes", {"agent", 0});
  ASSERT_TRUE(ref.ok());
  auto child = view().SubAgent("helper");
  ASSERT_TRUE(child.ok());
  // By key the child cannot see it; by ref it can.
  EXPECT_EQ(Chunk(*child, "private/notes", 10).status().code(),
            StatusCode::kNotFound);
  auto list = Chunk(*child, FormatRef(*ref), 10);
  ASSERT_TRUE(list.ok()) << list.status().ToString();
  EXPECT_EQ(list->total_bytes,
            std::string("first paragraph\n\nsecond paragraph\n").size());
}

}  // namespace
}  // namespace ctxkit::testing
