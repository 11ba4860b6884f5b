// Watch list and catch-up passes through the library API: versions on
// change, identical content, deleted state, downtime, validation.

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "watch_test_util.h"

namespace ctxkit {
namespace {

using watch_testing::WatchTest;
using watch_testing::WriteFile;

class ScanTest : public WatchTest {};

TEST_F(ScanTest, AddIndexesTreeAsGlobalFileObjects) {
  WriteFile(tree_ + "/a.txt", "alpha\n");
  WriteFile(tree_ + "/sub/b.json", "{\"x\": 1}");
  WriteFile(tree_ + "/sub/c.json", "{not json");
  WatchReport report;
  auto e = AddWatch(*store_, tree_, {}, &report);
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_TRUE(e->directory);
  EXPECT_EQ(e->path, tree_);
  EXPECT_EQ(report.created, 3u);
  EXPECT_EQ(Content(tree_ + "/a.txt"), "alpha\n");
  auto meta = view_->Stat(Key(tree_ + "/sub/b.json"));
  ASSERT_TRUE(meta.ok());
  EXPECT_TRUE(meta->scope.is_global());
  EXPECT_EQ(meta->type, ValueType::kJson);
  EXPECT_EQ(view_->Stat(Key(tree_ + "/sub/c.json"))->type, ValueType::kText);
  auto list = ListWatches(*store_);
  ASSERT_TRUE(list.ok());
  ASSERT_EQ(list->size(), 1u);
  EXPECT_EQ((*list)[0].path, tree_);
}

TEST_F(ScanTest, ChangeMakesVersionIdenticalContentDoesNot) {
  std::string f = tree_ + "/a.txt";
  WriteFile(f, "one");
  ASSERT_TRUE(AddWatch(*store_, f).ok());
  EXPECT_EQ(VersionCount(f), 1u);
  // Rewriting the same bytes (new mtime) is not a new version.
  WriteFile(f, "one");
  auto r = ScanWatches(*store_);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->unchanged, 1u);
  EXPECT_EQ(VersionCount(f), 1u);
  WriteFile(f, "two");
  r = ScanWatches(*store_);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->updated, 1u);
  auto v = Versions(f);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(Content(f), "two");
  EXPECT_EQ(v[0].producer, "watch");
  // History kept: version 1 still reads "one".
  LookupOptions old;
  old.version = 1;
  EXPECT_EQ(*view_->Get(Key(f), old), "one");
}

TEST_F(ScanTest, CatchUpAfterDowntimeFindsEditsCreatesAndDeletes) {
  WriteFile(tree_ + "/keep.txt", "same");
  WriteFile(tree_ + "/edit.txt", "before");
  WriteFile(tree_ + "/gone.txt", "bye");
  ASSERT_TRUE(AddWatch(*store_, tree_).ok());
  std::string gone_id = IdOf(tree_ + "/gone.txt");
  // No watcher runs: a fresh Store instance (another process's view of the
  // world) after the files changed behind its back.
  store_.reset();
  view_.reset();
  WriteFile(tree_ + "/edit.txt", "after");
  WriteFile(tree_ + "/new/fresh.txt", "hello");
  ASSERT_EQ(::unlink((tree_ + "/gone.txt").c_str()), 0);
  OpenStore();
  auto r = ScanWatches(*store_);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->unchanged, 1u);
  EXPECT_EQ(r->updated, 1u);
  EXPECT_EQ(r->created, 1u);
  EXPECT_EQ(r->deleted, 1u);
  EXPECT_EQ(Content(tree_ + "/edit.txt"), "after");
  EXPECT_EQ(Content(tree_ + "/new/fresh.txt"), "hello");
  EXPECT_EQ(VersionCount(tree_ + "/keep.txt"), 1u);
  // Deleted: the key no longer resolves, the history stays.
  EXPECT_EQ(Content(tree_ + "/gone.txt"), "<none>");
  auto v = Versions(tree_ + "/gone.txt");
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].state, VersionState::kPresent);
  EXPECT_EQ(v[1].state, VersionState::kMissing);
  // A second pass finds nothing to do.
  r = ScanWatches(*store_);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->created + r->updated + r->deleted, 0u);
  // The file coming back revives the same object.
  WriteFile(tree_ + "/gone.txt", "back");
  r = ScanWatches(*store_);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->created, 1u);
  EXPECT_EQ(Content(tree_ + "/gone.txt"), "back");
  EXPECT_EQ(IdOf(tree_ + "/gone.txt"), gone_id);
  EXPECT_EQ(VersionCount(tree_ + "/gone.txt"), 3u);
}

