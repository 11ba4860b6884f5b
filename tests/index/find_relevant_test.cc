// find_relevant through the public API: ranking, refs to ranges, the lazy
// incremental sync, scopes, limits.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "ctxkit/index.h"
#include "index/index_test_util.h"

namespace ctxkit::testing {
namespace {

using ::testing::HasSubstr;

const char kAuth[] =
    "Authentication uses short-lived access tokens.\n"
    "When a token expires the client calls the refresh endpoint with its\n"
    "refresh token and receives a new access token.\n";
const char kDb[] =
    "The database runs in WAL mode.\n"
    "Checkpoints copy pages from the write-ahead log back to the main file.\n";
const char kCooking[] =
    "Boil the pasta in salted water for nine minutes.\n"
    "Drain it and toss it with olive oil and garlic.\n";

class FindRelevantTest : public IndexTest {
 protected:
  void PutCorpus() {
    Put("docs/auth", kAuth);
    Put("docs/db", kDb);
    Put("recipes/pasta", kCooking);
  }
};

TEST_F(FindRelevantTest, RanksTheDocumentAboutTheQueryFirst) {
  PutCorpus();
  FindResult r = Find("how is an expired token refreshed?");
  ASSERT_FALSE(r.hits.empty());
  EXPECT_EQ(r.hits[0].key, "docs/auth");
  EXPECT_EQ(r.method, "bm25");
  EXPECT_EQ(r.hits[0].method, "bm25");
  EXPECT_EQ(r.hits[0].bm25_rank, 1u);
  EXPECT_EQ(r.variables_covered, 3u);
  EXPECT_EQ(r.variables_indexed, 3u);

  r = Find("olive oil garlic");
  ASSERT_FALSE(r.hits.empty());
  EXPECT_EQ(r.hits[0].key, "recipes/pasta");
  r = Find("write-ahead log checkpoint");
  ASSERT_FALSE(r.hits.empty());
  EXPECT_EQ(r.hits[0].key, "docs/db");
  EXPECT_EQ(r.variables_indexed, 0u);  // Nothing changed: no reindexing.
}

TEST_F(FindRelevantTest, ThePreviewIsTheMatchingPassageNotTheChunkStart) {
  std::string log;
  for (int i = 0; i < 40; ++i) log += "step " + std::to_string(i) + " ok\n";
  log += "step 40 TLS handshake failed: certificate expired\n";
  ASSERT_TRUE(view().Set("logs/build", log).ok());
  FindResult r = Find("handshake failure");
  ASSERT_FALSE(r.hits.empty());
  EXPECT_EQ(r.hits[0].preview.substr(0, 24), "step 40 TLS handshake fa");
}

TEST_F(FindRelevantTest, HitsAreStaticRefsToRangesHoldingTheTerms) {
  PutCorpus();
  FindResult r = Find("refresh endpoint");
  ASSERT_FALSE(r.hits.empty());
  const FindHit& h = r.hits[0];
  EXPECT_TRUE(h.ref.is_static());
  EXPECT_EQ(h.ref.version, 1u);
  EXPECT_EQ(h.ref.key, "docs/auth");
  EXPECT_GT(h.byte_length, 0u);
  EXPECT_GT(h.tokens, 0u);
  std::string text = Text(h);
  EXPECT_THAT(text, HasSubstr("refresh endpoint"));
  // The preview is the passage that matched, inside the chunk.
  EXPECT_THAT(h.preview, HasSubstr("refresh endpoint"));
  EXPECT_NE(text.find(h.preview), std::string::npos);
  // The ref is a capability that round-trips through its wire form.
  auto parsed = ParseRef(FormatRef(h.ref));
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(*parsed, h.ref);
}

TEST_F(FindRelevantTest, EmptyQueryAndBadOptionsAreInvalidArgument) {
  PutCorpus();
  EXPECT_TRUE(FindRelevant(view(), "  ?! ").status().IsInvalidArgument());
  FindOptions o;
  o.top_k = 0;
  EXPECT_TRUE(FindRelevant(view(), "token", o).status().IsInvalidArgument());
  o.top_k = 5;
  o.chunk_tokens = 1;
  EXPECT_TRUE(FindRelevant(view(), "token", o).status().IsInvalidArgument());
  // Terms that match nothing: no hits, no error.
  EXPECT_TRUE(Find("zyzzyva").hits.empty());
}

TEST_F(FindRelevantTest, TopKBoundsTheHits) {
  for (int i = 0; i < 12; ++i) {
    Put("notes/" + std::to_string(i), "kiwi note number " + std::to_string(i));
  }
  FindOptions o;
  o.top_k = 3;
  EXPECT_EQ(Find("kiwi", o).hits.size(), 3u);
  o.top_k = 100;
  EXPECT_EQ(Find("kiwi", o).hits.size(), 12u);
}

TEST_F(FindRelevantTest, OneVariableMode) {
  PutCorpus();
  Put("docs/other", "another text that mentions a token once");
  FindOptions o;
  o.key = "docs/other";
  FindResult r = Find("token", o);
  ASSERT_EQ(r.hits.size(), 1u);
  EXPECT_EQ(r.hits[0].key, "docs/other");
  EXPECT_EQ(r.variables_covered, 1u);
  o.key = "missing";
  EXPECT_TRUE(FindRelevant(view(), "token", o).status().IsNotFound());
}

TEST_F(FindRelevantTest, OneVariableByRefIsACapability) {
  SetOptions agent;
  agent.scope = "agent";
  Put("secret", "alice private walrus plan", agent);
  Put("shared", "public walrus facts");
  Result<Ref> ref = view().RefOf("secret");
  ASSERT_TRUE(ref.ok());
  FindOptions by_key;
  by_key.key = "secret";
  FindResult want = Find("walrus", by_key);
  ASSERT_EQ(want.hits.size(), 1u);
  // Bob cannot name alice's key, but reads by the ref she handed him.
  auto bob = store_->OpenView("bob", "s2");
  ASSERT_TRUE(bob.ok());
  FindOptions by_ref;
  by_ref.ref = *ref;
  FindResult got = FindIn(*bob, "walrus", by_ref);
  ASSERT_EQ(got.hits.size(), 1u);
  EXPECT_EQ(got.hits[0].ref, want.hits[0].ref);
  EXPECT_EQ(got.hits[0].byte_offset, want.hits[0].byte_offset);
  EXPECT_EQ(got.variables_covered, 1u);
  by_key.ref = *ref;  // Both: refused.
  EXPECT_EQ(FindRelevant(view(), "walrus", by_key).status().code(),
            StatusCode::kInvalidArgument);
}

TEST_F(FindRelevantTest, NewVersionsAndRemovalAreSeenIncrementally) {
  Put("doc", "the quarterly report about penguins");
  ASSERT_EQ(Find("penguins").hits.size(), 1u);
  Put("doc", "the quarterly report about giraffes");
  FindResult r = Find("penguins");
  EXPECT_TRUE(r.hits.empty());
  EXPECT_EQ(r.variables_indexed, 1u);
  r = Find("giraffes");
  ASSERT_EQ(r.hits.size(), 1u);
  EXPECT_EQ(r.hits[0].ref.version, 2u);
  EXPECT_THAT(Text(r.hits[0]), HasSubstr("giraffes"));

  ASSERT_TRUE(view().Remove("doc").ok());
  r = Find("giraffes");
  EXPECT_TRUE(r.hits.empty());
  EXPECT_EQ(r.variables_dropped, 1u);
}

TEST_F(FindRelevantTest, WritesByAnotherStoreInstanceArePickedUp) {
  Put("doc", "alpha beta");
  ASSERT_EQ(Find("alpha").hits.size(), 1u);
  // A second instance stands for another process on the same home.
  auto other = Store::Open(options_);
  ASSERT_TRUE(other.ok());
  auto ov = (*other)->OpenView("alice", "s1");
  ASSERT_TRUE(ov.ok());
  ASSERT_TRUE(ov->Set("doc", "gamma delta").ok());
  ASSERT_TRUE(ov->Set("doc2", "epsilon alpha").ok());
  FindResult r = Find("gamma");
  ASSERT_EQ(r.hits.size(), 1u);
  EXPECT_EQ(r.hits[0].key, "doc");
  r = Find("alpha");
  ASSERT_EQ(r.hits.size(), 1u);
  EXPECT_EQ(r.hits[0].key, "doc2");
  // And the other instance finds through the index this one built.
  r = FindIn(*ov, "epsilon");
  ASSERT_EQ(r.hits.size(), 1u);
  EXPECT_EQ(r.variables_indexed, 0u);
}

TEST_F(FindRelevantTest, ScopesAreIsolated) {
  SetOptions agent;
  agent.scope = "agent";
  Put("secret", "alice private walrus plan", agent);
  Put("shared", "public walrus facts");
  ASSERT_EQ(Find("walrus").hits.size(), 2u);  // Alice indexes both.
  auto bob = store_->OpenView("bob", "s2");
  ASSERT_TRUE(bob.ok());
  FindResult r = FindIn(*bob, "walrus");
  ASSERT_EQ(r.hits.size(), 1u);
  EXPECT_EQ(r.hits[0].key, "shared");
  EXPECT_EQ(r.variables_covered, 1u);  // Alice's row is not bob's.
  // Bob's query must not drop alice's rows: alice still finds hers.
  r = Find("walrus private");
  ASSERT_EQ(r.hits.size(), 2u);
  EXPECT_EQ(r.hits[0].key, "secret");
  EXPECT_EQ(r.variables_indexed, 0u);
  // Naming alice's scope from bob's view is refused.
  FindOptions o;
  o.scope = "agent:alice";
  EXPECT_TRUE(FindRelevant(*bob, "walrus", o).status().IsPermissionDenied());
}

TEST_F(FindRelevantTest, SessionOnlyValuesAreNeverIndexed) {
  SetOptions o;
  o.persist = false;
  Put("scratch", "ephemeral narwhal musings", o);
  Put("kept", "durable narwhal facts");
  FindResult r = Find("narwhal");
  ASSERT_EQ(r.hits.size(), 1u);
  EXPECT_EQ(r.hits[0].key, "kept");
  ASSERT_EQ(r.skipped.size(), 1u);
  EXPECT_EQ(r.skipped[0].key, "scratch");
  EXPECT_THAT(r.skipped[0].reason, HasSubstr("session-only"));
  // No byte of it reached index.db (or its WAL).
  for (const char* f : {"/index.db", "/index.db-wal"}) {
    std::string path = options_.home + f;
    FILE* file = fopen(path.c_str(), "rb");
    if (file == nullptr) continue;
    std::string all;
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, file)) > 0) all.append(buf, n);
    fclose(file);
    EXPECT_EQ(all.find("ephemeral"), std::string::npos) << f;
  }
}

