// What docs/storage-format.md promises about the store root: private
// permissions, only the documented entries, and a schema version that a
// build refuses when it is newer than its own.

#include <sqlite3.h>
#include <sys/stat.h>

#include <filesystem>
#include <set>
#include <string>

#include "store/test_util.h"

namespace ctxkit::testing {
namespace {

class FormatTest : public StoreTest {};

mode_t ModeOf(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return 0;
  return st.st_mode & 0777;
}

TEST_F(FormatTest, RootIsPrivate) {
  ASSERT_OK(view().Set("big", RandomBytes(1, 200000)));
  ASSERT_OK(view().Set("small", "x"));
  EXPECT_EQ(ModeOf(home()), 0700u);
  EXPECT_EQ(ModeOf(home() + "/ctxkit.db"), 0600u);
  for (const auto& e : std::filesystem::recursive_directory_iterator(home())) {
    mode_t mode = ModeOf(e.path().string());
    if (e.is_directory()) {
      EXPECT_EQ(mode, 0700u) << e.path();
    } else if (e.is_regular_file()) {
      EXPECT_EQ(mode & 077, 0u) << e.path() << " is readable by others";
    }
  }
}

TEST_F(FormatTest, OnlyDocumentedEntriesAtTheRoot) {
  ASSERT_OK(view().Set("big", RandomBytes(1, 200000)));
  SetOptions tmp;
  tmp.persist = false;
  ASSERT_OK(view().Set("spilled", RandomBytes(2, 100000), tmp));
  const std::set<std::string> allowed = {"ctxkit.db",     "ctxkit.db-wal",
                                         "ctxkit.db-shm", "ctxkit.seq",
                                         "blobs",         "spill"};
  for (const auto& e : std::filesystem::directory_iterator(home())) {
    EXPECT_TRUE(allowed.count(e.path().filename().string()))
        << "undocumented entry " << e.path();
  }
}

TEST_F(FormatTest, NewerSchemaVersionIsRefusedWithCorruption) {
  ASSERT_OK(view().Set("k", "v"));
  view_.reset();
  store_.reset();
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((home() + "/ctxkit.db").c_str(), &db), SQLITE_OK);
  char* err = nullptr;
  int rc = sqlite3_exec(
      db, "UPDATE meta SET value = '999' WHERE name = 'schema_version'",
      nullptr, nullptr, &err);
  EXPECT_EQ(rc, SQLITE_OK) << (err ? err : "");
  sqlite3_free(err);
  EXPECT_EQ(sqlite3_changes(db), 1) << "no schema_version row in meta";
  sqlite3_close(db);
  auto reopened = Store::Open(options_);
  EXPECT_THAT(reopened, StatusIs(StatusCode::kCorruption));
}

}  // namespace
}  // namespace ctxkit::testing
