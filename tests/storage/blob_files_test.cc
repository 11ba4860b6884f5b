#include "storage/blob_files.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "core/sha256.h"
#include "storage/file_util.h"

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
  EXPECT_EQ(*blobs.Read(hash, 0, content.size()), content);
  EXPECT_EQ(*blobs.Read(hash, 12345, 100), content.substr(12345, 100));
  EXPECT_EQ(*blobs.Read(hash, content.size() - 10, 100),
            content.substr(content.size() - 10));
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
  Result<std::string> r = blobs.Read(core::Sha256("never written"), 0, 10);
  EXPECT_EQ(r.status().code(), StatusCode::kCorruption);
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