TEST_F(FindRelevantTest, ValuesOverTheLimitAreSkippedAndReported) {
  Put("big", std::string(5000, 'x') + " lemur");
  Put("small", "lemur");
  FindOptions o;
  o.max_value_bytes = 1000;
  FindResult r = Find("lemur", o);
  ASSERT_EQ(r.hits.size(), 1u);
  EXPECT_EQ(r.hits[0].key, "small");
  ASSERT_EQ(r.skipped.size(), 1u);
  EXPECT_EQ(r.skipped[0].key, "big");
  // Indexed before with a larger limit, its rows go when it is skipped.
  o.max_value_bytes = 1 << 20;
  EXPECT_EQ(Find("lemur", o).hits.size(), 2u);
  o.max_value_bytes = 1000;
  r = Find("lemur", o);
  ASSERT_EQ(r.hits.size(), 1u);
  EXPECT_EQ(r.hits[0].key, "small");
}

TEST_F(FindRelevantTest, OneVariableModeDropsOnlyThatVariable) {
  Put("docs/a", "lemur in a");
  Put("docs/ab", "lemur in ab");
  ASSERT_EQ(Find("lemur").hits.size(), 2u);
  Put("docs/a", std::string(5000, 'x') + " lemur");
  FindOptions o;
  o.key = "docs/a";
  o.max_value_bytes = 1000;
  FindResult r = Find("lemur", o);
  EXPECT_TRUE(r.hits.empty());
  EXPECT_EQ(r.skipped.size(), 1u);
  o.key = "docs/ab";
  EXPECT_EQ(Find("lemur", o).hits.size(), 1u);  // Its rows survived.
  EXPECT_EQ(Find("lemur", o).variables_indexed, 0u);
}

