// The inotify watcher in-process: changes, editor save patterns, deletes,
// moves of files and directories, new directories, list reloads.

#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <mutex>

#include "store/store_internals.h"
#include "watch_test_util.h"

namespace ctxkit {
namespace {

using watch_testing::WaitFor;
using watch_testing::WatchTest;
using watch_testing::WriteFile;

class WatcherTest : public WatchTest {
 protected:
  // Every change the watcher reports, in order.
  WatchOptions Recording() {
    WatchOptions o;
    o.on_change = [this](const WatchChange& c) {
      std::lock_guard lock(mu_);
      changes_.push_back(std::string(WatchChangeKindName(c.kind)) + " " +
                         (c.from_key.empty() ? "" : c.from_key + " -> ") +
                         c.key);
    };
    return o;
  }
  std::vector<std::string> Changes() {
    std::lock_guard lock(mu_);
    return changes_;
  }
  size_t ChangeCount() { return Changes().size(); }
  // Waits until the watcher has been quiet for a while (no new changes),
  // so "nothing else happened" can be asserted.
  void Settle() {
    size_t n = ChangeCount();
    for (int i = 0; i < 20; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(25));
      size_t m = ChangeCount();
      if (m != n) {
        n = m;
        i = 0;
      }
    }
  }

  std::mutex mu_;
  std::vector<std::string> changes_;
};

TEST_F(WatcherTest, ChangeCreatesVersionIdenticalWriteDoesNot) {
  std::string f = tree_ + "/a.txt";
  WriteFile(f, "v1");
  ASSERT_TRUE(AddWatch(*store_, tree_).ok());
  StartWatcher(Recording());
  WriteFile(f, "v2");
  ASSERT_TRUE(WaitFor([&] { return Content(f) == "v2"; }));
  EXPECT_EQ(VersionCount(f), 2u);
  WriteFile(f, "v2");  // Same bytes: IN_CLOSE_WRITE, but no new version.
  WriteFile(tree_ + "/marker.txt", "m");
  ASSERT_TRUE(WaitFor([&] { return Content(tree_ + "/marker.txt") == "m"; }));
  Settle();
  EXPECT_EQ(VersionCount(f), 2u);
  StopWatcher();
  EXPECT_EQ(watcher_, nullptr);
}

TEST_F(WatcherTest, DeleteGivesDeletedStateAndKeepsHistory) {
  std::string f = tree_ + "/a.txt";
  WriteFile(f, "data");
  ASSERT_TRUE(AddWatch(*store_, tree_).ok());
  auto ref = view_->RefOf(Key(f), {.scope = "", .version = 1});
  ASSERT_TRUE(ref.ok());
  StartWatcher(Recording());
  ASSERT_EQ(::unlink(f.c_str()), 0);
  ASSERT_TRUE(WaitFor([&] { return LatestIsDeleted(f); }));
  EXPECT_EQ(Content(f), "<none>");
  // A static ref to the old version still resolves.
  EXPECT_EQ(*view_->Resolve(*ref), "data");
  // Recreated: the same object again.
  WriteFile(f, "again");
  ASSERT_TRUE(WaitFor([&] { return Content(f) == "again"; }));
  EXPECT_EQ(IdOf(f), ref->id);
}

TEST_F(WatcherTest, EditorSaveViaTempAndRenameIsOneVersion) {
  std::string f = tree_ + "/doc.md";
  WriteFile(f, "draft 1");
  ASSERT_TRUE(AddWatch(*store_, tree_).ok());
  std::string id = IdOf(f);
  StartWatcher(Recording());
  // gedit/VS Code/atomic-write style: write a temp file, rename over.
  std::string tmp = tree_ + "/.doc.md.swp";
  WriteFile(tmp, "draft 2");
  ASSERT_EQ(::rename(tmp.c_str(), f.c_str()), 0);
  ASSERT_TRUE(WaitFor([&] { return Content(f) == "draft 2"; }));
  // vim style: rename the original aside, write a new file, drop the
  // backup.
  std::string backup = f + "~";
  ASSERT_EQ(::rename(f.c_str(), backup.c_str()), 0);
  WriteFile(f, "draft 3");
  ASSERT_EQ(::unlink(backup.c_str()), 0);
  ASSERT_TRUE(WaitFor([&] { return Content(f) == "draft 3"; }));
  Settle();
  auto v = Versions(f);
  ASSERT_EQ(v.size(), 3u);
  for (const auto& m : v) EXPECT_EQ(m.state, VersionState::kPresent);
  EXPECT_EQ(IdOf(f), id);
  // The temp and backup names never became objects.
  EXPECT_TRUE(Versions(tmp).empty());
  EXPECT_TRUE(Versions(backup).empty());
  std::vector<std::string> want = {"updated file:" + f, "updated file:" + f};
  EXPECT_EQ(Changes(), want);
}

TEST_F(WatcherTest, SingleFileWatchSurvivesRenameOver) {
  std::string f = tree_ + "/config.json";
  WriteFile(f, "{\"a\":1}");
  WriteFile(tree_ + "/other.txt", "not watched");
  ASSERT_TRUE(AddWatch(*store_, f).ok());
  StartWatcher(Recording());
  std::string tmp = tree_ + "/config.json.tmp";
  WriteFile(tmp, "{\"a\":2}");
  ASSERT_EQ(::rename(tmp.c_str(), f.c_str()), 0);
  WriteFile(tree_ + "/other.txt", "still not watched");
  ASSERT_TRUE(WaitFor([&] { return Content(f) == "{\"a\":2}"; }));
  Settle();
  EXPECT_EQ(VersionCount(f), 2u);
  EXPECT_TRUE(Versions(tree_ + "/other.txt").empty());
  EXPECT_TRUE(Versions(tmp).empty());
}

TEST_F(WatcherTest, MoveKeepsObjectIdentityAndHistory) {
  std::string a = tree_ + "/a.txt";
  std::string b = tree_ + "/sub/b.txt";
  WriteFile(a, "content");
  std::filesystem::create_directories(tree_ + "/sub");
  ASSERT_TRUE(AddWatch(*store_, tree_).ok());
  std::string id = IdOf(a);
  ASSERT_FALSE(id.empty());
  StartWatcher(Recording());
  ASSERT_EQ(::rename(a.c_str(), b.c_str()), 0);
  ASSERT_TRUE(WaitFor([&] { return IdOf(b) == id; }));
  EXPECT_EQ(Content(b), "content");
  EXPECT_EQ(Content(a), "<none>");
  EXPECT_EQ(VersionCount(b), 1u);  // Same content: no new version.
  // Then an edit at the new name is a version of the same object.
  WriteFile(b, "edited");
  ASSERT_TRUE(WaitFor([&] { return Content(b) == "edited"; }));
  EXPECT_EQ(IdOf(b), id);
  EXPECT_EQ(VersionCount(b), 2u);
  Settle();
  std::vector<std::string> want = {"moved file:" + a + " -> file:" + b,
                                   "updated file:" + b};
  EXPECT_EQ(Changes(), want);
}

TEST_F(WatcherTest, DirectoryMoveAndNewDirectories) {
  WriteFile(tree_ + "/d1/x.txt", "x");
  WriteFile(tree_ + "/d1/deep/y.txt", "y");
  ASSERT_TRUE(AddWatch(*store_, tree_).ok());
  std::string x_id = IdOf(tree_ + "/d1/x.txt");
  StartWatcher(Recording());
  ASSERT_EQ(::rename((tree_ + "/d1").c_str(), (tree_ + "/d2").c_str()), 0);
  ASSERT_TRUE(WaitFor([&] { return IdOf(tree_ + "/d2/x.txt") == x_id; }));
  ASSERT_TRUE(
      WaitFor([&] { return Content(tree_ + "/d2/deep/y.txt") == "y"; }));
  // Watches followed the move: edits under the new name are seen.
  WriteFile(tree_ + "/d2/deep/y.txt", "y2");
  ASSERT_TRUE(
      WaitFor([&] { return Content(tree_ + "/d2/deep/y.txt") == "y2"; }));
  // A new directory tree (mkdir -p + files right away) is watched.
  WriteFile(tree_ + "/n1/n2/z.txt", "z");
  ASSERT_TRUE(WaitFor([&] { return Content(tree_ + "/n1/n2/z.txt") == "z"; }));
  WriteFile(tree_ + "/n1/n2/z.txt", "z2");
  ASSERT_TRUE(WaitFor([&] { return Content(tree_ + "/n1/n2/z.txt") == "z2"; }));
  // A directory moved out of the tree: its files are deleted states.
  ASSERT_EQ(::rename((tree_ + "/n1").c_str(), (root_ + "/away").c_str()), 0);
  ASSERT_TRUE(WaitFor([&] { return LatestIsDeleted(tree_ + "/n1/n2/z.txt"); }));
  // And moved back in under another name: indexed as new files.
  ASSERT_EQ(::rename((root_ + "/away").c_str(), (tree_ + "/back").c_str()), 0);
  ASSERT_TRUE(
      WaitFor([&] { return Content(tree_ + "/back/n2/z.txt") == "z2"; }));
  // rm -r of a directory.
  std::filesystem::remove_all(tree_ + "/d2");
  ASSERT_TRUE(WaitFor([&] {
    return LatestIsDeleted(tree_ + "/d2/x.txt") &&
           LatestIsDeleted(tree_ + "/d2/deep/y.txt");
  }));
}

TEST_F(WatcherTest, PicksUpWatchListChangesFromOtherProcesses) {
  std::string other = root_ + "/other";
  WriteFile(other + "/o.txt", "o1");
  StartWatcher(Recording());
  // Another Store instance (as `ctxkit watch add` in another process).
  {
    Options o;
    o.home = home_;
    auto second = Store::Open(o);
    ASSERT_TRUE(second.ok());
    ASSERT_TRUE(AddWatch(**second, other).ok());
  }
  EXPECT_EQ(Content(other + "/o.txt"), "o1");
  // The running watcher reloads the list and watches the new tree.
  WriteFile(other + "/o.txt", "o2");
  ASSERT_TRUE(WaitFor([&] { return Content(other + "/o.txt") == "o2"; }));
  ASSERT_TRUE(RemoveWatch(*store_, other).ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  WriteFile(other + "/o.txt", "o3");
  Settle();
  EXPECT_EQ(Content(other + "/o.txt"), "o2");
}

// A change to the list made from another home (another machine of a
// PostgreSQL store) leaves no hint file here: the watcher finds it on its
// periodic look at the list, within seconds.
TEST_F(WatcherTest, PicksUpWatchListChangesMadeFromAnotherHome) {
  std::string other = root_ + "/other";
  WriteFile(other + "/o.txt", "o1");
  const std::string canonical = std::filesystem::canonical(other).string();
  StartWatcher(Recording());
  // The record alone, as another home's `watch add` writes it.
  storage::RecordWrite add;
  add.puts.push_back({"watch", canonical,
                      R"({"path":")" + canonical +
                          R"(","kind":"directory","added_unix_ns":1})",
                      storage::RecordPut::When::kCreate});
  ASSERT_TRUE(StoreInternals::WriteRecords(*store_, add).ok());
  ASSERT_TRUE(WaitFor([&] { return Content(other + "/o.txt") == "o1"; }));
  WriteFile(other + "/o.txt", "o2");
  ASSERT_TRUE(WaitFor([&] { return Content(other + "/o.txt") == "o2"; }));
}

