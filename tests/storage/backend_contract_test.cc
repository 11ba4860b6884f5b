// The Backend contract (src/storage/backend.h), run against every engine:
// the embedded SQLite engine, the memory engine the store keeps its
// session-only values in, and the PostgreSQL engine (in the "pg." variant
// of this suite, which has a server: tests/common/pg_store.h; skipped
// elsewhere). Another engine joins by adding a factory below.

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/pg_store.h"
#include "core/sha256.h"
#include "memory/memory_backend.h"
#include "postgres/pg_backend.h"
#include "sqlite/sqlite_backend.h"
#include "storage/backend.h"
#include "storage/memory_tier.h"

namespace ctxkit::storage {
namespace {

struct Engine {
  bool skip = false;  // The engine cannot run here.
  std::string home;   // Empty for the memory engine.
  std::unique_ptr<MemoryTier> tier;
  std::unique_ptr<Backend> backend;
};

using EngineFactory = std::function<Engine()>;

Engine OpenSqlite() {
  char tmpl[] = "/tmp/ctxkit-contract-XXXXXX";
  EXPECT_NE(::mkdtemp(tmpl), nullptr);
  Engine e;
  e.home = tmpl;
  SqliteOptions options;
  options.home = e.home;
  options.durability = Durability::kProcess;
  options.inline_max_bytes = 1024;  // So large values exercise blobs.
  auto backend = OpenSqliteBackend(options);
  EXPECT_TRUE(backend.ok()) << backend.status().ToString();
  if (backend.ok()) e.backend = std::move(*backend);
  return e;
}

Engine OpenMemory() {
  char tmpl[] = "/tmp/ctxkit-contract-XXXXXX";
  EXPECT_NE(::mkdtemp(tmpl), nullptr);
  Engine e;
  e.home = tmpl;
  // A small ceiling and threshold, so values spill and are read back.
  e.tier = std::make_unique<MemoryTier>(64 << 10, 4096);
  EXPECT_TRUE(e.tier->Init(e.home + "/spill").ok());
  e.backend = std::make_unique<MemoryBackend>(
      MemoryBackendOptions{e.tier.get(), /*spill_threshold_bytes=*/4096});
  return e;
}

// A store in a schema of its own on the test server.
Engine OpenPostgres() {
  Engine e;
  if (testing::PgTestUrl().empty()) {
    e.skip = true;
    return e;
  }
  static int n = 0;
  Result<std::string> url = testing::PgStoreUrl(
      "contract-" + std::to_string(::getpid()) + "-" + std::to_string(++n));
  EXPECT_TRUE(url.ok()) << url.status().ToString();
  if (!url.ok()) return e;
  PostgresOptions options;
  options.url = *url;
  options.durability = Durability::kProcess;
  auto backend = OpenPostgresBackend(options);
  EXPECT_TRUE(backend.ok()) << backend.status().ToString();
  if (backend.ok()) e.backend = std::move(*backend);
  return e;
}

class BackendContractTest : public ::testing::TestWithParam<EngineFactory> {
 protected:
  void SetUp() override {
    engine_ = GetParam()();
    if (engine_.skip)
      GTEST_SKIP() << "no PostgreSQL server (CTXKIT_TEST_PG_URL)";
    ASSERT_NE(engine_.backend, nullptr);
  }
  void TearDown() override {
    engine_.backend.reset();
    engine_.tier.reset();
    if (!engine_.home.empty()) std::filesystem::remove_all(engine_.home);
  }
  Backend& b() { return *engine_.backend; }

  Result<WriteResult> Put(const std::string& key, std::string_view content,
                          uint64_t expected = 0,
                          const Scope& scope = Scope::Global()) {
    PutRequest req;
    req.scope = scope;
    req.key = key;
    req.content = content;
    req.hash = core::Sha256(content);
    req.now_unix_ns = ++clock_;
    req.expected_version = expected;
    return b().Put(req);
  }
  Result<WriteResult> Append(const std::string& key, std::string_view bytes,
                             uint64_t expected = 0,
                             ValueType type = ValueType::kStream) {
    AppendRequest req;
    req.scope = Scope::Global();
    req.key = key;
    req.type = type;
    req.bytes = bytes;
    req.hash = core::Sha256(bytes);
    req.now_unix_ns = ++clock_;
    req.expected_version = expected;
    return b().Append(req);
  }
  std::string ReadAll(const VersionRecord& v) {
    auto text = b().Read(v, 0, v.size_bytes);
    EXPECT_TRUE(text.ok()) << text.status().ToString();
    return text.ok() ? *text : "";
  }

