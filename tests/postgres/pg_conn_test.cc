// The PostgreSQL engine's connection and schema handling:
//   - no error message ever shows the URL's password (no server needed:
//     these connections fail before or at connecting);
//   - the store lives in the connection's current schema only, and a store
//     of a newer schema version is refused (the "pg." variant's server).

#include "postgres/pg_conn.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "common/pg_store.h"
#include "core/sha256.h"
#include "postgres/pg_backend.h"
#include "storage/backend.h"
#include "storage/session_flags_cases.h"

namespace ctxkit::storage {
namespace {

TEST(PgConnTest, NoMessageShowsThePassword) {
  struct Case {
    const char* url;
    const char* secret;
  };
  for (const Case& c : {
           // Connection refused (nothing listens on port 1).
           Case{"postgresql://alice:topsecret1@127.0.0.1:1/db", "topsecret1"},
           Case{"host=127.0.0.1 port=1 password=topsecret2 user=alice",
                "topsecret2"},
           // Strings libpq cannot parse, whose messages quote them.
           Case{"postgresql://h/db?password=s3cr%zzet", "s3cr"},
           Case{"postgresql://[::1/db?password=topsecret3", "topsecret3"},
           Case{"postgresql://bob:pa%zzss@h/db", "pa%zzss"},
       }) {
    PostgresOptions options;
    options.url = c.url;
    auto backend = OpenPostgresBackend(options);
    ASSERT_FALSE(backend.ok()) << c.url;
    const std::string message = backend.status().ToString();
    EXPECT_EQ(message.find(c.secret), std::string::npos) << message;
    EXPECT_NE(message.find("PostgreSQL"), std::string::npos) << message;
  }
}

TEST(PgConnTest, UnreachableServerIsUnavailableAndMalformedUrlInvalid) {
  PostgresOptions options;
  options.url = "postgresql://127.0.0.1:1/db?connect_timeout=2";
  EXPECT_EQ(OpenPostgresBackend(options).status().code(),
            StatusCode::kUnavailable);
  options.url = "postgresql://h/db?no_such_option=1";
  EXPECT_EQ(OpenPostgresBackend(options).status().code(),
            StatusCode::kInvalidArgument);
}

class PgEngineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (testing::PgTestUrl().empty()) GTEST_SKIP() << "no PostgreSQL server";
  }
  static std::unique_ptr<Backend> Open(const std::string& url) {
    PostgresOptions options;
    options.url = url;
    options.durability = Durability::kProcess;
    auto backend = OpenPostgresBackend(options);
    EXPECT_TRUE(backend.ok()) << backend.status().ToString();
    return backend.ok() ? std::move(*backend) : nullptr;
  }
  static std::string Name(const std::string& what) {
    return what + "-" + std::to_string(::getpid());
  }
};

TEST_F(PgEngineTest, TheStoreIsTheCurrentSchemasOnly) {
  Result<std::string> later = testing::PgStoreUrl(Name("later"));
  Result<std::string> first = testing::PgStoreUrl(Name("first"));
  ASSERT_TRUE(later.ok() && first.ok());
  auto b = Open(*later);
  ASSERT_NE(b, nullptr);
  PutRequest req;
  req.key = "k";
  req.content = "in the later schema";
  req.hash = core::Sha256(req.content);
  ASSERT_TRUE(b->Put(req).ok());
  // search_path = first, later: the store is first's (new, empty), not
  // the one in the later schema.
  const std::string schema_first =
      first->substr(first->find("search_path%3D") + 14);
  const std::string schema_later =
      later->substr(later->find("search_path%3D") + 14);
  auto both = Open(testing::PgUrlWithSchema(
      testing::PgTestUrl(), schema_first + "%2C" + schema_later));
  ASSERT_NE(both, nullptr);
  EXPECT_TRUE(both->FindObject(Scope::Global(), "k").status().IsNotFound());
}

