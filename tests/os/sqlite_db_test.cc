// SqliteDb: the connection wrapper's file handling.

#include "os/sqlite_db.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <string>

namespace ctxkit::storage {
namespace {

// Runs the body with the working directory set to a fresh empty directory,
// restoring the old one afterwards.
class InTempCwd : public ::testing::Test {
 protected:
  void SetUp() override {
    old_ = std::filesystem::current_path();
    std::string pattern =
        (std::filesystem::temp_directory_path() / "ctxkit-db-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    std::filesystem::current_path(dir_);
  }
  void TearDown() override {
    std::filesystem::current_path(old_);
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  std::filesystem::path old_, dir_;
};

// Scratch FTS tables open ":memory:"; that must not create a file by that
// name in whatever directory the process runs in.
TEST_F(InTempCwd, InMemoryDatabaseCreatesNoFile) {
  auto db = SqliteDb::Open(":memory:", 1000);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  EXPECT_TRUE((*db)->Exec("CREATE TABLE t(x)").ok());
  EXPECT_TRUE(std::filesystem::is_empty(dir_));
}

// A file database is created owner-only before SQLite opens it.
TEST_F(InTempCwd, FileDatabaseIsOwnerOnly) {
  auto db = SqliteDb::Open((dir_ / "x.db").string(), 1000);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  using std::filesystem::perms;
  perms mode = std::filesystem::status(dir_ / "x.db").permissions();
  EXPECT_EQ(mode & (perms::group_all | perms::others_all), perms::none);
}

}  // namespace
}  // namespace ctxkit::storage