TEST_F(FindRelevantTest, LargeValueIsChunkedAndTheNeedleFound) {
  std::string big;
  int line = 0;
  while (big.size() < 600 * 1024) {
    big += "line " + std::to_string(line++) +
           ": routine log output with nothing notable in it\n";
    if (line == 7000) big += "the hidden needle says the vault code is 4711\n";
  }
  Put("logs/big", big);
  FindResult r = Find("vault code needle");
  EXPECT_GT(r.chunks_indexed, 500u);
  ASSERT_FALSE(r.hits.empty());
  EXPECT_EQ(r.hits[0].key, "logs/big");
  EXPECT_THAT(Text(r.hits[0]), HasSubstr("vault code is 4711"));
  EXPECT_LE(r.hits[0].tokens, 256u);
  EXPECT_LT(r.hits[0].byte_length, 4096u);
}

TEST_F(FindRelevantTest, StreamsAreReindexedOnAppend) {
  ASSERT_TRUE(view().Append("events", "first event: boot\n").ok());
  ASSERT_EQ(Find("boot").hits.size(), 1u);
  ASSERT_TRUE(view().Append("events", "second event: shutdown\n").ok());
  FindResult r = Find("shutdown");
  ASSERT_EQ(r.hits.size(), 1u);
  EXPECT_EQ(r.hits[0].ref.version, 2u);
  EXPECT_THAT(Text(r.hits[0]), HasSubstr("shutdown"));
}