TEST_F(WatcherTest, StartCatchesUpAndOnlyOneWatcherPerStore) {
  WriteFile(tree_ + "/a.txt", "1");
  ASSERT_TRUE(AddWatch(*store_, tree_).ok());
  WriteFile(tree_ + "/a.txt", "2");  // While no watcher runs.
  StartWatcher(Recording());
  EXPECT_EQ(Content(tree_ + "/a.txt"), "2");
  EXPECT_EQ(watcher_->totals().updated, 1u);
  auto second = Watcher::Start(store_.get(), {});
  EXPECT_EQ(second.status().code(), StatusCode::kFailedPrecondition);
}

TEST_F(WatcherTest, ManyFilesAndBurstsAreAllSeen) {
  for (int i = 0; i < 500; ++i) {
    WriteFile(tree_ + "/d" + std::to_string(i % 20) + "/f" + std::to_string(i) +
                  ".txt",
              "v1 " + std::to_string(i));
  }
  ASSERT_TRUE(AddWatch(*store_, tree_).ok());
  StartWatcher(Recording());
  for (int i = 0; i < 500; ++i) {
    WriteFile(tree_ + "/d" + std::to_string(i % 20) + "/f" + std::to_string(i) +
                  ".txt",
              "v2 " + std::to_string(i));
  }
  ASSERT_TRUE(WaitFor([&] { return ChangeCount() >= 500; }));
  for (int i = 0; i < 500; i += 37) {
    std::string f = tree_ + "/d" + std::to_string(i % 20) + "/f" +
                    std::to_string(i) + ".txt";
    EXPECT_EQ(Content(f), "v2 " + std::to_string(i));
    EXPECT_EQ(VersionCount(f), 2u);
  }
}

}  // namespace
}  // namespace ctxkit
