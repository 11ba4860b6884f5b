#include "storage/blob_files.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "core/sha256.h"
#include "os/file_util.h"
#include "storage/blob_checksums.h"

namespace ctxkit::storage {
namespace {

class BlobFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/ctxkit-blobs-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    root_ = std::string(tmpl) + "/blobs";
  }
  void TearDown() override {
    std::filesystem::remove_all(std::filesystem::path(root_).parent_path());
  }
  std::string root_;
};

TEST_F(BlobFilesTest, WritesAtomicallyAndReadsRanges) {
  BlobFiles blobs(root_, /*sync=*/true);
  ASSERT_TRUE(blobs.Init().ok());
  std::string content(200000, '\0');
  for (size_t i = 0; i < content.size(); ++i) content[i] = char(i * 7);
  std::string hash = core::Sha256(content);
  ASSERT_TRUE(blobs.Write(hash, content).ok());
  EXPECT_TRUE(PathExists(blobs.PathFor(hash)));
  const uint64_t size = content.size();
  for (const std::string& sums : {BlobChecksums(content), std::string()}) {
    EXPECT_EQ(*blobs.Read(hash, size, sums, 0, size), content);
    EXPECT_EQ(*blobs.Read(hash, size, sums, 12345, 100),
              content.substr(12345, 100));
    EXPECT_EQ(*blobs.Read(hash, size, sums, size - 10, 100),
              content.substr(size - 10));
    // Ranges across chunk boundaries.
    EXPECT_EQ(*blobs.Read(hash, size, sums, kBlobChunkBytes - 5, 70000),
              content.substr(kBlobChunkBytes - 5, 70000));
  }
  // No temp file is left behind.
  EXPECT_TRUE(std::filesystem::is_empty(root_ + "/tmp"));
}

TEST_F(BlobFilesTest, SecondWriteOfSameContentIsANoOp) {
  BlobFiles blobs(root_, true);
  ASSERT_TRUE(blobs.Init().ok());
  std::string content(100000, 'z');
  std::string hash = core::Sha256(content);
  ASSERT_TRUE(blobs.Write(hash, content).ok());
  struct stat before;
  ASSERT_EQ(::stat(blobs.PathFor(hash).c_str(), &before), 0);
  ASSERT_TRUE(blobs.Write(hash, content).ok());
  struct stat after;
  ASSERT_EQ(::stat(blobs.PathFor(hash).c_str(), &after), 0);
  EXPECT_EQ(before.st_ino, after.st_ino) << "deduplicated, not rewritten";
}

TEST_F(BlobFilesTest, MissingBlobIsCorruption) {
  BlobFiles blobs(root_, true);
  ASSERT_TRUE(blobs.Init().ok());
  Result<std::string> r =
      blobs.Read(core::Sha256("never written"), 10, "", 0, 10);
  EXPECT_EQ(r.status().code(), StatusCode::kCorruption);
}

TEST(BlobChecksumsTest, EachChunkIsItsXxh3AsStoredSinceChecksumsBegan) {
  // Whichever kernel the CPU runs, the stored format is XXH3_64bits per
  // 64 KiB chunk, little-endian.
  for (size_t size :
       {size_t{0}, size_t{1}, size_t{240}, size_t{241}, size_t{5000},
        size_t{kBlobChunkBytes}, size_t{2 * kBlobChunkBytes + 7}}) {
    std::string content(size, '\0');
    for (size_t i = 0; i < size; ++i) content[i] = char(i * 31 + 7);
    const std::string sums = BlobChecksums(content);
    ASSERT_EQ(sums.size(), (size + kBlobChunkBytes - 1) / kBlobChunkBytes * 8)
        << size;
    for (size_t c = 0; c * kBlobChunkBytes < size; ++c) {
      const std::string_view chunk = std::string_view(content).substr(
          c * kBlobChunkBytes, kBlobChunkBytes);
      uint64_t stored = 0;
      for (int b = 7; b >= 0; --b) {
        stored = stored << 8 | static_cast<unsigned char>(sums[c * 8 + b]);
      }
      EXPECT_EQ(stored, XXH3_64bits(chunk.data(), chunk.size()))
          << "size " << size << " chunk " << c;
    }
    EXPECT_TRUE(VerifyBlobChunks(sums, 0, content, "p").ok());
  }
}

