// Store::CollectGarbage (`ctxkit gc`): superseded versions older than the
// retention go; the latest version, versions named by keep refs and runs of
// appends that are still needed never do; a dry run changes nothing.

#include <filesystem>
#include <string>

#include "core/encoding.h"
#include "core/sha256.h"
#include "os/filename.h"
#include "os/sqlite_db.h"
#include "store/store_backend.h"
#include "store/store_internals.h"
#include "store/test_util.h"

namespace ctxkit::testing {
namespace {

class GcTest : public StoreTest {
 protected:
  GarbageReport Collect(std::vector<Ref> keep = {}, bool apply = true) {
    GarbageOptions o;
    o.retention_seconds = 0;  // Everything superseded is old enough.
    o.apply = apply;
    o.keep = std::move(keep);
    Result<GarbageReport> r = store_->CollectGarbage(o);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : GarbageReport();
  }
  std::vector<uint64_t> VersionNumbers(const std::string& key) {
    Result<std::vector<VersionMeta>> vs = view().Versions(key);
    EXPECT_TRUE(vs.ok()) << vs.status().ToString();
    std::vector<uint64_t> out;
    for (const VersionMeta& v : vs.ok() ? *vs : std::vector<VersionMeta>{}) {
      out.push_back(v.version);
    }
    return out;
  }
};

TEST_F(GcTest, CollectsSupersededVersionsKeepsLatestAndTombstones) {
  ASSERT_OK_AND_ASSIGN(Ref first, view().Set("a", "one"));
  ASSERT_OK(view().Set("a", "two"));
  ASSERT_OK(view().Set("a", "three"));
  ASSERT_OK(view().Set("gone", "x"));
  ASSERT_OK(view().Remove("gone"));
  GarbageReport r = Collect();
  EXPECT_EQ(r.versions, 3u);  // a@1, a@2, gone@1.
  EXPECT_EQ(r.bytes, 7u);     // "one" + "two" + "x".
  EXPECT_EQ(VersionNumbers("a"), (std::vector<uint64_t>{3}));
  EXPECT_EQ(*view().Get("a"), "three");
  Result<std::string> old = view().Resolve(first);
  EXPECT_TRUE(old.status().IsNotFound()) << old.status().ToString();
  EXPECT_EQ(VersionNumbers("gone"), (std::vector<uint64_t>{2}));  // Tombstone.
  // A second run finds nothing more.
  EXPECT_EQ(Collect().versions, 0u);
}

TEST_F(GcTest, DryRunReportsAndChangesNothing) {
  ASSERT_OK(view().Set("a", "one"));
  ASSERT_OK(view().Set("a", "two"));
  ASSERT_OK_AND_ASSIGN(std::vector<UsageRow> before, store_->Usage());
  GarbageReport r = Collect({}, /*apply=*/false);
  EXPECT_FALSE(r.applied);
  EXPECT_EQ(r.versions, 1u);
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_EQ(r.rows[0].bytes, 3u);
  EXPECT_EQ(r.freed_bytes, 3u);  // What applying frees ("one", inline).
  ASSERT_OK_AND_ASSIGN(std::vector<UsageRow> after, store_->Usage());
  ASSERT_EQ(before.size(), after.size());
  for (size_t i = 0; i < before.size(); ++i) {
    EXPECT_EQ(before[i].versions, after[i].versions);
    EXPECT_EQ(before[i].bytes, after[i].bytes);
  }
  EXPECT_EQ(VersionNumbers("a"), (std::vector<uint64_t>{1, 2}));
  GarbageReport applied = Collect({}, /*apply=*/true);
  EXPECT_EQ(applied.freed_bytes, r.freed_bytes);
  EXPECT_EQ(applied.blob_files, r.blob_files);
}

TEST_F(GcTest, VersionsNamedByKeepRefsAndRecentOnesStay) {
  ASSERT_OK_AND_ASSIGN(Ref kept, view().Set("a", "one"));
  ASSERT_OK(view().Set("a", "two"));
  ASSERT_OK(view().Set("a", "three"));
  GarbageReport r = Collect({kept});
  EXPECT_EQ(r.kept_by_ref, 1u);
  EXPECT_EQ(VersionNumbers("a"), (std::vector<uint64_t>{1, 3}));
  EXPECT_EQ(*view().Resolve(kept), "one");
  // Within the retention nothing goes.
  ASSERT_OK(view().Set("b", "1"));
  ASSERT_OK(view().Set("b", "2"));
  ASSERT_OK_AND_ASSIGN(
      GarbageReport recent,
      store_->CollectGarbage({.retention_seconds = 3600, .apply = true}));
  EXPECT_EQ(recent.versions, 0u);
  EXPECT_EQ(VersionNumbers("b"), (std::vector<uint64_t>{1, 2}));
}

TEST_F(GcTest, RunsOfAppendsGoWholeAndTheLatestStillReadsExactly) {
  ASSERT_OK_AND_ASSIGN(Ref early, view().Append("log", "a"));
  ASSERT_OK(view().Append("log", "b"));
  ASSERT_OK(view().Set("log", "C", {.type = ValueType::kStream}));  // Run 3.
  ASSERT_OK(view().Append("log", "d"));
  // Version 1 is kept, so its run (1-2) stays whole.
  GarbageReport r = Collect({early});
  EXPECT_EQ(r.versions, 0u);
  EXPECT_EQ(VersionNumbers("log"), (std::vector<uint64_t>{1, 2, 3, 4}));
  EXPECT_EQ(*view().Resolve(early), "a");
  // Without the keep ref the old run goes; the live run (3-4) stays whole
  // although version 3 is superseded.
  r = Collect();
  EXPECT_EQ(r.versions, 2u);
  EXPECT_EQ(VersionNumbers("log"), (std::vector<uint64_t>{3, 4}));
  EXPECT_EQ(*view().Get("log"), "Cd");
  EXPECT_EQ(*view().Get("log", {.version = 3}), "C");
}

TEST_F(GcTest, HeldVersionsStayUntilTheirHolderDropsThem) {
  ASSERT_OK_AND_ASSIGN(Ref first, view().Set("a", "one"));
  ASSERT_OK(view().Set("a", "two"));
  const Ref held[] = {first};
  ASSERT_OK(StoreInternals::Hold(*store_, "spawn:child", held));
  GarbageReport r = Collect();
  EXPECT_EQ(r.versions, 0u);
  EXPECT_EQ(r.kept_by_ref, 1u);
  EXPECT_EQ(*view().Resolve(first), "one");
  ASSERT_OK(StoreInternals::DropHolds(*store_, "spawn:child"));
  EXPECT_EQ(Collect().versions, 1u);
  EXPECT_TRUE(StoreInternals::Hold(*store_, "spawn:child", held).IsNotFound());
}

// A store migrated from a build that recorded no holds: the store itself
// refuses to collect until a face has recorded what its state names.
TEST_F(GcTest, RefusesWhileHoldsOfAnEarlierBuildArePending) {
  ASSERT_OK(view().Set("a", "one"));
  ASSERT_OK(view().Set("a", "two"));
  {
    ASSERT_OK_AND_ASSIGN(
        auto db, storage::SqliteDb::Open(storage::DatabasePath(home()), 5000));
    ASSERT_OK(db->Exec(
        "INSERT INTO meta(name, value) VALUES ('holds_pending', '1')"));
  }
  GarbageOptions o;
  o.retention_seconds = 0;
  o.apply = true;
  Result<GarbageReport> refused = store_->CollectGarbage(o);
  EXPECT_EQ(refused.status().code(), StatusCode::kFailedPrecondition)
      << refused.status().ToString();
  EXPECT_EQ(VersionNumbers("a"), (std::vector<uint64_t>{1, 2}));
  ASSERT_OK(StoreInternals::MarkHoldsRecorded(*store_));
  EXPECT_EQ(Collect().versions, 1u);
}

TEST_F(GcTest, BlobFilesGoOnlyWithTheirLastReference) {
  const std::string big(options_.inline_max_bytes + 5000, 'z');
  const std::string other(options_.inline_max_bytes + 5000, 'y');
  ASSERT_OK(view().Set("k1", big));
  ASSERT_OK(view().Set("k2", big));  // Same content, one blob file.
  ASSERT_OK(view().Set("k1", other));
  ASSERT_OK(view().Set("k1", "small"));
  GarbageReport r = Collect();
  EXPECT_EQ(r.versions, 2u);
  EXPECT_EQ(r.blob_files, 1u);  // `other`'s; `big` is k2's still.
  EXPECT_EQ(*view().Get("k2"), big);
  EXPECT_TRUE(std::filesystem::exists(home() + "/blobs"));
  ASSERT_OK(view().Set("k2", "small"));
  r = Collect();
  EXPECT_EQ(r.blob_files, 1u);
  EXPECT_EQ(r.freed_bytes, big.size());
}

// The engine refuses what the planner would never ask, changing nothing.
TEST_F(GcTest, EngineRefusesTheLatestVersionAndPartsOfARun) {
  ASSERT_OK_AND_ASSIGN(Ref a, view().Set("a", "one"));
  ASSERT_OK_AND_ASSIGN(Ref s1, view().Append("log", "x"));
  ASSERT_OK(view().Append("log", "y"));
  ASSERT_OK(view().Set("log", "z", {.type = ValueType::kStream}));
  storage::Backend& engine = BackendOf(*store_);
  const auto id = [](const Ref& r) {
    return static_cast<int64_t>(*core::FromBase36(r.id));
  };
  EXPECT_EQ(
      engine.CollectVersions({storage::VersionKey{id(a), 1}}).status().code(),
      StatusCode::kInvalidArgument);
  EXPECT_EQ(
      engine.CollectVersions({storage::VersionKey{id(s1), 1}}).status().code(),
      StatusCode::kFailedPrecondition);
  EXPECT_EQ(VersionNumbers("log"), (std::vector<uint64_t>{1, 2, 3}));
  EXPECT_EQ(*view().Get("log", {.version = 2}), "xy");
}

// A collection that moved a blob out and crashed before its commit: the
// next open puts the blob back, since a version still references it.
TEST_F(GcTest, TrashedBlobOfAnUncommittedCollectionComesBack) {
  const std::string big(options_.inline_max_bytes + 100, 'q');
  ASSERT_OK(view().Set("k", big));
  const std::string hex = core::ToHex(core::Sha256(big));
  const std::string path = home() + "/blobs/" + hex.substr(0, 2) + "/" + hex;
  ASSERT_TRUE(std::filesystem::exists(path));
  std::filesystem::create_directories(home() + "/blobs/trash");
  std::filesystem::rename(path, home() + "/blobs/trash/" + hex);
  Reopen();
  EXPECT_TRUE(std::filesystem::exists(path));
  EXPECT_EQ(*view().Get("k"), big);
}

}  // namespace
}  // namespace ctxkit::testing