TEST_F(ScanTest, SkipsBigBinarySymlinksAndSpecialFiles) {
  WriteFile(tree_ + "/big.txt", std::string(2000, 'x'));
  WriteFile(tree_ + "/bin.dat", std::string("ab\0cd", 5));
  WriteFile(root_ + "/outside/secret.txt", "do not index");
  ASSERT_EQ(::symlink((root_ + "/outside").c_str(), (tree_ + "/link").c_str()),
            0);
  ASSERT_EQ(::symlink((root_ + "/outside/secret.txt").c_str(),
                      (tree_ + "/flink.txt").c_str()),
            0);
  ASSERT_EQ(::mkfifo((tree_ + "/fifo").c_str(), 0600), 0);
  WriteFile(tree_ + "/ok.txt", "fine");
  WatchOptions o;
  o.max_file_bytes = 1000;
  WatchReport report;
  ASSERT_TRUE(AddWatch(*store_, tree_, o, &report).ok());
  EXPECT_EQ(report.created, 1u);
  EXPECT_EQ(report.skipped.size(), 5u);
  EXPECT_EQ(Content(tree_ + "/ok.txt"), "fine");
  for (const char* name :
       {"/big.txt", "/bin.dat", "/link/secret.txt", "/flink.txt", "/fifo"}) {
    EXPECT_TRUE(Versions(tree_ + name).empty()) << name;
  }
  EXPECT_TRUE(Versions(root_ + "/outside/secret.txt").empty());
  // An indexed file that grows past the limit gets the deleted state: the
  // store never shows content the file no longer has.
  WriteFile(tree_ + "/ok.txt", std::string(1500, 'y'));
  auto r = ScanWatches(*store_, o);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->deleted, 1u);
  EXPECT_TRUE(LatestIsDeleted(tree_ + "/ok.txt"));
}

TEST_F(ScanTest, PathValidation) {
  // Missing.
  auto r = AddWatch(*store_, tree_ + "/nope");
  EXPECT_EQ(r.status().code(), StatusCode::kNotFound) << r.status().ToString();
  // Empty.
  EXPECT_EQ(AddWatch(*store_, "").status().code(),
            StatusCode::kInvalidArgument);
  // Not a file or directory.
  ASSERT_EQ(::mkfifo((tree_ + "/fifo").c_str(), 0600), 0);
  EXPECT_EQ(AddWatch(*store_, tree_ + "/fifo").status().code(),
            StatusCode::kInvalidArgument);
  // The store home, inside it, or a directory containing it.
  EXPECT_EQ(AddWatch(*store_, home_).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(AddWatch(*store_, root_).status().code(),
            StatusCode::kInvalidArgument);
  // A path too long to be a key (256 bytes).
  std::string deep = tree_ + "/" + std::string(200, 'd');
  std::filesystem::create_directories(deep);
  WriteFile(deep + "/" + std::string(100, 'f'), "x");
  EXPECT_EQ(
      AddWatch(*store_, deep + "/" + std::string(100, 'f')).status().code(),
      StatusCode::kInvalidArgument);
  // Bad options.
  WatchOptions zero;
  zero.max_file_bytes = 0;
  EXPECT_EQ(AddWatch(*store_, tree_, zero).status().code(),
            StatusCode::kInvalidArgument);
  // Nothing above changed the watch list or the store.
  EXPECT_TRUE(ListWatches(*store_)->empty());
  EXPECT_EQ(store_->Stats()->objects, 0u);

  // Duplicates: the same path, through a relative path and a symlink, or a
  // path inside a watched directory.
  ASSERT_TRUE(AddWatch(*store_, tree_).ok());
  EXPECT_EQ(AddWatch(*store_, tree_ + "/./").status().code(),
            StatusCode::kAlreadyExists);
  ASSERT_EQ(::symlink(tree_.c_str(), (root_ + "/alias").c_str()), 0);
  EXPECT_EQ(AddWatch(*store_, root_ + "/alias").status().code(),
            StatusCode::kAlreadyExists);
  EXPECT_EQ(AddWatch(*store_, deep).status().code(),
            StatusCode::kAlreadyExists);
  EXPECT_EQ(ListWatches(*store_)->size(), 1u);

  // rm: through the symlink, then NotFound.
  EXPECT_TRUE(RemoveWatch(*store_, root_ + "/alias").ok());
  EXPECT_EQ(RemoveWatch(*store_, tree_).code(), StatusCode::kNotFound);
  EXPECT_TRUE(ListWatches(*store_)->empty());
}

TEST_F(ScanTest, RemoveKeepsObjectsAndStopsScanning) {
  WriteFile(tree_ + "/a.txt", "1");
  ASSERT_TRUE(AddWatch(*store_, tree_).ok());
  ASSERT_TRUE(RemoveWatch(*store_, tree_).ok());
  WriteFile(tree_ + "/a.txt", "2");
  ASSERT_TRUE(ScanWatches(*store_).ok());
  EXPECT_EQ(Content(tree_ + "/a.txt"), "1");
  EXPECT_EQ(VersionCount(tree_ + "/a.txt"), 1u);
}

TEST_F(ScanTest, RemovedRootRemovedFromListEvenWhenGone) {
  std::string dir = tree_ + "/d";
  WriteFile(dir + "/a.txt", "1");
  ASSERT_TRUE(AddWatch(*store_, dir).ok());
  std::filesystem::remove_all(dir);
  auto r = ScanWatches(*store_);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->missing_roots.size(), 1u);
  EXPECT_TRUE(LatestIsDeleted(dir + "/a.txt"));
  EXPECT_TRUE(RemoveWatch(*store_, dir).ok());
}

