#include "sqlite/sqlite_backend.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "core/sha256.h"
#include "storage/backend.h"
#include "storage/session_flags_cases.h"

namespace ctxkit::storage {
namespace {

class SqliteBackendTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/ctxkit-backend-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    home_ = tmpl;
    options_.home = home_;
    options_.inline_max_bytes = 16;  // Exercise blob files with small data.
    auto backend = OpenSqliteBackend(options_);
    ASSERT_TRUE(backend.ok()) << backend.status().ToString();
    backend_ = std::move(backend).value();
  }
  void TearDown() override {
    backend_.reset();
    std::filesystem::remove_all(home_);
  }

  WriteResult Put(const std::string& key, const std::string& content,
                  ValueType type = ValueType::kText) {
    PutRequest req;
    req.key = key;
    req.type = type;
    req.content = content;
    req.hash = core::Sha256(content);
    req.now_unix_ns = 1;
    auto r = backend_->Put(req);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : WriteResult{};
  }

  WriteResult Append(const std::string& key, const std::string& bytes) {
    AppendRequest req;
    req.key = key;
    req.bytes = bytes;
    req.hash = core::Sha256(bytes);
    req.now_unix_ns = 1;
    auto r = backend_->Append(req);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : WriteResult{};
  }

  // Closes the engine and runs `sql` on its database: what an earlier
  // build's store looks like.
  void RewriteClosedStore(const char* sql) {
    backend_.reset();
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open((home_ + "/ctxkit.db").c_str(), &db), SQLITE_OK);
    EXPECT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, nullptr), SQLITE_OK)
        << sqlite3_errmsg(db);
    sqlite3_close(db);
  }

  std::string home_;
  SqliteOptions options_;
  std::unique_ptr<Backend> backend_;
};

TEST_F(SqliteBackendTest, StreamRangesSpanChunksAndGenerations) {
  // Chunks both inline (<= 16 bytes) and in blob files (> 16 bytes).
  std::string all;
  WriteResult last;
  for (int i = 0; i < 50; ++i) {
    std::string piece = "chunk-" + std::to_string(i) + std::string(i % 20, '.');
    all += piece;
    last = Append("log", piece);
  }
  ASSERT_EQ(last.version.size_bytes, all.size());
  for (uint64_t off : {0ul, 5ul, 17ul, 100ul, all.size() - 3}) {
    for (uint64_t len : {1ul, 7ul, 40ul, 1000ul}) {
      auto r = backend_->Read(last.version, off, len);
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      EXPECT_EQ(*r, all.substr(off, len)) << off << "+" << len;
    }
  }
  // An earlier version is a prefix.
  auto v10 = backend_->GetVersion(last.object.id, 10);
  ASSERT_TRUE(v10.ok());
  EXPECT_EQ(*backend_->Read(*v10, 0, 1 << 20), all.substr(0, v10->size_bytes));
  // Set starts a new generation; appends continue from it.
  WriteResult reset = Put("log", "fresh", ValueType::kStream);
  WriteResult more = Append("log", "+more");
  EXPECT_EQ(more.version.stream_base, reset.version.version);
  EXPECT_EQ(*backend_->Read(more.version, 0, 100), "fresh+more");
  // The old generation still reads back whole.
  EXPECT_EQ(*backend_->Read(last.version, 0, 1 << 20), all);
}

TEST_F(SqliteBackendTest, AppendToNonStreamFails) {
  Put("doc", "text");
  AppendRequest req;
  req.key = "doc";
  req.bytes = "x";
  req.hash = core::Sha256("x");
  EXPECT_EQ(backend_->Append(req).status().code(),
            StatusCode::kFailedPrecondition);
}