  Engine engine_;
  int64_t clock_ = 1000;
};

TEST_P(BackendContractTest, PutMakesVersionsAndReadsRanges) {
  auto v1 = Put("k", "first");
  ASSERT_TRUE(v1.ok()) << v1.status().ToString();
  const std::string big(10000, 'x');
  auto v2 = Put("k", big);
  ASSERT_TRUE(v2.ok());
  EXPECT_EQ(v1->object.id, v2->object.id);
  EXPECT_EQ(v2->version.version, 2u);
  EXPECT_EQ(v2->object.latest_version, 2u);
  EXPECT_EQ(v2->object.size_bytes, big.size());
  EXPECT_EQ(ReadAll(v1->version), "first");
  EXPECT_EQ(ReadAll(v2->version), big);
  auto slice = b().Read(v2->version, 9990, 100);
  ASSERT_TRUE(slice.ok());
  EXPECT_EQ(*slice, std::string(10, 'x'));
  auto versions = b().ListVersions(v1->object.id);
  ASSERT_TRUE(versions.ok());
  ASSERT_EQ(versions->size(), 2u);
  EXPECT_EQ((*versions)[0].hash, core::Sha256("first"));
  auto latest = b().GetVersion(v1->object.id, 0);
  ASSERT_TRUE(latest.ok());
  EXPECT_EQ(latest->version, 2u);
  EXPECT_TRUE(b().GetVersion(v1->object.id, 3).status().IsNotFound());
}

// Values of several storage pieces (the PostgreSQL engine keeps 256 KiB
// pieces; SQLite, blob files): any range reads back exactly, whole values
// and runs of appends alike.
TEST_P(BackendContractTest, LargeValuesReadAnyRange) {
  std::string big(700 << 10, '\0');
  for (size_t i = 0; i < big.size(); ++i) {
    big[i] = static_cast<char>('a' + (i * 7 + i / 4096) % 26);
  }
  auto whole = Put("big", big);
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();
  const size_t cut = 300 << 10;
  auto s1 = Append("log", big.substr(0, cut));
  auto s2 = Append("log", big.substr(cut, 5));
  auto s3 = Append("log", big.substr(cut + 5));
  ASSERT_TRUE(s1.ok() && s2.ok() && s3.ok());
  for (const VersionRecord& v : {whole->version, s3->version}) {
    ASSERT_EQ(v.size_bytes, big.size());
    for (auto [offset, length] :
         std::vector<std::pair<size_t, size_t>>{{0, 10},
                                                {(256 << 10) - 3, 6},
                                                {cut - 2, 9},
                                                {100, 600 << 10},
                                                {big.size() - 7, 100},
                                                {big.size(), 5}}) {
      auto got = b().Read(v, offset, length);
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      EXPECT_EQ(*got, big.substr(std::min(offset, big.size()), length))
          << "offset " << offset << " length " << length;
    }
  }
  EXPECT_EQ(ReadAll(s1->version), big.substr(0, cut));
}

TEST_P(BackendContractTest, ScanHandsOverTheRangeInPieces) {
  std::string big(50000, '\0');
  for (size_t i = 0; i < big.size(); ++i)
    big[i] = static_cast<char>('a' + i % 26);
  auto whole = Put("big", big);
  ASSERT_TRUE(whole.ok());
  auto s1 = Append("log", big.substr(0, 3000));
  auto s2 = Append("log", big.substr(3000, 3000));
  ASSERT_TRUE(s1.ok() && s2.ok());
  for (const VersionRecord& v : {whole->version, s2->version}) {
    std::string got;
    size_t pieces = 0;
    ASSERT_TRUE(b().Scan(v, 100, 4900, 1000,
                         [&](std::string_view piece) {
                           EXPECT_LE(piece.size(), 1000u);
                           got += piece;
                           ++pieces;
                           return true;
                         })
                    .ok());
    EXPECT_EQ(got, big.substr(100, 4900));
    EXPECT_GE(pieces, 5u);
    // A sink returning false stops the scan.
    pieces = 0;
    ASSERT_TRUE(b().Scan(v, 0, v.size_bytes, 1000,
                         [&](std::string_view) { return ++pieces < 2; })
                    .ok());
    EXPECT_EQ(pieces, 2u);
  }
}

// ReadWhole reads many versions at once: inline and large values, runs of
// appends and earlier versions each whole, in the order asked; a
// tombstone or a version that never was is nullopt, not an error.
TEST_P(BackendContractTest, ReadWholeReadsEachVersionOrSaysItIsGone) {
  const std::string big(300 << 10, 'b');
  auto small1 = Put("small", "first");
  auto small2 = Put("small", "second");
  auto large = Put("large", big);
  auto log1 = Append("log", "one\n");
  auto log2 = Append("log", "two\n");
  auto gone = Put("gone", "x");
  ASSERT_TRUE(small1.ok() && small2.ok() && large.ok() && log1.ok() &&
              log2.ok() && gone.ok());
  auto removed = b().Remove(Scope::Global(), "gone", "test", ++clock_,
                            VersionState::kDeleted);
  ASSERT_TRUE(removed.ok()) << removed.status().ToString();
  const int64_t s = small1->object.id;
  const std::vector<VersionKey> keys = {{s, 2},
                                        {large->object.id, 1},
                                        {s, 1},
                                        {log2->object.id, 2},
                                        {gone->object.id, 2},  // The tombstone.
                                        {s, 9},                // Never written.
                                        {log1->object.id, 1}};
  auto got = b().ReadWhole(keys);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_EQ(got->size(), keys.size());
  EXPECT_EQ((*got)[0], std::optional<std::string>("second"));
  EXPECT_EQ((*got)[1], std::optional<std::string>(big));
  EXPECT_EQ((*got)[2], std::optional<std::string>("first"));
  EXPECT_EQ((*got)[3], std::optional<std::string>("one\ntwo\n"));
  EXPECT_EQ((*got)[4], std::nullopt);
  EXPECT_EQ((*got)[5], std::nullopt);
  EXPECT_EQ((*got)[6], std::optional<std::string>("one\n"));
  auto none = b().ReadWhole({});
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
  auto range = b().ReadIfPresent({large->object.id, 1}, big.size() - 3, 10);
  ASSERT_TRUE(range.ok());
  EXPECT_EQ(*range, std::optional<std::string>("bbb"));
  auto missing = b().ReadIfPresent({s, 9}, 0, 10);
  ASSERT_TRUE(missing.ok());
  EXPECT_EQ(*missing, std::nullopt);
}

TEST_P(BackendContractTest, ConditionalPutRefusesAnotherVersion) {
  ASSERT_TRUE(Put("k", "a").ok());
  auto stale = Put("k", "b", /*expected=*/2);
  EXPECT_EQ(stale.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(stale.status().message().find("at version 1"), std::string::npos)
      << stale.status().ToString();
  auto fresh = Put("k", "b", /*expected=*/1);
  ASSERT_TRUE(fresh.ok()) << fresh.status().ToString();
  EXPECT_EQ(fresh->version.version, 2u);
  // A missing key is at version 0: an expected version never creates it.
  EXPECT_EQ(Put("new", "x", 1).status().code(),
            StatusCode::kFailedPrecondition);
  EXPECT_TRUE(b().FindObject(Scope::Global(), "new").status().IsNotFound());
}

TEST_P(BackendContractTest, AppendRunsAndConditionalAppends) {
  auto a1 = Append("log", "one\n");
  ASSERT_TRUE(a1.ok()) << a1.status().ToString();
  EXPECT_EQ(a1->version.stream_base, 1u);
  auto a2 = Append("log", "two\n", /*expected=*/1);
  ASSERT_TRUE(a2.ok());
  EXPECT_EQ(a2->version.stream_base, 1u);
  EXPECT_EQ(ReadAll(a2->version), "one\ntwo\n");
  EXPECT_EQ(ReadAll(a1->version), "one\n");  // Earlier versions are prefixes.
  EXPECT_EQ(Append("log", "x", /*expected=*/1).status().code(),
            StatusCode::kFailedPrecondition);
  ASSERT_TRUE(Put("text", "plain").ok());
  EXPECT_EQ(Append("text", "more").status().code(),
            StatusCode::kFailedPrecondition);
  auto chat = Append("chat", "{}\n", 0, ValueType::kChat);
  ASSERT_TRUE(chat.ok());
  EXPECT_EQ(chat->object.type, ValueType::kChat);
}

TEST_P(BackendContractTest, RemoveWritesATombstoneAndPutRevives) {
  auto v1 = Put("k", "a");
  ASSERT_TRUE(v1.ok());
  auto removed = b().Remove(Scope::Global(), "k", "test", ++clock_,
                            VersionState::kDeleted);
  ASSERT_TRUE(removed.ok()) << removed.status().ToString();
  EXPECT_TRUE(removed->object.deleted);
  EXPECT_EQ(removed->version.state, VersionState::kDeleted);
  EXPECT_TRUE(
      b().Remove(Scope::Global(), "k", "test", ++clock_, VersionState::kDeleted)
          .status()
          .IsNotFound());
  // Lookups still find the removed object; its versions stay readable.
  auto found = b().FindObjects("k", {Scope::Global()});
  ASSERT_TRUE(found.ok());
  ASSERT_EQ(found->size(), 1u);
  EXPECT_TRUE((*found)[0].deleted);
  EXPECT_EQ(ReadAll(v1->version), "a");
  auto revived = Put("k", "b");
  ASSERT_TRUE(revived.ok());
  EXPECT_EQ(revived->object.id, v1->object.id);
  EXPECT_FALSE(revived->object.deleted);
  EXPECT_EQ(revived->version.version, 3u);
}

TEST_P(BackendContractTest, MoveAndRenameKeepIdAndHistory) {
  const Scope agent = Scope::Agent("a1");
  auto v = Put("k", "a", 0, agent);
  ASSERT_TRUE(v.ok());
  ASSERT_TRUE(Put("taken", "t").ok());
  auto moved = b().Move(v->object.id, Scope::Global());
  ASSERT_TRUE(moved.ok()) << moved.status().ToString();
  EXPECT_EQ(moved->id, v->object.id);
  EXPECT_EQ(moved->scope, Scope::Global());
  EXPECT_TRUE(b().FindObject(agent, "k").status().IsNotFound());
  EXPECT_EQ(b().Rename(v->object.id, "taken").status().code(),
            StatusCode::kAlreadyExists);
  auto renamed = b().Rename(v->object.id, "k2");
  ASSERT_TRUE(renamed.ok());
  auto found = b().FindObject(Scope::Global(), "k2");
  ASSERT_TRUE(found.ok());
  EXPECT_EQ(found->id, v->object.id);
  EXPECT_EQ(ReadAll(v->version), "a");
}

// The change feed lists every change once more after the stamp a reader
// last saw, each object at its newest record, in commit order.
TEST_P(BackendContractTest, ChangeFeedListsWhatChangedAfterAStamp) {
  auto start = b().ListChanged(0, 100);
  ASSERT_TRUE(start.ok()) << start.status().ToString();
  EXPECT_TRUE(start->empty());
  EXPECT_EQ(*b().LatestChange(), 0u);
  auto a = Put("a", "1");
  auto c = Put("c", "1");
  ASSERT_TRUE(a.ok() && c.ok());
  auto all = b().ListChanged(0, 100);
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[0].object.key, "a");
  EXPECT_EQ((*all)[1].object.key, "c");
  EXPECT_GT((*all)[0].stamp, 0u);
  EXPECT_LT((*all)[0].stamp, (*all)[1].stamp);
  const uint64_t seen = (*all)[1].stamp;
  EXPECT_EQ(*b().LatestChange(), seen);
  auto none = b().ListChanged(seen, 100);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());