// A list file of an earlier build that is not one is not imported: every
// verb fails, and the file stays for a person to look at.
TEST_F(ScanTest, CorruptWatchListFileIsAnError) {
  std::filesystem::create_directories(home_ + "/watch");
  WriteFile(home_ + "/watch/watches.json", "[1,2");
  EXPECT_EQ(ListWatches(*store_).status().code(), StatusCode::kCorruption);
  EXPECT_EQ(AddWatch(*store_, tree_).status().code(), StatusCode::kCorruption);
  WriteFile(home_ + "/watch/watches.json", "{\"format\": 99, \"watches\": []}");
  EXPECT_EQ(ScanWatches(*store_).status().code(), StatusCode::kCorruption);
  EXPECT_TRUE(std::filesystem::exists(home_ + "/watch/watches.json"));
}

// Watchers touch nothing but `file:` objects: other objects, other scopes
// and sessions are as they were.
TEST_F(ScanTest, OnlyFileObjectsChange) {
  auto agent = store_->OpenView("planner", "run-1");
  ASSERT_TRUE(agent.ok());
  SetOptions in_session;
  in_session.scope = "session";
  ASSERT_TRUE(agent->Set("notes/plan", "plan", in_session).ok());
  ASSERT_TRUE(agent->Set("global/thing", "g").ok());
  auto before = agent->List();
  ASSERT_TRUE(before.ok());
  WriteFile(tree_ + "/a.txt", "1");
  ASSERT_TRUE(AddWatch(*store_, tree_).ok());
  WriteFile(tree_ + "/a.txt", "2");
  ASSERT_TRUE(ScanWatches(*store_).ok());
  ListFilter all;
  all.limit = 1000;
  auto after = agent->List(all);
  ASSERT_TRUE(after.ok());
  size_t files = 0;
  for (const ObjectMeta& m : after->items) {
    if (m.key.starts_with("file:")) {
      ++files;
      EXPECT_TRUE(m.scope.is_global());
      continue;
    }
    bool found = false;
    for (const ObjectMeta& b : before->items) {
      if (b.key == m.key && b.scope == m.scope) {
        found = true;
        EXPECT_EQ(b.version, m.version) << m.key;
      }
    }
    EXPECT_TRUE(found) << "unexpected object " << m.key;
  }
  EXPECT_EQ(files, 1u);
  EXPECT_EQ(after->items.size(), before->items.size() + 1);
}

}  // namespace
}  // namespace ctxkit