TEST_F(SqliteBackendTest, PromotionIntoARemovedKeyKeepsBothHistories) {
  WriteResult old_global = Put("k", "global v1");
  ASSERT_TRUE(
      backend_->Remove(Scope::Global(), "k", "", 2, VersionState::kDeleted)
          .ok());
  PutRequest req;
  req.scope = Scope::Agent("a");
  req.key = "k";
  req.content = "agent value";
  req.hash = core::Sha256(req.content);
  auto agent = backend_->Put(req);
  ASSERT_TRUE(agent.ok());
  ASSERT_TRUE(backend_->Move(agent->object.id, Scope::Global()).ok());
  auto found = backend_->FindObject(Scope::Global(), "k");
  ASSERT_TRUE(found.ok());
  EXPECT_EQ(found->id, agent->object.id) << "the live object wins";
  EXPECT_EQ(backend_->ListVersions(old_global.object.id)->size(), 2u);
  // A second live object cannot be moved onto it.
  req.content = "another";
  req.hash = core::Sha256(req.content);
  auto again = backend_->Put(req);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(backend_->Move(again->object.id, Scope::Global()).status().code(),
            StatusCode::kAlreadyExists);
}

TEST_F(SqliteBackendTest, RefusesADatabaseFromANewerBuild) {
  RewriteClosedStore(
      "UPDATE meta SET value = '999' WHERE name = "
      "'schema_version'");
  auto reopened = OpenSqliteBackend(options_);
  EXPECT_EQ(reopened.status().code(), StatusCode::kCorruption);
}

TEST_F(SqliteBackendTest, AVersionFourStoreGetsItsSessionEntriesFlags) {
  ASSERT_TRUE(backend_->WriteSession(session_cases::EntriesOfEveryKind()).ok());
  RewriteClosedStore(
      "DROP INDEX session_entries_hot; "
      "DROP INDEX session_entries_listed; "
      "ALTER TABLE session_entries DROP COLUMN hot; "
      "ALTER TABLE session_entries DROP COLUMN listed; "
      "DROP TABLE holds; "
      "DROP TABLE records; DROP TABLE record_log; "
      "UPDATE meta SET value = '4' WHERE name = "
      "'schema_version'");
  auto reopened = OpenSqliteBackend(options_);
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  session_cases::ExpectFlagsOfEveryKind(**reopened);
  // Its sessions predate holds: gc waits until they are recorded (v6).
  auto pending = (*reopened)->HoldsPending();
  ASSERT_TRUE(pending.ok()) << pending.status().ToString();
  EXPECT_TRUE(*pending);
  ASSERT_TRUE((*reopened)->MarkHoldsRecorded().ok());
  EXPECT_FALSE(*(*reopened)->HoldsPending());
}

// Schema v7 adds the named records and logs; a v6 store keeps everything
// it had and gets them empty.
TEST_F(SqliteBackendTest, AVersionSixStoreGetsRecordsAndLogs) {
  Put("k", "v");
  RewriteClosedStore(
      "DROP TABLE records; DROP TABLE record_log; "
      "UPDATE meta SET value = '6' WHERE name = "
      "'schema_version'");
  auto reopened = OpenSqliteBackend(options_);
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  EXPECT_TRUE((*reopened)->FindObject(Scope::Global(), "k").ok());
  EXPECT_FALSE(*(*reopened)->HoldsPending());
  EXPECT_TRUE((*reopened)->ListRecords("spawn")->empty());
  RecordWrite w;
  w.puts = {{"spawn", "c", "m"}};
  w.appends = {{"execution", "line"}};
  ASSERT_TRUE((*reopened)->WriteRecords(w).ok());
  EXPECT_EQ((*(*reopened)->GetRecord("spawn", "c"))->bytes, "m");
  EXPECT_EQ(*(*reopened)->ReadLog("execution", 5),
            std::vector<std::string>{"line"});
}

TEST_F(SqliteBackendTest, OwnCommitsDoNotLookExternal) {
  auto before = backend_->ChangeCounter();
  ASSERT_TRUE(before.ok());
  Put("a", "1");
  EXPECT_EQ(*backend_->ChangeCounter(), *before);
  // A commit by another connection is seen.
  auto other = OpenSqliteBackend(options_);
  ASSERT_TRUE(other.ok());
  PutRequest req;
  req.key = "b";
  req.content = "2";
  req.hash = core::Sha256("2");
  ASSERT_TRUE((*other)->Put(req).ok());
  EXPECT_NE(*backend_->ChangeCounter(), *before);
}

}  // namespace
}  // namespace ctxkit::storage
