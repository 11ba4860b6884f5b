#include "os/filename.h"

#include <gtest/gtest.h>

namespace ctxkit::storage {
namespace {

// The names are an on-disk format (docs/storage-format.md): changing one
// orphans existing stores.
TEST(FileNames, LayoutUnderTheHome) {
  const std::string h = "/s";
  EXPECT_EQ(DatabasePath(h), "/s/ctxkit.db");
  EXPECT_EQ(BlobDir(h), "/s/blobs");
  EXPECT_EQ(SequencePath(h), "/s/ctxkit.seq");
  EXPECT_EQ(SpillDir(h), "/s/spill");
  EXPECT_EQ(SessionsDbPath(h), "/s/sessions.db");
  EXPECT_EQ(IndexDbPath(h), "/s/index.db");
  EXPECT_EQ(SummaryCacheDir(h), "/s/cache/summaries");
  EXPECT_EQ(NotesIndexPath(h, "0123abcd"), "/s/notes/0123abcd.db");
  EXPECT_EQ(ExecutionLogPath(h), "/s/logs/execution.jsonl");
  EXPECT_EQ(WatchListPath(h), "/s/watch/watches.json");
  EXPECT_EQ(WatchListLockPath(h), "/s/watch/watches.lock");
  EXPECT_EQ(WatchRunLockPath(h), "/s/watch/run.lock");
  EXPECT_EQ(SpawnManifestPath(h, "a.sub-1"), "/s/spawn/a.sub-1.json");
  EXPECT_EQ(HomeNotesRoot(h), "/s/notes-root");
  EXPECT_EQ(HomeToolOutputDir(h), "/s/tool-outputs");
  EXPECT_EQ(NotesLockPath("/n"), "/n/.ctxkit-notes.lock");
  EXPECT_EQ(ToolOutputLockPath("/t"), "/t/.ctxkit-capture.lock");
}

}  // namespace
}  // namespace ctxkit::storage
