// Checkpointer: WAL checkpoints leave writers' commits for a background
// thread, and a WAL that still grows past the inline bound is checkpointed
// by the writer.

#include "storage/checkpointer.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

namespace ctxkit::storage {
namespace {

class CheckpointerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "ctxkit-ckpt-XXXXXX")
            .string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    path_ = dir_ + "/t.db";
    auto db = SqliteDb::Open(path_, 5000);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    db_ = std::move(*db);
    ASSERT_TRUE(db_->EnableWal().ok());
    ASSERT_TRUE(db_->Exec("CREATE TABLE t(x BLOB)").ok());
  }
  void TearDown() override {
    db_.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  // `n` commits of one 4 KiB row each (at least one WAL page each).
  void Commit(int n) {
    for (int i = 0; i < n; ++i) {
      ASSERT_TRUE(db_->Exec("INSERT INTO t(x) VALUES (zeroblob(4096))").ok());
    }
  }
  CheckpointerOptions Bounds(int wake_pages, int inline_pages) const {
    CheckpointerOptions o;
    o.path = path_;
    o.wake_pages = wake_pages;
    o.inline_pages = inline_pages;
    o.linger_ms = 10;  // Below the tests' 50 ms of quiet.
    return o;
  }
  uint64_t WalBytes() {
    std::error_code ec;
    auto n = std::filesystem::file_size(path_ + "-wal", ec);
    return ec ? 0 : n;
  }

  std::string dir_, path_;
  std::unique_ptr<SqliteDb> db_;
};

TEST_F(CheckpointerTest, TheThreadCheckpointsAndWritersDoNot) {
  // The same commits with no checkpoints at all, for the WAL's size.
  ASSERT_TRUE(db_->Exec("PRAGMA wal_autocheckpoint=0").ok());
  Commit(400);
  const uint64_t unchecked = WalBytes();
  ASSERT_TRUE(db_->Exec("PRAGMA wal_checkpoint(TRUNCATE)").ok());
  ASSERT_EQ(WalBytes(), 0u);

  // Bursts of 25 commits (about 75 WAL frames) past a bound of 50: one
  // wake-up each; the thread's last pass after the wake-up's run copies
  // the rest of the burst, so the next burst starts the WAL over and no
  // writer ever has a tail to copy.
  auto c = Checkpointer::Start(db_.get(), Bounds(50, 1000000));
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  for (int i = 0; i < 16; ++i) {
    const uint64_t before = (*c)->background_checkpoints();
    Commit(25);
    // Writers pause here: let the thread run, and finish chasing the tail
    // (no new checkpoint for 50 ms).
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::seconds(10);
    uint64_t seen = before;
    auto quiet_since = std::chrono::steady_clock::now();
    while (std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      const uint64_t now = (*c)->background_checkpoints();
      if (now != seen) {
        seen = now;
        quiet_since = std::chrono::steady_clock::now();
      } else if (seen > before &&
                 std::chrono::steady_clock::now() - quiet_since >
                     std::chrono::milliseconds(50)) {
        break;
      }
    }
  }
  EXPECT_GE((*c)->background_checkpoints(), 16u);
  EXPECT_EQ((*c)->inline_checkpoints(), 0u);
  // Checkpointed frames are reused: the WAL stays far smaller.
  EXPECT_LT(WalBytes(), unchecked / 2);
}

TEST_F(CheckpointerTest, AWriterThatNeverPausesStillGetsTheWalStartedOver) {
  // 3,000 commits back to back with a bound of 50 pages: the thread wakes
  // once per 50 pages of growth (a few passes each), not once per commit,
  // and the WAL keeps starting over instead of growing to the inline bound.
  auto c = Checkpointer::Start(db_.get(), Bounds(50, 1000000));
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  Commit(3000);
  EXPECT_LE((*c)->background_checkpoints(), 3000u / 50 * 4);
  // Writers copy only the tails runs left, about one per 100 pages (each
  // commit writes about 3): far from one per commit.
  EXPECT_LE((*c)->inline_checkpoints(), 3000u / 20);
  EXPECT_LT(WalBytes(), 600u * 4120) << "the WAL never started over";
}

TEST_F(CheckpointerTest, AWalPastTheInlineBoundIsCheckpointedByTheWriter) {
  auto c = Checkpointer::Start(db_.get(), Bounds(5, 5));
  ASSERT_TRUE(c.ok());
  Commit(20);
  EXPECT_GT((*c)->inline_checkpoints(), 0u);
}

TEST_F(CheckpointerTest, TheThreadStartsOnlyWhenTheWalFirstNeedsIt) {
  auto c = Checkpointer::Start(db_.get(), Bounds(20, 1000000));
  ASSERT_TRUE(c.ok());
  // Reads and small commits (a process running one `get`) start no thread.
  ASSERT_TRUE(db_->Exec("SELECT count(*) FROM sqlite_master").ok());
  Commit(1);
  EXPECT_FALSE((*c)->thread_started());
  Commit(40);
  EXPECT_TRUE((*c)->thread_started());
}

TEST_F(CheckpointerTest, BadBoundsAreRefused) {
  EXPECT_TRUE(Checkpointer::Start(db_.get(), Bounds(10, 5))
                  .status()
                  .IsInvalidArgument());
}

}  // namespace
}  // namespace ctxkit::storage