  // A new version, a removal and a move each list the object again, once,
  // as it is now; the limit pages in stamp order.
  ASSERT_TRUE(Put("a", "22").ok());
  ASSERT_TRUE(
      b().Remove(Scope::Global(), "c", "test", ++clock_, VersionState::kDeleted)
          .ok());
  ASSERT_TRUE(b().Move(a->object.id, Scope::Agent("x")).ok());
  auto first = b().ListChanged(seen, 1);
  ASSERT_TRUE(first.ok());
  ASSERT_EQ(first->size(), 1u);
  EXPECT_EQ((*first)[0].object.key, "c");
  EXPECT_TRUE((*first)[0].object.deleted);
  auto rest = b().ListChanged((*first)[0].stamp, 100);
  ASSERT_TRUE(rest.ok());
  ASSERT_EQ(rest->size(), 1u);
  const ObjectRecord& moved = (*rest)[0].object;
  EXPECT_EQ(moved.id, a->object.id);
  EXPECT_EQ(moved.scope, Scope::Agent("x"));
  EXPECT_EQ(moved.latest_version, 2u);
  EXPECT_EQ(moved.size_bytes, 2u);
  EXPECT_FALSE(moved.deleted);
  EXPECT_EQ(*b().LatestChange(), (*rest)[0].stamp);
}

TEST_P(BackendContractTest, ListObjectsFiltersSortsAndPages) {
  for (const char* key : {"b/2", "a/1", "b/1", "c/1"}) {
    PutRequest req;
    req.scope = Scope::Global();
    req.key = key;
    req.content = key;
    req.hash = core::Sha256(key);
    req.tags = key[0] == 'b' ? std::vector<std::string>{"x"}
                             : std::vector<std::string>{};
    req.now_unix_ns = ++clock_;
    ASSERT_TRUE(b().Put(req).ok());
  }
  ASSERT_TRUE(Put("k", "other scope", 0, Scope::Agent("a")).ok());
  ObjectQuery q;
  q.scopes = {Scope::Global()};
  q.limit = 2;
  auto page = b().ListObjects(q);
  ASSERT_TRUE(page.ok());
  ASSERT_EQ(page->size(), 2u);
  EXPECT_EQ((*page)[0].key, "a/1");
  EXPECT_EQ((*page)[1].key, "b/1");
  q.after = std::make_pair(std::string("b/1"), Scope::Global().ToString());
  page = b().ListObjects(q);
  ASSERT_TRUE(page.ok());
  ASSERT_EQ(page->size(), 2u);
  EXPECT_EQ((*page)[0].key, "b/2");
  ObjectQuery tagged;
  tagged.tags = {"x"};
  tagged.key_prefix = "b/";
  page = b().ListObjects(tagged);
  ASSERT_TRUE(page.ok());
  EXPECT_EQ(page->size(), 2u);
}

// A prefix selects exactly the keys starting with it, whatever its last
// character (multi-byte, the last code point, characters LIKE gives a
// meaning to), in byte order.
TEST_P(BackendContractTest, KeyPrefixSelectsExactlyTheKeysStartingWithIt) {
  const std::vector<std::string> keys = {
      "caf",         "cafe",         "café", "cafés", "cafê",
      "caf\xc3\xa8", "a%b",          "a%bc", "axb",   "a_b",
      "x\U0010FFFF", "x\U0010FFFFy", "y"};
  for (const std::string& key : keys) ASSERT_TRUE(Put(key, key).ok()) << key;
  for (const std::string& prefix :
       {std::string("café"), std::string("caf"), std::string("a%b"),
        std::string("a_"), std::string("x\U0010FFFF"), std::string("é")}) {
    ObjectQuery q;
    q.key_prefix = prefix;
    auto page = b().ListObjects(q);
    ASSERT_TRUE(page.ok()) << page.status().ToString();
    std::vector<std::string> got;
    for (const ObjectRecord& o : *page) got.push_back(o.key);
    std::vector<std::string> want;
    for (const std::string& key : keys) {
      if (key.starts_with(prefix)) want.push_back(key);
    }
    std::sort(want.begin(), want.end());
    EXPECT_EQ(got, want) << "prefix " << prefix;
  }
}

TEST_P(BackendContractTest, TokenCountsAreKeptOnce) {
  auto v = Put("k", "some text");
  ASSERT_TRUE(v.ok());
  ASSERT_TRUE(
      b().RecordTokenCounts({{v->object.id, v->version.version, 3}}).ok());
  ASSERT_TRUE(
      b().RecordTokenCounts({{v->object.id, v->version.version, 99}}).ok());
  auto read = b().GetVersion(v->object.id, 1);
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(read->tokens, 3u);
}

TEST_P(BackendContractTest, SessionsAreComparedAndSet) {
  SessionWrite create;
  create.id = "s1";
  create.state_json = "{\"n\":1}";
  create.put_entries = {{"o1", 1, "{}"}, {"o2", 2, "{}"}};
  auto gen = b().WriteSession(create);
  ASSERT_TRUE(gen.ok()) << gen.status().ToString();
  EXPECT_EQ(*gen, 1u);
  EXPECT_EQ(b().WriteSession(create).status().code(),
            StatusCode::kAlreadyExists);
  SessionWrite update;
  update.id = "s1";
  update.expected_generation = 1;
  update.state_json = "{\"n\":2}";
  update.removed_entries = {"o1"};
  ASSERT_TRUE(b().WriteSession(update).ok());
  EXPECT_EQ(b().WriteSession(update).status().code(),
            StatusCode::kFailedPrecondition);
  auto loaded = b().LoadSession("s1");
  ASSERT_TRUE(loaded.ok());
  EXPECT_EQ(loaded->generation, 2u);
  EXPECT_EQ(loaded->state_json, "{\"n\":2}");
  ASSERT_EQ(loaded->entries.size(), 1u);
  EXPECT_EQ(loaded->entries[0].object_id, "o2");
  auto generation = b().SessionGeneration("s1");
  ASSERT_TRUE(generation.ok());
  EXPECT_EQ(*generation, std::optional<uint64_t>(2));
  auto ids = b().ListSessions();
  ASSERT_TRUE(ids.ok());
  EXPECT_EQ(*ids, std::vector<std::string>{"s1"});
  ASSERT_TRUE(b().RemoveSession("s1").ok());
  EXPECT_TRUE(b().LoadSession("s1").status().IsNotFound());
  EXPECT_TRUE(b().RemoveSession("s1").IsNotFound());
}

TEST_P(BackendContractTest, HeldVersionsAreNotCollectedAndGoWithTheirHolder) {
  auto v1 = Put("k", "one");
  ASSERT_TRUE(v1.ok()) << v1.status().ToString();
  ASSERT_TRUE(Put("k", "two").ok());
  ASSERT_TRUE(Put("k", "three").ok());
  const int64_t id = v1->object.id;
  const VersionKey first{id, 1}, second{id, 2};
  // Nothing can be held that is not stored, and a refused hold adds none.
  const VersionKey never{id, 9};
  const VersionKey both[] = {first, never};
  EXPECT_TRUE(b().AddHolds("spawn:c", both).IsNotFound());
  auto held = b().ListHeld();
  ASSERT_TRUE(held.ok()) << held.status().ToString();
  EXPECT_TRUE(held->empty());
  const VersionKey one[] = {first};
  ASSERT_TRUE(b().AddHolds("spawn:c", one).ok());
  ASSERT_TRUE(b().AddHolds("spawn:c", one).ok());  // Again: no change.
  // A session write holds what it names in the same transaction.
  SessionWrite create;
  create.id = "s1";
  create.state_json = "{}";
  create.holds = {first, never};
  EXPECT_TRUE(b().WriteSession(create).status().IsNotFound());
  EXPECT_FALSE(b().SessionGeneration("s1")->has_value());
  create.holds = {first, second};
  ASSERT_TRUE(b().WriteSession(create).ok());
  held = b().ListHeld();
  ASSERT_TRUE(held.ok());
  EXPECT_EQ(*held, (std::vector<VersionKey>{first, second}));
  // The engine refuses to collect a held version, whole batch untouched.
  EXPECT_EQ(b().CollectVersions({second}).status().code(),
            StatusCode::kFailedPrecondition);
  EXPECT_TRUE(b().GetVersion(id, 2).ok());
  // The session's holds go with it; the manifest's stay until dropped.
  ASSERT_TRUE(b().RemoveSession("s1").ok());
  EXPECT_EQ(*b().ListHeld(), (std::vector<VersionKey>{first}));
  // Measuring reports what collecting then does, and changes nothing.
  EXPECT_EQ(b().MeasureCollect({first}).status().code(),
            StatusCode::kFailedPrecondition);
  auto measured = b().MeasureCollect({second});
  ASSERT_TRUE(measured.ok()) << measured.status().ToString();
  EXPECT_TRUE(b().GetVersion(id, 2).ok());
  auto done = b().CollectVersions({second});
  ASSERT_TRUE(done.ok()) << done.status().ToString();
  EXPECT_EQ(done->versions, 1u);
  EXPECT_EQ(measured->versions, done->versions);
  EXPECT_EQ(measured->bytes, done->bytes);
  EXPECT_EQ(measured->blob_files, done->blob_files);
  EXPECT_EQ(b().CollectVersions({first}).status().code(),
            StatusCode::kFailedPrecondition);
  ASSERT_TRUE(b().DropHolds("spawn:c").ok());
  EXPECT_TRUE(b().ListHeld()->empty());
  ASSERT_TRUE(b().CollectVersions({first}).ok());
  // A collected version can no longer be held.
  EXPECT_TRUE(b().AddHolds("spawn:c", one).IsNotFound());
  auto pending = b().HoldsPending();
  ASSERT_TRUE(pending.ok());
  EXPECT_FALSE(*pending);  // A store made by this build.
}

TEST_P(BackendContractTest, RecordsArePutKeptCreatedAndRemovedAllOrNothing) {
  using When = RecordPut::When;
  RecordWrite w;
  w.now_unix_ns = 7;
  w.puts = {{"spawn", "b", std::string("two\0bytes", 9), When::kAlways},
            {"spawn", "a", "one", When::kAlways},
            {"watch", "/x", "", When::kCreate}};
  ASSERT_TRUE(b().WriteRecords(w).ok());
  auto a = b().GetRecord("spawn", "a");
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  ASSERT_TRUE(a->has_value());
  EXPECT_EQ((*a)->bytes, "one");
  EXPECT_EQ((*a)->updated_unix_ns, 7);
  auto listed = b().ListRecords("spawn");
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  ASSERT_EQ(listed->size(), 2u);  // Sorted by name, of that kind only.
  EXPECT_EQ((*listed)[0].name, "a");
  EXPECT_EQ((*listed)[1].bytes, std::string("two\0bytes", 9));
  auto empty = b().GetRecord("watch", "/x");
  ASSERT_TRUE(empty.ok() && empty->has_value());
  EXPECT_EQ((*empty)->bytes, "");
  EXPECT_FALSE(b().GetRecord("spawn", "c")->has_value());

  // A kCreate put that finds its record fails the whole write: the other
  // puts, removals and appends of it are not applied.
  RecordWrite refused;
  refused.puts = {{"spawn", "a", "changed", When::kAlways},
                  {"watch", "/x", "again", When::kCreate}};
  refused.removes = {{"spawn", "b"}};
  refused.appends = {{"log", "line"}};
  EXPECT_EQ(b().WriteRecords(refused).code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ((*b().GetRecord("spawn", "a"))->bytes, "one");
  EXPECT_TRUE(b().GetRecord("spawn", "b")->has_value());
  EXPECT_TRUE(b().ReadLog("log", 10)->empty());

  // kIfAbsent keeps what is there; kAlways replaces; removal of a missing
  // record is not an error.
  RecordWrite more;
  more.now_unix_ns = 8;
  more.puts = {{"spawn", "a", "kept?", When::kIfAbsent},
               {"spawn", "c", "new", When::kIfAbsent},
               {"spawn", "b", "replaced", When::kAlways}};
  more.removes = {{"watch", "/x"}, {"watch", "/never"}};
  ASSERT_TRUE(b().WriteRecords(more).ok());
  EXPECT_EQ((*b().GetRecord("spawn", "a"))->bytes, "one");
  EXPECT_EQ((*b().GetRecord("spawn", "b"))->bytes, "replaced");
  EXPECT_EQ((*b().GetRecord("spawn", "b"))->updated_unix_ns, 8);
  EXPECT_EQ((*b().GetRecord("spawn", "c"))->bytes, "new");
  EXPECT_FALSE(b().GetRecord("watch", "/x")->has_value());
  EXPECT_TRUE(b().ListRecords("watch")->empty());

  // Bad names are refused before anything is written.
  RecordWrite bad;
  bad.puts = {{"spawn", "d", "x", When::kAlways},
              {"", "e", "x", When::kAlways}};
  EXPECT_EQ(b().WriteRecords(bad).code(), StatusCode::kInvalidArgument);
  bad.puts = {{"spawn", std::string("n\0ul", 4), "x", When::kAlways}};
  EXPECT_EQ(b().WriteRecords(bad).code(), StatusCode::kInvalidArgument);
  EXPECT_FALSE(b().GetRecord("spawn", "d")->has_value());
}

TEST_P(BackendContractTest, LogsKeepAppendOrderAndReadTheirTail) {
  for (int i = 1; i <= 5; ++i) {
    RecordWrite w;
    w.appends = {{"exec", "line " + std::to_string(i)}};
    if (i == 3) w.appends.push_back({"other", "elsewhere"});
    ASSERT_TRUE(b().WriteRecords(w).ok());
  }
  auto tail = b().ReadLog("exec", 3);
  ASSERT_TRUE(tail.ok()) << tail.status().ToString();
  EXPECT_EQ(*tail, (std::vector<std::string>{"line 3", "line 4", "line 5"}));
  EXPECT_EQ(b().ReadLog("exec", 100)->size(), 5u);
  EXPECT_EQ(*b().ReadLog("other", 100),
            (std::vector<std::string>{"elsewhere"}));
  EXPECT_TRUE(b().ReadLog("none", 100)->empty());
  EXPECT_TRUE(b().ReadLog("exec", 0)->empty());
}

TEST_P(BackendContractTest, APartialSessionLoadReadsHotAndFirstListed) {
  SessionWrite create;
  create.id = "s1";
  create.state_json = "{}";
  // seq: listed 2, 4, 6, ..., 20 (o2 and o20 also hot); hot-only 1; cold
  // and unlisted 3, 5.
  auto row = [](int seq, bool hot, bool listed) {
    return SessionEntryRow{"o" + std::to_string(seq), uint64_t(seq),
                           "{\"seq\":" + std::to_string(seq) + "}", hot,
                           listed};
  };
  create.put_entries = {row(1, true, false), row(3, false, false),
                        row(5, false, false)};
  for (int seq = 2; seq <= 20; seq += 2) {
    create.put_entries.push_back(row(seq, seq == 2 || seq == 20, true));
  }
  ASSERT_TRUE(b().WriteSession(create).ok());
  auto ids = [](const SessionRecord& r) {
    std::vector<std::string> out;
    for (const SessionEntryRow& e : r.entries) out.push_back(e.object_id);
    std::sort(out.begin(), out.end());
    return out;
  };
  auto head = b().LoadSessionHead("s1", 3);
  ASSERT_TRUE(head.ok()) << head.status().ToString();
  EXPECT_EQ(head->generation, 1u);
  EXPECT_EQ(head->state_json, "{}");
  EXPECT_EQ(*b().CountListedSessionEntries("s1"), 10u);
  EXPECT_EQ(ids(*head),
            (std::vector<std::string>{"o1", "o2", "o20", "o4", "o6"}));
  for (const SessionEntryRow& e : head->entries) {
    EXPECT_EQ(e.entry_json, "{\"seq\":" + std::to_string(e.seq) + "}");
    EXPECT_EQ(e.hot, e.seq == 1 || e.seq == 2 || e.seq == 20) << e.seq;
    EXPECT_EQ(e.listed, e.seq % 2 == 0) << e.seq;
  }
  auto all_listed = b().LoadSessionHead("s1", 100);
  ASSERT_TRUE(all_listed.ok());
  EXPECT_EQ(all_listed->entries.size(), 11u);  // o1 and the ten listed.

  auto some = b().LoadSessionEntries("s1", {"o3", "o9", "o20"});
  ASSERT_TRUE(some.ok()) << some.status().ToString();
  EXPECT_EQ(some->generation, 1u);
  EXPECT_EQ(ids(*some), (std::vector<std::string>{"o20", "o3"}));
  EXPECT_TRUE(b().LoadSessionEntries("none", {"o3"}).status().IsNotFound());
  EXPECT_TRUE(b().LoadSessionHead("none", 3).status().IsNotFound());
  EXPECT_TRUE(b().CountListedSessionEntries("none").status().IsNotFound());

  // A write moves entries between the groups.
  SessionWrite update;
  update.id = "s1";
  update.expected_generation = 1;
  update.state_json = "{}";
  update.put_entries = {row(2, false, true), row(3, true, false)};
  update.removed_entries = {"o4"};
  ASSERT_TRUE(b().WriteSession(update).ok());
  head = b().LoadSessionHead("s1", 2);
  ASSERT_TRUE(head.ok());
  EXPECT_EQ(*b().CountListedSessionEntries("s1"), 9u);
  EXPECT_EQ(ids(*head),
            (std::vector<std::string>{"o1", "o2", "o20", "o3", "o6"}));
}

TEST_P(BackendContractTest, StatsAndUsageCountWhatIsStored) {
  ASSERT_TRUE(Put("k", "12345").ok());
  ASSERT_TRUE(Put("k", "123").ok());
  auto stats = b().Stats();
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->objects, 1u);
  EXPECT_EQ(stats->versions, 2u);
  EXPECT_EQ(stats->content_bytes, 8u);
  auto usage = b().Usage();
  ASSERT_TRUE(usage.ok());
  uint64_t bytes = 0;
  for (const UsageRecord& r : *usage) bytes += r.bytes;
  EXPECT_EQ(bytes, 8u);
}

INSTANTIATE_TEST_SUITE_P(Engines, BackendContractTest,
                         ::testing::Values(EngineFactory(OpenSqlite),
                                           EngineFactory(OpenMemory),
                                           EngineFactory(OpenPostgres)),
                         [](const auto& info) {
                           return std::string(info.index == 0   ? "Sqlite"
                                              : info.index == 1 ? "Memory"
                                                                : "Postgres");
                         });

// The memory engine's own contract: owners and spilling.
TEST(MemoryBackendTest, DropOwnedByForgetsTheOwnersObjectsOnly) {
  char tmpl[] = "/tmp/ctxkit-memory-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  MemoryTier tier(1 << 20, 1 << 20);
  ASSERT_TRUE(tier.Init(std::string(tmpl) + "/spill").ok());
  {
    MemoryBackend b({&tier, 1 << 20});
    for (const char* owner : {"s1", "s2"}) {
      PutRequest req;
      req.scope = Scope::Global();
      req.key = std::string("k-") + owner;
      req.content = "value";
      req.hash = core::Sha256("value");
      req.owner = owner;
      ASSERT_TRUE(b.Put(req).ok());
    }
    EXPECT_EQ(tier.Stats().resident_bytes, 10u);
    b.DropOwnedBy("s1");
    EXPECT_FALSE(b.FindLive(Scope::Global(), "k-s1"));
    EXPECT_TRUE(b.FindLive(Scope::Global(), "k-s2"));
    EXPECT_EQ(tier.Stats().resident_bytes, 5u);
  }
  EXPECT_EQ(tier.Stats().resident_bytes, 0u) << "the engine frees its payloads";
  std::filesystem::remove_all(tmpl);
}

}  // namespace
}  // namespace ctxkit::storage
