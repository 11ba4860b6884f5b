// SqliteDb: the connection wrapper's file handling.

#include "os/sqlite_db.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>
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

// Whether another process would find the SQLite shared lock on `path`'s
// shared byte range held (asked from a child: POSIX locks belong to a
// process, so this process would always be granted its own).
bool SharedLockHeldElsewhere(const std::string& path) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
    struct flock probe {};
    probe.l_type = F_WRLCK;
    probe.l_whence = SEEK_SET;
    probe.l_start = 0x40000002;  // SQLite's shared byte range.
    probe.l_len = 510;
    const bool held =
        fd >= 0 && ::fcntl(fd, F_GETLK, &probe) == 0 && probe.l_type != F_UNLCK;
    ::_exit(held ? 0 : 1);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

// A second connection to a database this process has open (the
// checkpointer's) must not drop the first one's locks: closing any
// descriptor of the file would, and another process could then take the
// exclusive lock, think itself the last connection, checkpoint and delete
// the WAL under this process's later commits.
TEST_F(InTempCwd, ASecondConnectionKeepsTheFirstOnesLocks) {
  const std::string path = (dir_ / "store.db").string();
  auto first = SqliteDb::Open(path, 1000);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  ASSERT_TRUE((*first)->EnableWal().ok());
  ASSERT_TRUE(
      (*first)->Exec("CREATE TABLE t(x); INSERT INTO t VALUES (1)").ok());
  ASSERT_TRUE(SharedLockHeldElsewhere(path));
  auto second = SqliteDb::Open(path, 1000);
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_TRUE(SharedLockHeldElsewhere(path))
      << "opening a second connection dropped the first one's shared lock";
}

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
