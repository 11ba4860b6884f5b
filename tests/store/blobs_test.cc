// Large values: content-addressed blob files, byte-exact round trips,
// deduplication, the inline/blob boundary.

#include <filesystem>
#include <string>
#include <vector>

#include "common/files.h"
#include "store/test_util.h"

namespace ctxkit::testing {
namespace {

class BlobsTest : public StoreTest {
 protected:
  // Regular files under blobs/ (every level) or directly in blobs/tmp
  // (staged or half-written copies).
  uint64_t BlobFilesOnDisk() const { return FilesIn("/blobs", true); }
  uint64_t TempFilesOnDisk() const { return FilesIn("/blobs/tmp", false); }

 private:
  uint64_t FilesIn(const std::string& sub, bool recursive) const {
    const std::string dir = home() + sub;
    if (!std::filesystem::exists(dir)) return 0;
    uint64_t n = 0;
    auto count = [&n](const auto& entries) {
      for (const auto& e : entries) n += e.is_regular_file() ? 1 : 0;
    };
    if (recursive) {
      count(std::filesystem::recursive_directory_iterator(dir));
    } else {
      count(std::filesystem::directory_iterator(dir));
    }
    return n;
  }
};

TEST_F(BlobsTest, FiveMebibyteValueRoundTripsByteExact) {
  const std::string big = RandomBytes(5, 5 << 20);
  StoreStats s0 = *store_->Stats();
  ASSERT_OK_AND_ASSIGN(Ref r, view().Set("big", big));
  EXPECT_EQ(r.size_bytes, big.size());
  StoreStats s1 = *store_->Stats();
  EXPECT_EQ(s1.blob_files, s0.blob_files + 1);
  EXPECT_EQ(s1.content_bytes, s0.content_bytes + big.size());
  EXPECT_EQ(BlobFilesOnDisk(), s1.blob_files);
  ASSERT_OK_AND_ASSIGN(std::string got, view().Get("big"));
  EXPECT_TRUE(got == big) << "5 MiB value differs";
  ASSERT_OK_AND_ASSIGN(got, view().Resolve(r));
  EXPECT_TRUE(got == big);
  ASSERT_OK_AND_ASSIGN(got, view().ReadRange(r, (5 << 20) - 3, 100));
  EXPECT_EQ(got, big.substr((5 << 20) - 3));
  ASSERT_OK_AND_ASSIGN(std::vector<VersionMeta> vs, view().Versions("big"));
  ASSERT_EQ(vs.size(), 1u);
  EXPECT_EQ(vs[0].content_hash, Sha256Hex(big));
  EXPECT_EQ(vs[0].size_bytes, big.size());
  // Across a reopen, from a fresh cache.
  Reopen();
  ASSERT_OK_AND_ASSIGN(got, view().Get("big"));
  EXPECT_TRUE(got == big);
}

TEST_F(BlobsTest, SameContentIsStoredOnce) {
  const std::string big = RandomBytes(6, 300000);
  ASSERT_OK(view().Set("one", big));
  StoreStats s1 = *store_->Stats();
  ASSERT_OK(view().Set("two", big));
  SetOptions agent;
  agent.scope = "agent";
  ASSERT_OK(view().Set("three", big, agent));
  ASSERT_OK(view().Set("one", big));  // Same content as a new version.
  StoreStats s2 = *store_->Stats();
  EXPECT_EQ(s2.blob_files, s1.blob_files);
  EXPECT_EQ(s2.content_bytes, s1.content_bytes);
  EXPECT_EQ(s2.versions, s1.versions + 3);
  EXPECT_EQ(BlobFilesOnDisk(), s2.blob_files);
  // Removing one user keeps the content for the others.
  ASSERT_OK(view().Remove("two"));
  ASSERT_OK_AND_ASSIGN(std::string got, view().Get("one"));
  EXPECT_TRUE(got == big);
  ASSERT_OK_AND_ASSIGN(got, view().Get("three"));
  EXPECT_TRUE(got == big);
  // A different value makes a new blob.
  ASSERT_OK(view().Set("four", big + "x"));
  EXPECT_EQ(store_->Stats()->blob_files, s2.blob_files + 1);
}

TEST_F(BlobsTest, InlineLimitBoundary) {
  const uint64_t limit = options_.inline_max_bytes;
  StoreStats s0 = *store_->Stats();
  ASSERT_OK(view().Set("at-limit", RandomBytes(7, limit)));
  EXPECT_EQ(store_->Stats()->blob_files, s0.blob_files)
      << "contents up to inline_max_bytes stay inside the database";
  ASSERT_OK(view().Set("above-limit", RandomBytes(8, limit + 1)));
  EXPECT_EQ(store_->Stats()->blob_files, s0.blob_files + 1);
  ASSERT_OK_AND_ASSIGN(std::string a, view().Get("at-limit"));
  EXPECT_EQ(a, RandomBytes(7, limit));
  ASSERT_OK_AND_ASSIGN(std::string b, view().Get("above-limit"));
  EXPECT_EQ(b, RandomBytes(8, limit + 1));
}

TEST_F(BlobsTest, SmallInlineLimitOption) {
  Options o = options_;
  o.inline_max_bytes = 100;
  Reopen(o);
  StoreStats s0 = *store_->Stats();
  ASSERT_OK(view().Set("small", std::string(100, 's')));
  ASSERT_OK(view().Set("blob", std::string(101, 'b')));
  EXPECT_EQ(store_->Stats()->blob_files, s0.blob_files + 1);
  ASSERT_OK_AND_ASSIGN(std::string v, view().Get("blob"));
  EXPECT_EQ(v, std::string(101, 'b'));
}

// RefOf, Stat, Versions and List are metadata only: they work even when the
// content itself is unreadable; reading it is a clean error, not a crash.
TEST_F(BlobsTest, MetadataCallsNeverReadTheValue) {
  const std::string big = RandomBytes(40, 300000);
  ASSERT_OK_AND_ASSIGN(Ref set_ref, view().Set("big", big));
  Reopen();  // Nothing cached.
  std::filesystem::path blob_dir = home() + "/blobs";
  for (const auto& e :
       std::filesystem::recursive_directory_iterator(blob_dir)) {
    if (e.is_regular_file()) {
      std::filesystem::permissions(e.path(), std::filesystem::perms::none);
      std::filesystem::remove(e.path());
    }
  }
  ASSERT_OK_AND_ASSIGN(Ref r, view().RefOf("big"));
  EXPECT_EQ(r, set_ref.Dynamic());
  ASSERT_OK_AND_ASSIGN(ObjectMeta m, view().Stat("big"));
  EXPECT_EQ(m.size_bytes, big.size());
  ASSERT_OK(view().Versions("big"));
  EXPECT_EQ(ListAll(view(), {}).size(), 1u);
  auto got = view().Get("big");
  EXPECT_FALSE(got.ok());
  EXPECT_THAT(got, StatusIsOneOf(std::vector<StatusCode>{
                       StatusCode::kIoError, StatusCode::kCorruption,
                       StatusCode::kNotFound}));
  EXPECT_FALSE(view().ReadRange(r, 0, 10).ok());
}

TEST_F(BlobsTest, NoTemporaryFilesLeftBehind) {
  for (int i = 0; i < 5; ++i) {
    ASSERT_OK(view().Set("b" + std::to_string(i), RandomBytes(20 + i, 200000)));
  }
  EXPECT_EQ(BlobFilesOnDisk(), store_->Stats()->blob_files);
  EXPECT_EQ(store_->Stats()->blob_files, 5u);
}

TEST_F(BlobsTest, SetFileCopiesALargeFileWithoutTempFilesLeft) {
  // 3 MiB: staged (copied into blobs/tmp by the kernel, hashed from the
  // copy, renamed into place).
  const std::string big = RandomBytes(30, 3 << 20);
  const std::string path = home() + ".input";
  WriteAll(path, big);
  ASSERT_OK_AND_ASSIGN(Ref r, view().SetFile("big", path));
  EXPECT_EQ(r.size_bytes, big.size());
  ASSERT_OK_AND_ASSIGN(std::string got, view().Get("big"));
  EXPECT_TRUE(got == big);
  ASSERT_OK_AND_ASSIGN(std::vector<VersionMeta> vs, view().Versions("big"));
  ASSERT_EQ(vs.size(), 1u);
  EXPECT_EQ(vs[0].content_hash, Sha256Hex(big));
  const uint64_t blobs = store_->Stats()->blob_files;
  EXPECT_EQ(blobs, 1u);
  EXPECT_EQ(BlobFilesOnDisk(), blobs);
  EXPECT_EQ(TempFilesOnDisk(), 0u);
  // The same content again is the same blob; the staged copy is dropped.
  ASSERT_OK(view().SetFile("again", path));
  EXPECT_EQ(store_->Stats()->blob_files, blobs);
  EXPECT_EQ(BlobFilesOnDisk(), blobs);
  // The version holds the file as copied, not the file.
  WriteAll(path, "changed");
  ASSERT_OK_AND_ASSIGN(got, view().Get("big"));
  EXPECT_TRUE(got == big);
  Reopen();
  ASSERT_OK_AND_ASSIGN(got, view().Get("again"));
  EXPECT_TRUE(got == big);
}

TEST_F(BlobsTest, SetFileOfOtherFilesReadsThem) {
  const std::string small = RandomBytes(31, 5000);
  const std::string big = RandomBytes(32, 2 << 20);
  const std::string small_path = home() + ".small";
  const std::string big_path = home() + ".big";
  WriteAll(small_path, small);
  WriteAll(big_path, big);
  ASSERT_OK(view().SetFile("small", small_path));
  ASSERT_OK_AND_ASSIGN(std::string got, view().Get("small"));
  EXPECT_EQ(got, small);
  // Session-only: the memory engine has no files to stage into.
  SetOptions session_only;
  session_only.persist = false;
  ASSERT_OK(view().SetFile("mem", big_path, session_only));
  ASSERT_OK_AND_ASSIGN(got, view().Get("mem"));
  EXPECT_TRUE(got == big);
  EXPECT_EQ(store_->Stats()->blob_files, 0u);
  EXPECT_EQ(BlobFilesOnDisk(), 0u);
}

TEST_F(BlobsTest, SetFileFailuresLeaveTheStoreAsItWas) {
  const std::string big = RandomBytes(33, 2 << 20);
  const std::string path = home() + ".input";
  WriteAll(path, big);
  EXPECT_TRUE(view().SetFile("k", home() + ".absent").status().IsNotFound());
  EXPECT_FALSE(view().SetFile("k", home()).ok());  // A directory.
  // A bad key is refused before anything is copied.
  EXPECT_TRUE(view().SetFile("", path).status().IsInvalidArgument());
  // A stale expected version is refused in the transaction, after the
  // blob file is in place (as for Set: an unreferenced blob file is
  // harmless); no staged copy stays behind.
  SetOptions stale;
  stale.expected_version = 7;
  EXPECT_TRUE(view().SetFile("k", path, stale).status().code() ==
              StatusCode::kFailedPrecondition);
  EXPECT_TRUE(view().Get("k").status().IsNotFound());
  EXPECT_EQ(TempFilesOnDisk(), 0u);
  // A read-only store refuses it and writes nothing.
  Options read_only = options_;
  read_only.read_only = true;
  Reopen(read_only);
  const uint64_t files = BlobFilesOnDisk();
  EXPECT_FALSE(view().SetFile("k", path).ok());
  EXPECT_EQ(BlobFilesOnDisk(), files);
  EXPECT_EQ(TempFilesOnDisk(), 0u);
}

}  // namespace
}  // namespace ctxkit::testing
