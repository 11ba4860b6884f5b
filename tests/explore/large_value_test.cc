// Peeking into a huge variable reads only the range it needs (issue 3:
// "peeking into a 1 GiB variable keeps RSS and bytes read far below").
//
// Release builds (NDEBUG, no sanitizer) use a 1 GiB stream; debug and
// ASan builds 64 MiB, to keep the suite fast. The stream is built by
// appending one 1 MiB chunk repeatedly: blob files are content-addressed,
// so the disk holds that chunk once while the value is the full size.

#include <fstream>
#include <string>

#include "explore/explore_test_util.h"

namespace ctxkit::testing {
namespace {

#if defined(NDEBUG) && !defined(__SANITIZE_ADDRESS__)
constexpr uint64_t kValueBytes = 1ull << 30;
constexpr bool kCheckRss = true;
#else
constexpr uint64_t kValueBytes = 64ull << 20;
constexpr bool kCheckRss = false;
#endif
constexpr uint64_t kChunkBytes = 1ull << 20;

// Peak resident set size (VmHWM) in bytes, or 0 when unknown.
uint64_t PeakRss() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stoull(line.substr(6)) << 10;
  }
  return 0;
}

// Resets VmHWM to the current RSS (Linux: clear_refs "5").
bool ResetPeakRss() {
  std::ofstream f("/proc/self/clear_refs");
  f << "5";
  f.flush();
  return static_cast<bool>(f);
}

class LargeValueTest : public ExploreTest {
 protected:
  void Tune(Options* o) override { o->memory_ceiling_bytes = 64ull << 20; }
};

TEST_F(LargeValueTest, PeekNearTheStartOfAHugeStreamReadsLittle) {
  // 1 MiB of numbered lines, appended until the stream is kValueBytes.
  std::string chunk;
  for (int i = 0; chunk.size() < kChunkBytes; ++i) {
    chunk += "line " + std::to_string(i) + " of a large stored log\n";
  }
  chunk.resize(kChunkBytes - 1);
  chunk += '\n';
  for (uint64_t n = 0; n < kValueBytes / kChunkBytes; ++n) {
    auto r = view().Append("huge", chunk);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  auto meta = view().Stat("huge");
  ASSERT_TRUE(meta.ok());
  ASSERT_EQ(meta->size_bytes, kValueBytes);

  const bool rss = kCheckRss && ResetPeakRss();
  const uint64_t rss_before = PeakRss();

  PeekOptions o;
  o.unit = PeekUnit::kLines;
  o.start = 5;
  o.end = 15;
  EXPLORE_ASSERT_OK_AND_ASSIGN(PeekResult r, Peek(view(), "huge", o));
  EXPECT_EQ(r.start, 5u);
  EXPECT_EQ(r.end, 15u);
  EXPECT_EQ(r.text.substr(0, 7), "line 5 ");
  EXPECT_FALSE(r.total.has_value());
  // One 64 KiB scan block, which holds the slice: nothing read twice.
  EXPECT_LE(r.bytes_read, 64u << 10) << "peek read " << r.bytes_read;

  // By chunk: the last chunk of the stream, located from its history.
  o.unit = PeekUnit::kChunks;
  o.start = -1;
  o.end = kPeekToEnd;
  EXPLORE_ASSERT_OK_AND_ASSIGN(r, Peek(view(), "huge", o));
  EXPECT_EQ(r.total, kValueBytes / kChunkBytes);
  EXPECT_EQ(r.text.size(), kChunkBytes);
  EXPECT_EQ(r.bytes_read, kChunkBytes);

  // Bytes at the far end.
  o.unit = PeekUnit::kBytes;
  o.start = -100;
  EXPLORE_ASSERT_OK_AND_ASSIGN(r, Peek(view(), "huge", o));
  EXPECT_EQ(r.bytes_read, 100u);
  EXPECT_EQ(r.byte_end, kValueBytes);

  // A bounded search finds an early match without reading the rest.
  SearchOptions so;
  so.keys = {"huge"};
  so.max_results = 3;
  EXPLORE_ASSERT_OK_AND_ASSIGN(SearchResult s, Search(view(), "line 7 ", so));
  ASSERT_EQ(s.matches.size(), 3u);
  EXPECT_EQ(s.matches[0].line, 8u);
  EXPECT_LE(s.bytes_read, 4 * kChunkBytes);

  if (rss) {
    const uint64_t growth = PeakRss() - rss_before;
    EXPECT_LT(growth, 64ull << 20) << "peak RSS grew by " << growth;
  }
}

}  // namespace
}  // namespace ctxkit::testing
