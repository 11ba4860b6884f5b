// index.db keeps no copy of the text it indexes (chunk_text is a
// contentless FTS5 table, index_db.cc): old versions' rows are deleted by
// reading their text back from the store, and the rows of versions
// collected first are orphans until a rebuild.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <utility>

#include "ctxkit/index.h"
#include "index/index_test_util.h"
#include "os/filename.h"
#include "os/sqlite_db.h"

namespace ctxkit::testing {
namespace {

using ::testing::HasSubstr;

class IndexTextTest : public IndexTest {
 protected:
  // One number from index.db, read by a connection of its own.
  int64_t Count(const std::string& sql, const std::string& word = "") {
    auto db =
        storage::SqliteDb::Open(storage::IndexDbPath(options_.home), 1000);
    EXPECT_TRUE(db.ok()) << db.status().ToString();
    if (!db.ok()) return -1;
    auto q = (*db)->PrepareDynamic(sql);
    EXPECT_TRUE(q.ok()) << q.status().ToString();
    if (!q.ok()) return -1;
    if (!word.empty()) (*q)->BindText(1, word);
    auto row = (*q)->Step();
    EXPECT_TRUE(row.ok() && *row);
    return row.ok() && *row ? (*q)->Int(0) : -1;
  }
  // FTS5 rows holding `word`, orphans included.
  int64_t RowsWith(const std::string& word) {
    return Count("SELECT count(*) FROM chunk_text WHERE chunk_text MATCH ?1",
                 word);
  }
  int64_t Orphans() { return Count("SELECT count(*) FROM orphans"); }
  // Sets a value of index.db's meta table, as another build would have.
  void SetMeta(const std::string& name, const std::string& value) {
    auto db =
        storage::SqliteDb::Open(storage::IndexDbPath(options_.home), 1000);
    ASSERT_TRUE(db.ok());
    auto q = (*db)->Prepare("UPDATE meta SET value = ?2 WHERE name = ?1");
    ASSERT_TRUE(q.ok());
    ASSERT_TRUE((*q)->BindText(1, name).BindText(2, value).Run().ok());
  }
  // FTS5's own row count against the chunks it should index.
  void ExpectOneFtsRowPerChunk() {
    EXPECT_EQ(Count("SELECT count(*) FROM chunk_text_docsize") - Orphans(),
              Count("SELECT count(*) FROM chunks"));
  }
  void CollectOldVersions() {
    GarbageOptions o;
    o.retention_seconds = 0;
    o.apply = true;
    auto r = store_->CollectGarbage(o);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_GT(r->versions, 0u);
  }
  std::string FileBytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
};

TEST_F(IndexTextTest, IndexDbHoldsNoCopyOfTheText) {
  const std::string line = "Quoth The Raven, NEVERMORE! said Edgar-Allan.";
  Put("poem", line + "\nOnce upon a midnight dreary.\n");
  FindResult r = Find("raven");
  ASSERT_EQ(r.hits.size(), 1u);
  EXPECT_THAT(r.hits[0].preview, HasSubstr(line));  // Read from the store.
  view_.reset();
  store_.reset();
  const std::string index = storage::IndexDbPath(options_.home);
  const std::string bytes = FileBytes(index) + FileBytes(index + "-wal");
  ASSERT_FALSE(bytes.empty());
  EXPECT_EQ(bytes.find("Quoth The Raven"), std::string::npos);
  EXPECT_EQ(bytes.find("midnight dreary"), std::string::npos);
  EXPECT_NE(bytes.find("raven"), std::string::npos);  // The term itself.
}

// Every replaced version's terms leave FTS5: small values and a large one
// whose chunks are read back in several runs.
TEST_F(IndexTextTest, ReplacedVersionsLeaveNoTermsBehind) {
  const char* words[] = {"aardvark", "bison", "cheetah", "dingo", "emu"};
  for (const char* w : words) {
    Put("doc", std::string("shared text about the ") + w);
    ASSERT_EQ(Find(w).hits.size(), 1u) << w;
  }
  for (int i = 0; i < 4; ++i) EXPECT_EQ(RowsWith(words[i]), 0) << words[i];
  EXPECT_EQ(RowsWith("emu"), 1);
  EXPECT_EQ(RowsWith("shared"), 1);

  std::string big;
  for (int i = 0; big.size() < (3 << 20); ++i) {
    big += "line " + std::to_string(i) + " of the walrus ledger\n";
  }
  Put("big", big);
  FindResult r = Find("walrus");
  ASSERT_FALSE(r.hits.empty());
  const int64_t chunks = Count("SELECT count(*) FROM chunks");
  ASSERT_GT(chunks, 1000);
  Put("big", "a short note about a narwhal");
  ASSERT_EQ(Find("narwhal").hits.size(), 1u);
  EXPECT_EQ(RowsWith("walrus"), 0);
  EXPECT_EQ(RowsWith("ledger"), 0);
  ASSERT_TRUE(view().Remove("doc").ok());
  EXPECT_TRUE(Find("emu").hits.empty());
  EXPECT_EQ(RowsWith("emu"), 0);
  EXPECT_EQ(Orphans(), 0);
  ExpectOneFtsRowPerChunk();
}

// A version collected before the index saw its successor cannot be read
// back: its rows stay in FTS5 as orphans, which no query returns.
TEST_F(IndexTextTest, ACollectedVersionLeavesAnOrphanThatNoQueryReturns) {
  Put("doc", "penguins live here");
  Put("gone", "penguins left");
  ASSERT_EQ(Find("penguins").hits.size(), 2u);
  Put("doc", "giraffes live here");
  ASSERT_TRUE(view().Remove("gone").ok());
  CollectOldVersions();
  FindResult r = Find("penguins");
  EXPECT_TRUE(r.hits.empty());
  EXPECT_EQ(Orphans(), 2);
  EXPECT_EQ(RowsWith("penguins"), 2);  // Still in FTS5, filtered out.
  FindOptions region;
  region.key_prefix = "do";
  EXPECT_TRUE(Find("penguins", region).hits.empty());
  r = Find("giraffes");
  ASSERT_EQ(r.hits.size(), 1u);
  EXPECT_EQ(r.hits[0].key, "doc");
  ExpectOneFtsRowPerChunk();
}

// A new chunk never takes an orphan's rowid: the one variable's new chunk
// would otherwise match the orphan's terms and be filtered out with it.
TEST_F(IndexTextTest, ANewChunkNeverReusesAnOrphansRowid) {
  Put("doc", "penguins live here");
  ASSERT_EQ(Find("penguins").hits.size(), 1u);
  Put("doc", "giraffes live here");
  CollectOldVersions();
  FindResult r = Find("giraffes");
  ASSERT_EQ(r.hits.size(), 1u);
  EXPECT_EQ(Orphans(), 1);
  EXPECT_TRUE(Find("penguins").hits.empty());
  EXPECT_EQ(Count("SELECT count(*) FROM chunks WHERE id IN "
                  "(SELECT id FROM orphans)"),
            0);
}

// A large value (chunked straight into a savepoint) replaced by another
// large one: every old chunk's row is deleted by its text.
TEST_F(IndexTextTest, ALargeValueReplacedByAnotherLeavesNoTermsBehind) {
  auto lines = [](const std::string& word) {
    std::string v;
    for (int i = 0; v.size() < (2 << 20); ++i) {
      v += "entry " + std::to_string(i) + " in the " + word + " ledger\n";
    }
    return v;
  };
  Put("big", lines("walrus"));
  ASSERT_FALSE(Find("walrus").hits.empty());
  Put("big", lines("narwhal"));
  FindResult r = Find("narwhal");
  ASSERT_FALSE(r.hits.empty());
  EXPECT_EQ(r.variables_indexed, 1u);
  EXPECT_EQ(RowsWith("walrus"), 0);
  EXPECT_GT(RowsWith("narwhal"), 100);
  EXPECT_EQ(Orphans(), 0);
  ExpectOneFtsRowPerChunk();
}

// Rows made by another SQLite library are not trusted: its tokenizer
// could split a text differently, and a contentless row is deleted by
// tokenizing it again. An index.db of an older schema (4: chunks found by
// an index on their object) is dropped. Either way the index is rebuilt.
TEST_F(IndexTextTest, AnotherLibrarysOrAnOlderSchemasIndexIsRebuilt) {
  Put("doc", "penguins live here");
  ASSERT_EQ(Find("penguins").variables_indexed, 1u);
  ASSERT_EQ(Find("penguins").variables_indexed, 0u);
  for (auto [name, value] : {std::pair{"sqlite_version", "3.0.0"},
                             std::pair{"schema_version", "4"}}) {
    SetMeta(name, value);
    FindResult r = Find("penguins");
    EXPECT_EQ(r.variables_indexed, 1u) << name;
    ASSERT_EQ(r.hits.size(), 1u);
    EXPECT_EQ(RowsWith("penguins"), 1);
  }
  EXPECT_EQ(Count("SELECT value FROM meta WHERE name = 'schema_version'"), 5);
}

// Past a tenth of the chunks (and at least 64), orphans are cleared by a
// rebuild, after which FTS5 holds exactly the current versions again.
TEST_F(IndexTextTest, ManyOrphansRebuildTheIndex) {
  for (int i = 0; i < 100; ++i) {
    Put("docs/" + std::to_string(i), "zebra number " + std::to_string(i));
  }
  ASSERT_EQ(Find("zebra").variables_indexed, 100u);
  for (int i = 0; i < 100; ++i) {
    Put("docs/" + std::to_string(i), "okapi number " + std::to_string(i));
  }
  CollectOldVersions();
  FindOptions all;
  all.top_k = 200;
  FindResult r = Find("okapi", all);
  EXPECT_EQ(r.hits.size(), 100u);
  EXPECT_EQ(Orphans(), 0);
  EXPECT_EQ(RowsWith("zebra"), 0);
  EXPECT_EQ(RowsWith("okapi"), 100);
  EXPECT_TRUE(Find("zebra").hits.empty());
  ExpectOneFtsRowPerChunk();
}

// A variable's chunks are the id range its objects row names, in order,
// through replacements.
TEST_F(IndexTextTest, AVariablesChunksAreTheRangeItsRowNames) {
  auto lines = [](const std::string& word, int n) {
    std::string v;
    for (int i = 0; i < n; ++i) {
      v += "entry " + std::to_string(i) + " in the " + word + " ledger\n";
    }
    return v;
  };
  Put("a", lines("walrus", 400));
  Put("b", lines("narwhal", 300));
  FindOptions small;
  small.chunk_tokens = 64;
  ASSERT_EQ(Find("walrus", small).variables_indexed, 2u);
  Put("a", lines("beluga", 500));
  ASSERT_EQ(Find("beluga", small).variables_indexed, 1u);
  EXPECT_GT(Count("SELECT min(chunk_count) FROM objects"), 10);
  EXPECT_EQ(Count("SELECT sum(chunk_count) FROM objects"),
            Count("SELECT count(*) FROM chunks"));
  EXPECT_EQ(Count("SELECT count(*) FROM chunks c JOIN objects o ON o.id = "
                  "c.obj WHERE c.id != o.first_chunk + c.seq"),
            0);
  EXPECT_EQ(RowsWith("walrus"), 0);
  ExpectOneFtsRowPerChunk();
}

// A page's indexed rows are looked up by one scan of its objects' range
// when that range holds few other rows, else one by one: both see what
// is indexed.
TEST_F(IndexTextTest, ChangesSpreadOverTheIndexAreReconciled) {
  for (int i = 0; i < 40; ++i) {
    Put("docs/" + std::to_string(i), "zebra number " + std::to_string(i));
  }
  ASSERT_EQ(Find("zebra").variables_indexed, 40u);
  // Two changes whose range holds 40 rows: looked up one by one.
  Put("docs/0", "okapi first");
  Put("docs/39", "okapi last");
  FindResult r = Find("okapi");
  EXPECT_EQ(r.variables_indexed, 2u);
  EXPECT_EQ(r.hits.size(), 2u);
  // Two neighbours: one scan.
  Put("docs/20", "quagga one");
  Put("docs/21", "quagga two");
  r = Find("quagga");
  EXPECT_EQ(r.variables_indexed, 2u);
  EXPECT_EQ(r.hits.size(), 2u);
  FindOptions all;
  all.top_k = 100;
  EXPECT_EQ(Find("zebra", all).hits.size(), 36u);
  EXPECT_EQ(Count("SELECT count(*) FROM objects"), 40);
  EXPECT_EQ(RowsWith("zebra"), 36);
  ExpectOneFtsRowPerChunk();
}

// The largest size indexed is kept as a bound that a removal does not
// lower: a call with a smaller limit then ranks through the join and
// still sees every variable within its limit.
TEST_F(IndexTextTest, ASmallerLimitAfterALargeValueLeftSeesTheRest) {
  Put("small", "capybara small");
  Put("big", "capybara big " + std::string(5000, 'x'));
  ASSERT_EQ(Find("capybara").hits.size(), 2u);
  EXPECT_GE(Count("SELECT n FROM counts WHERE name = 'max_size'"), 5000);
  ASSERT_TRUE(view().Remove("big").ok());
  FindOptions limited;
  limited.max_value_bytes = 1000;
  FindResult r = Find("capybara", limited);
  ASSERT_EQ(r.hits.size(), 1u);
  EXPECT_EQ(r.hits[0].key, "small");
  EXPECT_EQ(r.variables_covered, 1u);
  EXPECT_GE(Count("SELECT n FROM counts WHERE name = 'max_size'"), 5000);
}

}  // namespace
}  // namespace ctxkit::testing
