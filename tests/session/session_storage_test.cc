// Session state goes through the storage engine: concurrent writers never
// lose each other's changes, and state kept by earlier builds in
// <home>/sessions.db is imported once.

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "ctxkit/session.h"
#include "session/session_test_util.h"

namespace ctxkit {
namespace {

using testing::SessionStoreFixture;

class SessionStorageTest : public SessionStoreFixture {};

// Two store instances stand for two processes; each activates its own
// objects in one session at the same time.
TEST_F(SessionStorageTest, ConcurrentMutationsAreAllKept) {
  ASSERT_TRUE(Session::Create(store(), "shared", {}).ok());
  constexpr int kPerWriter = 20;
  for (int w = 0; w < 2; ++w) {
    for (int i = 0; i < kPerWriter; ++i) {
      std::string key = "w" + std::to_string(w) + "/" + std::to_string(i);
      ASSERT_TRUE(view().Set(key, key).ok());
    }
  }
  std::vector<std::thread> writers;
  std::vector<Status> failures[2];
  for (int w = 0; w < 2; ++w) {
    writers.emplace_back([&, w] {
      Options o;
      o.home = home();
      o.durability = Durability::kProcess;
      o.store_url = testing::PgStoreUrlFor(o.home);
      auto st = Store::Open(o);
      if (!st.ok()) return failures[w].push_back(st.status());
      auto s = Session::Open(**st, "shared");
      if (!s.ok()) return failures[w].push_back(s.status());
      for (int i = 0; i < kPerWriter; ++i) {
        std::string key = "w" + std::to_string(w) + "/" + std::to_string(i);
        Status a = (*s)->Activate(key);
        if (!a.ok()) failures[w].push_back(a);
      }
    });
  }
  for (std::thread& t : writers) t.join();
  for (int w = 0; w < 2; ++w) {
    for (const Status& s : failures[w]) ADD_FAILURE() << s.ToString();
  }
  auto s = Session::Open(store(), "shared");
  ASSERT_TRUE(s.ok());
  auto snap = (*s)->Snapshot();
  ASSERT_TRUE(snap.ok());
  std::set<std::string> active;
  for (const PoolEntry& e : snap->entries) {
    if (e.active) active.insert(e.key);
  }
  EXPECT_EQ(active.size(), 2u * kPerWriter);
  EXPECT_GE(snap->generation, 2u * kPerWriter + 1);
}

TEST_F(SessionStorageTest, CreateTwiceIsAlreadyExists) {
  ASSERT_TRUE(Session::Create(store(), "once", {}).ok());
  auto again = Session::Create(store(), "once", {});
  EXPECT_EQ(again.status().code(), StatusCode::kAlreadyExists);
}

TEST_F(SessionStorageTest, NoSessionsFileBesideTheStore) {
  auto s = Session::Create(store(), "s1", {});
  ASSERT_TRUE(s.ok());
  ASSERT_TRUE(view().Set("doc", "text").ok());
  ASSERT_TRUE((*s)->Activate("doc").ok());
  EXPECT_FALSE(std::filesystem::exists(home() + "/sessions.db"));
}

// A store written by an earlier build kept sessions in <home>/sessions.db;
// opening it with this build moves them into the store and keeps them.
TEST_F(SessionStorageTest, LegacySessionsFileIsImportedOnce) {
  ASSERT_TRUE(view().Set("doc", "text").ok());
  auto made = Session::Create(store(), "old", {});
  ASSERT_TRUE(made.ok());
  ASSERT_TRUE((*made)->Activate("doc").ok());
  auto before = (*made)->Snapshot();
  ASSERT_TRUE(before.ok());
  made->reset();

  // Move this session's rows out into a sessions.db as the old layout had
  // them, then reopen the store.
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((home() + "/ctxkit.db").c_str(), &db), SQLITE_OK);
  std::string legacy = home() + "/sessions.db";
  std::string sql =
      "ATTACH '" + legacy +
      "' AS old;"
      "CREATE TABLE old.sessions(id TEXT PRIMARY KEY, generation INTEGER NOT "
      "NULL, state TEXT NOT NULL);"
      "CREATE TABLE old.entries(session TEXT NOT NULL, object_id TEXT NOT "
      "NULL, seq INTEGER NOT NULL, entry TEXT NOT NULL, PRIMARY KEY (session, "
      "object_id));"
      "INSERT INTO old.sessions SELECT id, generation, state FROM sessions;"
      "INSERT INTO old.entries SELECT session, object_id, seq, entry FROM "
      "session_entries;"
      "DELETE FROM session_entries; DELETE FROM sessions; DETACH old;";
  char* err = nullptr;
  ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err), SQLITE_OK)
      << (err ? err : "");
  sqlite3_close(db);
  OpenStore();

  auto ids = Session::List(store());
  ASSERT_TRUE(ids.ok());
  EXPECT_EQ(*ids, std::vector<std::string>{"old"});
  auto s = Session::Open(store(), "old");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  auto after = (*s)->Snapshot();
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->generation, before->generation);
  ASSERT_EQ(after->entries.size(), before->entries.size());
  EXPECT_TRUE(after->entries[0].active);
  EXPECT_FALSE(std::filesystem::exists(legacy));
  EXPECT_TRUE(std::filesystem::exists(legacy + ".imported"));
  // A second open imports nothing again and loses nothing.
  OpenStore();
  auto again = Session::List(store());
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->size(), 1u);
}

TEST_F(SessionStorageTest, RemoveTombstonesSessionObjectsAndDeletesState) {
  auto s = Session::Create(store(), "gone", {});
  ASSERT_TRUE(s.ok());
  ASSERT_TRUE(view().Set("shared/doc", "global text").ok());
  auto sv = store().OpenView("", "gone");
  ASSERT_TRUE(sv.ok());
  auto mine = sv->Set("notes", "session text", {.scope = "session"});
  ASSERT_TRUE(mine.ok());
  ASSERT_TRUE(
      sv->Set("scratch", "x", {.scope = "session", .persist = false}).ok());
  ASSERT_TRUE((*s)->Activate("shared/doc").ok());
  ASSERT_TRUE((*s)->Activate("notes").ok());
  s->reset();

  auto removed = Session::Remove(store(), "gone");
  ASSERT_TRUE(removed.ok()) << removed.status().ToString();
  EXPECT_EQ(*removed, 2u);
  EXPECT_EQ(Session::Open(store(), "gone").status().code(),
            StatusCode::kNotFound);
  auto ids = Session::List(store());
  ASSERT_TRUE(ids.ok());
  EXPECT_TRUE(ids->empty());
  // Its objects are removed, their history is not; other scopes untouched.
  EXPECT_EQ(sv->Get("notes").status().code(), StatusCode::kNotFound);
  auto old = sv->Resolve(*mine);
  ASSERT_TRUE(old.ok());
  EXPECT_EQ(*old, "session text");
  EXPECT_EQ(sv->Get("scratch").status().code(), StatusCode::kNotFound);
  EXPECT_TRUE(view().Get("shared/doc").ok());
  // Again: nothing left to remove.
  EXPECT_EQ(Session::Remove(store(), "gone").status().code(),
            StatusCode::kNotFound);
  // The id can be used afresh.
  EXPECT_TRUE(Session::Create(store(), "gone", {}).ok());
}

}  // namespace
}  // namespace ctxkit