TEST_F(FindRelevantTest, PromotionKeepsHitsWithTheNewScope) {
  SetOptions agent;
  agent.scope = "agent";
  Put("draft", "a draft about otters", agent);
  ASSERT_EQ(Find("otters").hits.size(), 1u);
  ASSERT_TRUE(view().Promote("draft").ok());
  FindResult r = Find("otters");
  ASSERT_EQ(r.hits.size(), 1u);
  EXPECT_TRUE(r.hits[0].ref.scope.is_global());
  EXPECT_THAT(Text(r.hits[0]), HasSubstr("otters"));
}

TEST_F(FindRelevantTest, BinaryAndInvalidUtf8AreIndexedWithoutError) {
  std::string bin = "caribou ";
  for (int i = 0; i < 3000; ++i) bin += static_cast<char>(i * 37 % 256);
  Put("blob", bin);
  FindResult r = Find("caribou");
  ASSERT_EQ(r.hits.size(), 1u);
  EXPECT_EQ(Text(r.hits[0]).substr(0, 8), "caribou ");
}

// A listing call reads only the store's changes since the last call over
// the same region: none when nothing changed, one when one thing did.
TEST_F(FindRelevantTest, ACallReadsOnlyTheChangesSinceTheLastOne) {
  for (int i = 0; i < 300; ++i) {
    Put("notes/" + std::to_string(i), "ibex note " + std::to_string(i));
  }
  FindResult r = Find("ibex");
  EXPECT_GE(r.changes_read, 300u);
  EXPECT_EQ(r.variables_indexed, 300u);
  EXPECT_EQ(r.variables_covered, 300u);
  r = Find("ibex");
  EXPECT_EQ(r.changes_read, 0u);
  EXPECT_EQ(r.variables_indexed, 0u);
  EXPECT_EQ(r.variables_covered, 300u);
  Put("notes/7", "a yak, no longer an ibex");
  r = Find("yak");
  EXPECT_EQ(r.changes_read, 1u);
  EXPECT_EQ(r.variables_indexed, 1u);
  ASSERT_EQ(r.hits.size(), 1u);
  EXPECT_EQ(r.hits[0].key, "notes/7");
  EXPECT_EQ(r.variables_covered, 300u);  // Re-indexed: counted once.
  ASSERT_TRUE(view().Remove("notes/8").ok());
  r = Find("ibex");
  EXPECT_EQ(r.variables_dropped, 1u);
  EXPECT_EQ(r.variables_covered, 299u);
  // Another region (a key prefix) starts from the beginning of the feed,
  // then keeps its own place in it.
  FindOptions o;
  o.key_prefix = "notes/1";
  r = Find("ibex", o);
  EXPECT_GE(r.changes_read, 300u);
  EXPECT_EQ(r.variables_indexed, 0u);    // The rows were already current.
  EXPECT_EQ(r.variables_covered, 111u);  // notes/1, notes/10-19, 100-199.
  for (const FindHit& h : r.hits) EXPECT_TRUE(h.key.starts_with("notes/1"));
  EXPECT_EQ(Find("ibex", o).changes_read, 0u);
}

