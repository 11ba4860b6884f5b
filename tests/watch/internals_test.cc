// The watch layer's pure pieces: path rules, file snapshots, inotify error
// messages, the watch list file.

#include <errno.h>
#include <sys/stat.h>

#include <filesystem>
#include <string>

#include "watch/file_snapshot.h"
#include "watch/inotify_errors.h"
#include "watch/watch_list_file.h"
#include "watch/watch_paths.h"
#include "watch_test_util.h"

namespace ctxkit::watch {
namespace {

using watch_testing::MakeTempDir;
using watch_testing::WriteFile;

TEST(WatchPaths, WithinIsComponentWise) {
  EXPECT_TRUE(IsWithin("/a/b", "/a"));
  EXPECT_TRUE(IsWithin("/a", "/a"));
  EXPECT_FALSE(IsWithin("/ab", "/a"));
  EXPECT_TRUE(IsWithin("/x", "/"));
  EXPECT_EQ(ParentOf("/a/b"), "/a");
  EXPECT_EQ(ParentOf("/a"), "/");
  EXPECT_EQ(JoinPath("/", "x"), "/x");
  EXPECT_EQ(JoinPath("/a", "x"), "/a/x");
}

TEST(WatchPaths, LexicalAbsoluteFolds) {
  EXPECT_EQ(LexicalAbsolute("/a/./b/../c//"), "/a/c");
  EXPECT_EQ(LexicalAbsolute("/.."), "/");
  std::string rel = LexicalAbsolute("x/y");
  EXPECT_TRUE(rel.starts_with('/'));
  EXPECT_TRUE(rel.ends_with("/x/y"));
}

TEST(WatchPaths, KeysAndLimits) {
  EXPECT_EQ(FileKey("/a b"), "file:/a b");
  EXPECT_EQ(PathOfKey("file:/a"), "/a");
  EXPECT_EQ(PathOfKey("notes/a"), "");
  EXPECT_TRUE(CheckKeyable("/" + std::string(250, 'a')).ok());
  EXPECT_TRUE(CheckKeyable("/" + std::string(251, 'a')).IsInvalidArgument());
  EXPECT_TRUE(CheckKeyable("/a\nb").IsInvalidArgument());
  EXPECT_TRUE(CheckKeyable("/bad\xff").IsInvalidArgument());
}

TEST(WatchPaths, CanonicalizeErrors) {
  EXPECT_TRUE(Canonicalize("").status().IsInvalidArgument());
  EXPECT_TRUE(Canonicalize("/no/such/path/here").status().IsNotFound());
  EXPECT_TRUE(
      Canonicalize(std::string("/tmp\0x", 6)).status().IsInvalidArgument());
}

TEST(FileSnapshot, ReadsHashesAndTypes) {
  std::string dir = MakeTempDir();
  WriteFile(dir + "/a.json", "[1, 2]");
  auto s = ReadFileSnapshot(dir + "/a.json", 100);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->outcome, FileSnapshot::Outcome::kRead);
  EXPECT_EQ(s->type, ValueType::kJson);
  EXPECT_EQ(s->content, "[1, 2]");
  EXPECT_EQ(s->hash_hex.size(), 64u);
  // An empty file is a (text) file.
  WriteFile(dir + "/empty.json", "");
  s = ReadFileSnapshot(dir + "/empty.json", 100);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->outcome, FileSnapshot::Outcome::kRead);
  EXPECT_EQ(s->type, ValueType::kText);
  // Exactly at the limit is read; one byte over is skipped.
  WriteFile(dir + "/edge", std::string(100, 'e'));
  EXPECT_EQ(ReadFileSnapshot(dir + "/edge", 100)->outcome,
            FileSnapshot::Outcome::kRead);
  EXPECT_EQ(ReadFileSnapshot(dir + "/edge", 99)->outcome,
            FileSnapshot::Outcome::kSkipped);
  // A NUL past the probe window is text.
  std::string late(kBinaryProbeBytes + 10, 'x');
  late[kBinaryProbeBytes + 5] = '\0';
  WriteFile(dir + "/late", late);
  EXPECT_EQ(ReadFileSnapshot(dir + "/late", 1 << 20)->outcome,
            FileSnapshot::Outcome::kRead);
  EXPECT_EQ(ReadFileSnapshot(dir + "/missing", 100)->outcome,
            FileSnapshot::Outcome::kGone);
  EXPECT_EQ(ReadFileSnapshot(dir, 100)->outcome,
            FileSnapshot::Outcome::kSkipped);
  std::filesystem::remove_all(dir);
}

TEST(InotifyErrors, LimitsNameTheSysctl) {
  Status s = InotifyError(ENOSPC, "/x");
  EXPECT_EQ(s.code(), StatusCode::kResourceExhausted);
  EXPECT_NE(s.message().find("fs.inotify.max_user_watches"), std::string::npos);
  EXPECT_NE(s.message().find("/x"), std::string::npos);
  s = InotifyError(EMFILE, "/x");
  EXPECT_EQ(s.code(), StatusCode::kResourceExhausted);
  EXPECT_NE(s.message().find("fs.inotify.max_user_instances"),
            std::string::npos);
  EXPECT_EQ(InotifyError(EACCES, "/x").code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(InotifyError(EIO, "/x").code(), StatusCode::kIoError);
}

TEST(WatchListFile, RoundTripsAndRejectsBadEntries) {
  std::string dir = MakeTempDir();
  std::vector<WatchEntry> list = {{"/b", false, 2}, {"/a", true, 1}};
  ASSERT_TRUE(SaveWatchListFile(dir, list).ok());
  auto loaded = LoadWatchListFile(dir);
  ASSERT_TRUE(loaded.ok());
  ASSERT_EQ(loaded->size(), 2u);
  EXPECT_EQ((*loaded)[0].path, "/a");  // Sorted.
  EXPECT_TRUE((*loaded)[0].directory);
  EXPECT_EQ((*loaded)[1].added_unix_ns, 2);
  WriteFile(dir + "/watches.json",
            R"({"format":1,"watches":[{"path":"rel","kind":"file"}]})");
  EXPECT_EQ(LoadWatchListFile(dir).status().code(), StatusCode::kCorruption);
  WriteFile(dir + "/watches.json",
            R"({"format":1,"watches":[{"path":"/a","kind":"socket"}]})");
  EXPECT_EQ(LoadWatchListFile(dir).status().code(), StatusCode::kCorruption);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ctxkit::watch