TEST(BlobSumsCacheTest, KeepsChecksumsByHashButNeverAnEmptyAnswer) {
  BlobSumsCache cache;
  EXPECT_EQ(cache.Lookup("h1"), nullptr);
  cache.Insert("h1", "12345678");
  ASSERT_NE(cache.Lookup("h1"), nullptr);
  EXPECT_EQ(*cache.Lookup("h1"), "12345678");
  // A blob of an earlier build has none yet; it gains them when written
  // again, so "none" is asked again.
  cache.Insert("h2", "");
  EXPECT_EQ(cache.Lookup("h2"), nullptr);
  // Past the budget the cache starts over rather than grow.
  const std::string big(BlobSumsCache::kBudgetBytes / 2, 'x');
  cache.Insert("h3", big);
  cache.Insert("h4", big);
  EXPECT_EQ(cache.Lookup("h1"), nullptr);
  EXPECT_NE(cache.Lookup("h4"), nullptr);
}

TEST_F(BlobFilesTest, ReadIfStoredIsNulloptWithoutAFileAndReadOtherwise) {
  BlobFiles blobs(root_, true);
  ASSERT_TRUE(blobs.Init().ok());
  std::string content(3 * kBlobChunkBytes + 10, '\0');
  for (size_t i = 0; i < content.size(); ++i) content[i] = char(i * 7);
  const std::string hash = core::Sha256(content);
  const std::string sums = BlobChecksums(content);
  Result<std::optional<std::string>> none =
      blobs.ReadIfStored(hash, content.size(), sums, 0, 10);
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
  ASSERT_TRUE(blobs.Write(hash, content).ok());
  // Small ranges, large ones and whole chunks, in an order that reuses
  // what a smaller read kept.
  for (auto [offset, length] : {std::pair<uint64_t, uint64_t>{0, 800},
                                {kBlobChunkBytes - 5, 10},
                                {0, kBlobChunkBytes},
                                {5, 3 * kBlobChunkBytes},
                                {2 * kBlobChunkBytes + 3, 100}}) {
    Result<std::optional<std::string>> r =
        blobs.ReadIfStored(hash, content.size(), sums, offset, length);
    ASSERT_TRUE(r.ok() && r->has_value()) << offset;
    EXPECT_EQ(**r, content.substr(offset, length)) << offset;
  }
}