// Moves, renames and removals made by another process reach every region,
// each in its own time, with no stale or lost rows.
TEST_F(FindRelevantTest, RegionsFollowMovesRenamesAndRemovals) {
  SetOptions agent;
  agent.scope = "agent";
  Put("a/draft", "tapir draft", agent);
  Put("a/kept", "tapir kept");
  Put("b/other", "tapir other");
  FindOptions only_a;
  only_a.key_prefix = "a/";
  ASSERT_EQ(Find("tapir", only_a).hits.size(), 2u);
  FindOptions global;
  global.scope = "global";
  ASSERT_EQ(Find("tapir", global).hits.size(), 2u);  // a/kept, b/other.

  auto other = Store::Open(options_);
  ASSERT_TRUE(other.ok());
  auto ov = (*other)->OpenView("alice", "s1");
  ASSERT_TRUE(ov.ok());
  ASSERT_TRUE(ov->Promote("a/draft").ok());          // agent -> global
  ASSERT_TRUE(ov->Rename("a/kept", "b/kept").ok());  // leaves prefix a/
  ASSERT_TRUE(ov->Remove("b/other").ok());

  FindResult r = Find("tapir", global);
  ASSERT_EQ(r.hits.size(), 2u);
  EXPECT_EQ(r.variables_covered, 2u);  // One in, one out, one renamed.
  std::set<std::string> keys;
  for (const FindHit& h : r.hits) keys.insert(h.key);
  EXPECT_EQ(keys, (std::set<std::string>{"a/draft", "b/kept"}));
  for (const FindHit& h : r.hits) EXPECT_TRUE(h.ref.scope.is_global());
  r = Find("tapir", only_a);
  ASSERT_EQ(r.hits.size(), 1u);
  EXPECT_EQ(r.hits[0].key, "a/draft");
  EXPECT_TRUE(r.hits[0].ref.scope.is_global());
  EXPECT_EQ(r.variables_covered, 1u);
}

// index.db is derived from one store: a new store at the same home starts
// from an empty index rather than ranking the old store's rows.
TEST_F(FindRelevantTest, ANewStoreAtTheSameHomeStartsAFreshIndex) {
  Put("doc", "okapi facts");
  ASSERT_EQ(Find("okapi").hits.size(), 1u);
  view_.reset();
  store_.reset();
  for (const char* f : {"/ctxkit.db", "/ctxkit.db-wal", "/ctxkit.db-shm"}) {
    std::filesystem::remove(options_.home + f);
  }
  Reopen();
  Put("doc2", "zebra facts");
  EXPECT_TRUE(Find("okapi").hits.empty());
  ASSERT_EQ(Find("zebra").hits.size(), 1u);
}

}  // namespace
}  // namespace ctxkit::testing
