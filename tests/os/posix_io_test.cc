#include "os/posix_io.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace ctxkit::storage {
namespace {

class PosixIoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/ctxkit-posix-io-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
};

TEST(ErrnoMapping, EachErrnoClassHasItsCode) {
  EXPECT_EQ(StatusCodeForErrno(ENOENT), StatusCode::kNotFound);
  EXPECT_EQ(StatusCodeForErrno(EACCES), StatusCode::kPermissionDenied);
  EXPECT_EQ(StatusCodeForErrno(EPERM), StatusCode::kPermissionDenied);
  EXPECT_EQ(StatusCodeForErrno(EEXIST), StatusCode::kAlreadyExists);
  EXPECT_EQ(StatusCodeForErrno(ENOSPC), StatusCode::kResourceExhausted);
  EXPECT_EQ(StatusCodeForErrno(EDQUOT), StatusCode::kResourceExhausted);
  EXPECT_EQ(StatusCodeForErrno(EMFILE), StatusCode::kResourceExhausted);
  EXPECT_EQ(StatusCodeForErrno(ENAMETOOLONG), StatusCode::kInvalidArgument);
  EXPECT_EQ(StatusCodeForErrno(ELOOP), StatusCode::kInvalidArgument);
  EXPECT_EQ(StatusCodeForErrno(EIO), StatusCode::kIoError);
  EXPECT_EQ(StatusCodeForErrno(EROFS), StatusCode::kIoError);
}

TEST(ErrnoMapping, MessageNamesTheOperationThePathAndTheReason) {
  Status s = ErrnoStatus(ENOENT, "open", "/no/such");
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_EQ(s.message(), "open /no/such: No such file or directory");
  s = ErrnoStatus(EACCES, "create", "/x");
  EXPECT_EQ(s.code(), StatusCode::kPermissionDenied);
  EXPECT_NE(s.message().find("Permission denied"), std::string::npos);
}

TEST_F(PosixIoTest, ErrnoStatusReadsTheCurrentErrno) {
  ASSERT_LT(::open((dir_ + "/missing").c_str(), O_RDONLY), 0);
  Status s = ErrnoStatus("open", dir_ + "/missing");
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_NE(s.message().find(dir_ + "/missing"), std::string::npos);
}

TEST_F(PosixIoTest, UniqueFdClosesOnDestructionAndMove) {
  int raw = ::open(dir_.c_str(), O_RDONLY | O_DIRECTORY);
  ASSERT_GE(raw, 0);
  {
    UniqueFd a(raw);
    UniqueFd b = std::move(a);
    EXPECT_FALSE(a.valid());
    EXPECT_EQ(b.get(), raw);
    EXPECT_GE(::fcntl(raw, F_GETFD), 0);  // Still open after the move.
  }
  errno = 0;
  EXPECT_EQ(::fcntl(raw, F_GETFD), -1);
  EXPECT_EQ(errno, EBADF);

  UniqueFd c(::open(dir_.c_str(), O_RDONLY | O_DIRECTORY));
  int first = c.get();
  c.reset(::open(dir_.c_str(), O_RDONLY | O_DIRECTORY));
  // The new descriptor was opened before reset() closed the old one.
  EXPECT_NE(c.get(), first);
  EXPECT_EQ(::fcntl(first, F_GETFD), -1);
  int kept = c.release();
  EXPECT_FALSE(c.valid());
  EXPECT_EQ(::close(kept), 0);  // release() did not close it.
}

TEST_F(PosixIoTest, TryLockFailsWhileAnotherDescriptorHoldsIt) {
  std::string path = dir_ + "/x.lock";
  auto held = FileLock::Acquire(path, LockMode::kExclusive, LockWait::kBlock);
  ASSERT_TRUE(held.ok()) << held.status().ToString();
  // A second open file description contends even in the same process.
  auto second = FileLock::Acquire(path, LockMode::kExclusive, LockWait::kTry);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(second.status().message().find(path), std::string::npos);
  auto shared = FileLock::Acquire(path, LockMode::kShared, LockWait::kTry);
  EXPECT_EQ(shared.status().code(), StatusCode::kFailedPrecondition);

  held = Status::Internal("released");  // Drops the lock.
  auto again = FileLock::Acquire(path, LockMode::kExclusive, LockWait::kTry);
  EXPECT_TRUE(again.ok()) << again.status().ToString();
}

TEST_F(PosixIoTest, SharedLocksCoexistAndExcludeWriters) {
  std::string path = dir_ + "/s.lock";
  auto a = FileLock::Acquire(path, LockMode::kShared, LockWait::kTry);
  auto b = FileLock::Acquire(path, LockMode::kShared, LockWait::kTry);
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE(b.ok());
  auto w = FileLock::Acquire(path, LockMode::kExclusive, LockWait::kTry);
  EXPECT_EQ(w.status().code(), StatusCode::kFailedPrecondition);
}

TEST_F(PosixIoTest, LockTakesAnOpenDescriptor) {
  std::string path = dir_ + "/log";
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600));
  ASSERT_TRUE(fd.valid());
  auto lock =
      FileLock::Lock(std::move(fd), path, LockMode::kExclusive, LockWait::kTry);
  ASSERT_TRUE(lock.ok());
  EXPECT_GE(lock->fd(), 0);
  auto other = FileLock::Acquire(path, LockMode::kExclusive, LockWait::kTry);
  EXPECT_EQ(other.status().code(), StatusCode::kFailedPrecondition);
}

TEST_F(PosixIoTest, LockFileErrorsAreMapped) {
  auto missing_dir = FileLock::Acquire(dir_ + "/no/such/dir.lock",
                                       LockMode::kExclusive, LockWait::kTry);
  EXPECT_EQ(missing_dir.status().code(), StatusCode::kNotFound);
  std::string link = dir_ + "/link.lock";
  ASSERT_EQ(::symlink((dir_ + "/target").c_str(), link.c_str()), 0);
  auto via_link = FileLock::Acquire(link, LockMode::kExclusive, LockWait::kTry);
  EXPECT_EQ(via_link.status().code(), StatusCode::kInvalidArgument);
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/target"));
}

}  // namespace
}  // namespace ctxkit::storage