// A damaged blob file is reported as Corruption, never returned as data.
class DamagedBlobTest : public BlobFilesTest {
 protected:
  void SetUp() override {
    BlobFilesTest::SetUp();
    blobs_ = std::make_unique<BlobFiles>(root_, true);
    ASSERT_TRUE(blobs_->Init().ok());
    content_.resize(5 * kBlobChunkBytes + 123);
    for (size_t i = 0; i < content_.size(); ++i) content_[i] = char(i * 13);
    hash_ = core::Sha256(content_);
    sums_ = BlobChecksums(content_);
    ASSERT_TRUE(blobs_->Write(hash_, content_).ok());
    ::chmod(blobs_->PathFor(hash_).c_str(), 0600);
  }
  // Flips one bit of the byte at `offset` in the blob file.
  void FlipBit(uint64_t offset) {
    std::fstream f(blobs_->PathFor(hash_),
                   std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(static_cast<std::streamoff>(offset));
    char c = 0;
    f.get(c);
    f.seekp(static_cast<std::streamoff>(offset));
    f.put(static_cast<char>(c ^ 0x10));
  }
  Status ScanAll(std::string_view sums, uint64_t offset, uint64_t length,
                 std::string* out) {
    Result<bool> r = blobs_->Scan(hash_, content_.size(), sums, offset, length,
                                  4096, [out](std::string_view piece) {
                                    out->append(piece);
                                    return true;
                                  });
    return r.status();
  }
  std::unique_ptr<BlobFiles> blobs_;
  std::string content_, hash_, sums_;
};

TEST_F(DamagedBlobTest, TruncatedFileIsCorruptionForEveryRead) {
  std::filesystem::resize_file(blobs_->PathFor(hash_), content_.size() - 1);
  const uint64_t size = content_.size();
  for (const std::string& sums : {sums_, std::string()}) {
    EXPECT_EQ(blobs_->Read(hash_, size, sums, 0, size).status().code(),
              StatusCode::kCorruption);
    EXPECT_EQ(blobs_->Read(hash_, size, sums, 10, 10).status().code(),
              StatusCode::kCorruption);
    std::string out;
    EXPECT_EQ(ScanAll(sums, 0, size, &out).code(), StatusCode::kCorruption);
    EXPECT_TRUE(out.empty()) << "nothing handed out before the check";
  }
}

TEST_F(DamagedBlobTest, FlippedBitIsCorruptionForReadsThatTouchIt) {
  const uint64_t bad = 3 * kBlobChunkBytes + 77;
  FlipBit(bad);
  const uint64_t size = content_.size();
  Result<std::string> whole = blobs_->Read(hash_, size, sums_, 0, size);
  EXPECT_EQ(whole.status().code(), StatusCode::kCorruption);
  EXPECT_NE(whole.status().message().find(std::to_string(3 * kBlobChunkBytes)),
            std::string::npos)
      << whole.status().ToString();
  EXPECT_EQ(blobs_->Read(hash_, size, sums_, bad, 1).status().code(),
            StatusCode::kCorruption);
  EXPECT_EQ(blobs_->Read(hash_, size, sums_, bad - 100, 200).status().code(),
            StatusCode::kCorruption);
  // A range in an intact chunk still reads; a small one after it in the
  // damaged chunk does not.
  EXPECT_EQ(*blobs_->Read(hash_, size, sums_, 100, 1000),
            content_.substr(100, 1000));
  EXPECT_EQ(
      blobs_->ReadIfStored(hash_, size, sums_, bad - 10, 20).status().code(),
      StatusCode::kCorruption);
  std::string out;
  EXPECT_EQ(ScanAll(sums_, 0, size, &out).code(), StatusCode::kCorruption);
  EXPECT_LE(out.size(), 3 * kBlobChunkBytes) << "no damaged byte handed out";
  out.clear();
  EXPECT_TRUE(ScanAll(sums_, 0, kBlobChunkBytes, &out).ok());
  EXPECT_EQ(out, content_.substr(0, kBlobChunkBytes));
}

TEST_F(DamagedBlobTest, BlobsWithoutChecksumsAreHashedWhenReadWhole) {
  FlipBit(12345);
  const uint64_t size = content_.size();
  EXPECT_EQ(blobs_->Read(hash_, size, "", 0, size).status().code(),
            StatusCode::kCorruption);
  std::string out;
  EXPECT_EQ(ScanAll("", 0, size, &out).code(), StatusCode::kCorruption);
}

TEST_F(BlobFilesTest, InitRemovesOnlyStaleTempFiles) {
  BlobFiles blobs(root_, true);
  ASSERT_TRUE(blobs.Init().ok());
  std::string stale = root_ + "/tmp/old.tmp";
  std::string fresh = root_ + "/tmp/new.tmp";
  std::ofstream(stale) << "x";
  std::ofstream(fresh) << "y";
  std::filesystem::last_write_time(
      stale,
      std::filesystem::file_time_type::clock::now() - std::chrono::hours(2));
  ASSERT_TRUE(blobs.Init().ok());
  EXPECT_FALSE(PathExists(stale));
  EXPECT_TRUE(PathExists(fresh)) << "may belong to a live writer";
}

}  // namespace
}  // namespace ctxkit::storage
