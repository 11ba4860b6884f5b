#include "storage/change_sequence.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace ctxkit::storage {
namespace {

class ChangeSequenceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/ctxkit-seq-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    path_ = dir_ + "/ctxkit.seq";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string dir_;
  std::string path_;
};

TEST_F(ChangeSequenceTest, CommitsAreVisibleToOtherMappings) {
  ChangeSequence writer, reader;
  ASSERT_TRUE(writer.Open(path_).ok());
  ASSERT_TRUE(reader.Open(path_).ok());
  ASSERT_EQ(reader.Stable(), 0u);
  uint64_t begun = writer.BeginCommit();
  EXPECT_EQ(begun, 1u);
  EXPECT_FALSE(reader.Stable().has_value()) << "in flight: caches untrusted";
  writer.EndCommit(begun);
  EXPECT_EQ(reader.Stable(), 1u);
}

TEST_F(ChangeSequenceTest, NextWriterRepairsAWriterThatDiedMidCommit) {
  ChangeSequence writer;
  ASSERT_TRUE(writer.Open(path_).ok());
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ChangeSequence dying;
    if (!dying.Open(path_).ok()) ::_exit(1);
    dying.BeginCommit();  // ...and never EndCommit.
    ::_exit(0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_FALSE(writer.Stable().has_value());
  uint64_t begun = writer.BeginCommit();
  writer.EndCommit(begun);
  EXPECT_EQ(writer.Stable(), 2u);
}

TEST_F(ChangeSequenceTest, OutOfOrderEndsNeverLowerTheSequence) {
  ChangeSequence a;
  ASSERT_TRUE(a.Open(path_).ok());
  uint64_t first = a.BeginCommit();
  // A second writer repairs and commits before the first one's EndCommit.
  uint64_t second = a.BeginCommit();
  a.EndCommit(second);
  a.EndCommit(first);  // Late: must not move `ended` back.
  EXPECT_EQ(a.Stable(), second);
}

}  // namespace
}  // namespace ctxkit::storage