TEST_F(PgEngineTest, ANewerSchemaIsRefusedWithUpgradeAdvice) {
  Result<std::string> url = testing::PgStoreUrl(Name("newer"));
  ASSERT_TRUE(url.ok());
  ASSERT_NE(Open(*url), nullptr);
  {
    auto conn = PgConn::Connect(*url, "");
    ASSERT_TRUE(conn.ok());
    ASSERT_TRUE((*conn)
                    ->Run("UPDATE ctxkit_meta SET value = '99' WHERE name IN "
                          "('schema_version', 'compatible_since')")
                    .ok());
  }
  PostgresOptions options;
  options.url = *url;
  auto refused = OpenPostgresBackend(options);
  EXPECT_EQ(refused.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(refused.status().message().find("upgrade ctxkit"),
            std::string::npos)
      << refused.status().ToString();
}

PutRequest PlainPut(const std::string& key, const std::string& content) {
  PutRequest req;
  req.key = key;
  req.content = content;
  req.hash = core::Sha256(content);
  return req;
}

TEST_F(PgEngineTest, CommitsElsewhereWakeAListenerOfTheSameStoreOnly) {
  Result<std::string> url = testing::PgStoreUrl(Name("listen"));
  Result<std::string> other_url = testing::PgStoreUrl(Name("listen-other"));
  ASSERT_TRUE(url.ok() && other_url.ok());
  auto listening = Open(*url);
  auto writer = Open(*url);
  auto other_store = Open(*other_url);
  ASSERT_TRUE(listening && writer && other_store);
  auto listener = listening->ListenForCommits();
  ASSERT_TRUE(listener.ok()) << listener.status().ToString();
  ASSERT_NE(*listener, nullptr);
  CommitListener& l = **listener;

  EXPECT_EQ(l.Wait(std::chrono::milliseconds(50)).value_or(true), false);
  // Another store of the database commits: no wake-up.
  ASSERT_TRUE(other_store->Put(PlainPut("k", "elsewhere")).ok());
  EXPECT_EQ(l.Wait(std::chrono::milliseconds(200)).value_or(true), false);
  // This store's commit wakes it, well before the timeout.
  ASSERT_TRUE(writer->Put(PlainPut("k", "v1")).ok());
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(l.Wait(std::chrono::seconds(30)).value_or(false), true);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  // Once per commit, not again.
  EXPECT_EQ(l.Wait(std::chrono::milliseconds(50)).value_or(true), false);

  // Interrupt ends a wait from another thread.
  std::thread stopper([&l] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    l.Interrupt();
  });
  const auto waited = std::chrono::steady_clock::now();
  EXPECT_EQ(l.Wait(std::chrono::seconds(30)).value_or(true), false);
  EXPECT_LT(std::chrono::steady_clock::now() - waited,
            std::chrono::seconds(10));
  stopper.join();
}

TEST_F(PgEngineTest, AVersionOneStoreMigratesItsSessionEntriesFlags) {
  Result<std::string> url = testing::PgStoreUrl(Name("v1"));
  ASSERT_TRUE(url.ok());
  {
    auto b = Open(*url);
    ASSERT_NE(b, nullptr);
    ASSERT_TRUE(b->Put(PlainPut("kept", "from version 1")).ok());
    ASSERT_TRUE(b->WriteSession(session_cases::EntriesOfEveryKind()).ok());
  }
  {  // Back to what a version-1 build made.
    auto conn = PgConn::Connect(*url, "");
    ASSERT_TRUE(conn.ok());
    ASSERT_TRUE((*conn)
                    ->Run("DROP TRIGGER ctxkit_seq_changed ON ctxkit_seq; "
                          "DROP FUNCTION ctxkit_notify_change(); "
                          "ALTER TABLE ctxkit_session_entries DROP COLUMN "
                          "hot, DROP COLUMN listed; DROP TABLE ctxkit_holds; "
                          "DROP TABLE ctxkit_records, ctxkit_record_log; "
                          "UPDATE ctxkit_meta SET value = '1' WHERE name IN "
                          "('schema_version', 'compatible_since')")
                    .ok());
  }
  PostgresOptions read_only;
  read_only.url = *url;
  read_only.read_only = true;
  {  // Read-only, it is refused until migrated: it lacks the flags.
    auto reader = OpenPostgresBackend(read_only);
    EXPECT_EQ(reader.status().code(), StatusCode::kFailedPrecondition);
    EXPECT_NE(reader.status().message().find("open it once writable"),
              std::string::npos)
        << reader.status().ToString();
  }
  auto b = Open(*url);  // Migrates.
  ASSERT_NE(b, nullptr);
  auto kept = b->FindObject(Scope::Global(), "kept");
  EXPECT_TRUE(kept.ok()) << kept.status().ToString();
  session_cases::ExpectFlagsOfEveryKind(*b);
  auto conn = PgConn::Connect(*url, "");
  ASSERT_TRUE(conn.ok());
  auto meta = (*conn)->Exec(
      "SELECT name, value FROM ctxkit_meta WHERE name IN "
      "('schema_version', 'compatible_since') ORDER BY name");
  ASSERT_TRUE(meta.ok());
  ASSERT_EQ(meta->size(), 2);
  // compatible_since: builds before version 5 would keep manifests, the
  // watch list and the execution log in files no other home reads (before
  // 4 name versions without holding them, before 3 write entries without
  // the flags). Version 6 (ctxkit_put in fewer statements) changed no
  // table: builds of version 5 still read and write it.
  EXPECT_EQ(meta->Bytes(0, 1), "5");
  EXPECT_EQ(meta->Bytes(1, 1), "6");
  RecordWrite w;
  w.puts = {{"spawn", "c", "m"}};
  w.appends = {{"execution", "line"}};
  ASSERT_TRUE(b->WriteRecords(w).ok());
  EXPECT_EQ((*b->GetRecord("spawn", "c"))->bytes, "m");
  // Its sessions predate holds: gc waits until they are recorded.
  auto pending = b->HoldsPending();
  ASSERT_TRUE(pending.ok()) << pending.status().ToString();
  EXPECT_TRUE(*pending);
  auto listener = b->ListenForCommits();
  ASSERT_TRUE(listener.ok() && *listener != nullptr);
  ASSERT_TRUE(Open(*url)->Put(PlainPut("kept", "again")).ok());
  EXPECT_EQ((*listener)->Wait(std::chrono::seconds(30)).value_or(false), true);
}

}  // namespace
}  // namespace ctxkit::storage
