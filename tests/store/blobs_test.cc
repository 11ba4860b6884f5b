// Large values: content-addressed blob files, byte-exact round trips,
// deduplication, the inline/blob boundary.

#include <filesystem>
#include <string>
#include <vector>

#include "store/test_util.h"

namespace ctxkit::testing {
namespace {

class BlobsTest : public StoreTest {
 protected:
  uint64_t BlobFilesOnDisk() const {
    uint64_t n = 0;
    std::string dir = home() + "/blobs";
    if (!std::filesystem::exists(dir)) return 0;
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
      if (e.is_regular_file()) ++n;
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

}  // namespace
}  // namespace ctxkit::testing
