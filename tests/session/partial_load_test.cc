// A session loads only the entries a render needs (the hot ones and the
// first listed ones); every other entry is read when something touches it.
// Each test compares what a freshly opened session does with what the
// same session does once every entry is loaded (Snapshot loads them all).

#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ctxkit/session.h"
#include "session/log_builders.h"
#include "session/session_impl.h"
#include "session/session_test_util.h"
#include "storage/backend.h"
#include "store/store_backend.h"
#include "store/store_internals.h"

namespace ctxkit {
namespace {

using nlohmann::json;
using testing::OpenAILog;
using testing::SessionStoreFixture;

// More than a load reads beyond the hot entries (512).
constexpr int kObjects = 1200;

std::string Key(int i) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "docs/%05d", i);
  return buf;
}

class PartialLoadTest : public SessionStoreFixture {
 protected:
  // kObjects objects, all tracked by session `id`, in key order.
  void TrackMany(const std::string& id) {
    std::vector<std::string> keys;
    for (int i = 0; i < kObjects; ++i) {
      keys.push_back(Key(i));
      ASSERT_TRUE(view().Set(Key(i), "value of " + Key(i)).ok());
    }
    auto s = NewSession(id);
    ASSERT_NE(s, nullptr);
    ASSERT_TRUE(s->TrackMany(keys).ok());
  }
  std::unique_ptr<Session> Reopen(const std::string& id) {
    auto s = Session::Open(store(), id);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    return s.ok() ? std::move(*s) : nullptr;
  }
  // The render of a fresh instance, and of another one with every entry
  // loaded first: they must be the same.
  void ExpectSameRender(const std::string& id, uint64_t budget) {
    auto fresh = Reopen(id);
    auto whole = Reopen(id);
    ASSERT_TRUE(whole->Snapshot().ok());
    const RenderOptions o{.budget_tokens = budget, .record = false};
    auto b = whole->Render(o);
    auto a = fresh->Render(o);
    ASSERT_TRUE(a.ok()) << a.status().ToString();
    ASSERT_TRUE(b.ok()) << b.status().ToString();
    EXPECT_EQ(a->request_json, b->request_json);
    EXPECT_EQ(a->index_listed, b->index_listed);
    EXPECT_EQ(a->index_total, b->index_total);
    EXPECT_EQ(a->tokens, b->tokens);
  }
  const PoolEntry* Find(const SessionSnapshot& snap, const std::string& key) {
    for (const auto& e : snap.entries) {
      if (e.key == key) return &e;
    }
    return nullptr;
  }
};

TEST_F(PartialLoadTest, AFreshSessionRendersAsIfWhollyLoaded) {
  TrackMany("s");
  {
    auto s = Reopen("s");
    ASSERT_TRUE(s->Activate(Key(5)).ok());
    ASSERT_TRUE(s->Activate(Key(1100)).ok());
    ASSERT_TRUE(s->Pin(Key(700)).ok());
  }
  OpenStore();  // As a new process would.
  ExpectSameRender("s", 100000);
  auto r = Reopen("s")->Render({.budget_tokens = 100000, .record = false});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->index_total, static_cast<uint64_t>(kObjects));
  EXPECT_GT(r->index_listed, 0u);
  EXPECT_LT(r->index_listed, static_cast<uint64_t>(kObjects));
  // The first listed entries, in join order; the active and pinned ones
  // late in that order are shown all the same.
  EXPECT_NE(r->request_json.find(Key(0) + " v1"), std::string::npos);
  EXPECT_EQ(r->request_json.find(Key(1199) + " v1"), std::string::npos);
  EXPECT_NE(r->request_json.find("value of " + Key(1100)), std::string::npos);
  EXPECT_NE(r->request_json.find("value of " + Key(700)), std::string::npos);
  // A budget that leaves room for few index lines.
  ExpectSameRender("s", r->tokens - r->breakdown.index + 200);
}

TEST_F(PartialLoadTest, AnEntryNotLoadedIsFoundWhenTouched) {
  TrackMany("s");
  OpenStore();
  auto before = Reopen("s")->Snapshot();
  ASSERT_TRUE(before.ok());
  const PoolEntry* late = Find(*before, Key(1150));
  ASSERT_NE(late, nullptr);
  const uint64_t seq = late->seq;

  auto s = Reopen("s");
  // Activating keeps the entry (its seq), not a second one.
  ASSERT_TRUE(s->Activate(Key(1150)).ok());
  EXPECT_TRUE(s->Unpin(Key(1000)).IsNotFound());
  ASSERT_TRUE(view().Set("docs/new", "new").ok());
  ASSERT_TRUE(s->Track("docs/new").ok());
  auto r = s->Render({.budget_tokens = 100000, .record = false});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->index_total, static_cast<uint64_t>(kObjects) + 1);
  EXPECT_NE(r->request_json.find("value of " + Key(1150)), std::string::npos);

  auto after = Reopen("s")->Snapshot();
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->entries.size(), static_cast<size_t>(kObjects) + 1);
  const PoolEntry* e = Find(*after, Key(1150));
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->seq, seq);
  EXPECT_TRUE(e->active);
  ExpectSameRender("s", 100000);

  s = Reopen("s");
  ASSERT_TRUE(s->Deactivate(Key(1150)).ok());
  ASSERT_TRUE(s->Pin(Key(1160)).ok());
  ASSERT_TRUE(Reopen("s")->Unpin(Key(1160)).ok());
  ASSERT_TRUE(view().Set("docs/untracked", "u").ok());
  Status untracked = Reopen("s")->Deactivate("docs/untracked");
  EXPECT_TRUE(untracked.IsNotFound()) << untracked.ToString();
  EXPECT_NE(untracked.message().find("is not in session"), std::string::npos);
  auto last = Reopen("s")->Snapshot();
  ASSERT_TRUE(last.ok());
  EXPECT_FALSE(Find(*last, Key(1150))->active);
  EXPECT_EQ(Find(*last, Key(1160))->pinned_version, 0u);
  ExpectSameRender("s", 100000);
}

// Loads that bring fewer listed entries than the index shows (the index
// then reads the rest), with hot entries past the ones loaded.
TEST_F(PartialLoadTest, AnIndexLongerThanTheLoadReadsTheRest) {
  TrackMany("s");
  {
    auto s = Reopen("s");
    ASSERT_TRUE(s->Activate(Key(40)).ok());
    ASSERT_TRUE(s->Pin(Key(900)).ok());
  }
  SessionImpl::SetListedLoadForTesting(10);
  OpenStore();
  ExpectSameRender("s", 100000);
  auto r = Reopen("s")->Render({.budget_tokens = 100000, .record = false});
  SessionImpl::SetListedLoadForTesting(0);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->index_total, static_cast<uint64_t>(kObjects));
  EXPECT_GT(r->index_listed, 10u);
  // The lines are in join order: docs/00011 right after docs/00010.
  const size_t at10 = r->request_json.find("- " + Key(10) + " v1");
  ASSERT_NE(at10, std::string::npos);
  EXPECT_EQ(r->request_json.find("- " + Key(11) + " v1"),
            r->request_json.find("\\n", at10) + 2);
  // Caps that end the index just past the entries loaded: the hot ones
  // loaded beyond them must not take the places of those between.
  for (uint64_t cap : {250, 300, 350, 400, 450, 500, 600}) {
    SessionPolicy policy;
    policy.index_max_tokens = cap;
    ASSERT_TRUE(Reopen("s")->SetPolicy(policy).ok());
    SessionImpl::SetListedLoadForTesting(10);
    ExpectSameRender("s", 100000);
    SessionImpl::SetListedLoadForTesting(0);
  }
}

// A compaction marks every output of the turns it folds, also those no
// longer active (so not loaded): activated again later, such an output is
// shown in the tail, not looked for in the folded chat.
TEST_F(PartialLoadTest, ACompactionMarksOutputsThatWereNotLoaded) {
  {
    auto s = NewSession("c", {.keep_tool_outputs = 2,
                              .min_collapse_tokens = 0,
                              .keep_turns = 1,
                              .compaction_summary_tokens = 40});
    ASSERT_NE(s, nullptr);
    ASSERT_TRUE(s->Ingest(OpenAILog(4, 30).dump(), LogFormat::kOpenAI).ok());
  }
  auto snap = Reopen("c")->Snapshot();
  ASSERT_TRUE(snap.ok());
  std::string first_output;
  for (const PoolEntry& e : snap->entries) {
    if (e.from_chat) {
      first_output = e.key;
      break;
    }
  }
  ASSERT_FALSE(first_output.empty());
  ASSERT_TRUE(Reopen("c")->Deactivate(first_output).ok());
  OpenStore();
  auto r = Reopen("c")->Render({.budget_tokens = 700});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_FALSE(r->compacted.ref.empty());
  ASSERT_EQ(r->compacted.first_message, 0u);
  auto after = Reopen("c")->Snapshot();
  ASSERT_TRUE(after.ok());
  const PoolEntry* e = Find(*after, first_output);
  ASSERT_NE(e, nullptr);
  EXPECT_TRUE(e->compacted);
  EXPECT_FALSE(e->active);
}

// The listed count the state keeps, against the pool itself.
TEST_F(PartialLoadTest, TheListedCountFollowsEveryChange) {
  auto listed_in_pool = [&]() -> uint64_t {
    auto snap = Reopen("c")->Snapshot();
    EXPECT_TRUE(snap.ok());
    uint64_t n = 0;
    for (const PoolEntry& e : snap->entries) n += !e.locked && !e.from_chat;
    return n;
  };
  auto rendered_total = [&]() -> uint64_t {
    auto r = Reopen("c")->Render({.budget_tokens = 100000, .record = false});
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? r->index_total : UINT64_MAX;
  };
  auto s = NewSession("c");
  ASSERT_NE(s, nullptr);
  ASSERT_TRUE(s->Ingest(OpenAILog(4).dump(), LogFormat::kOpenAI).ok());
  std::vector<std::string> keys;
  for (int i = 0; i < 30; ++i) {
    keys.push_back(Key(i));
    ASSERT_TRUE(view().Set(Key(i), "v").ok());
  }
  ASSERT_TRUE(s->TrackMany(keys).ok());
  ASSERT_TRUE(s->Pin(Key(3)).ok());
  EXPECT_EQ(rendered_total(), 30u);
  EXPECT_EQ(listed_in_pool(), 30u);
  // The last turn's output, activated by hand, stays when a rewritten log
  // drops its turn: no longer from the chat, so listed.
  std::string last_output;
  auto snap = Reopen("c")->Snapshot();
  ASSERT_TRUE(snap.ok());
  for (const PoolEntry& e : snap->entries) {
    if (e.from_chat) last_output = e.key;
  }
  ASSERT_TRUE(Reopen("c")->Activate(last_output).ok());
  json rewritten = OpenAILog(3);
  rewritten["messages"][1]["content"] = "A different first question";
  auto rep = Reopen("c")->Ingest(rewritten.dump(), LogFormat::kOpenAI);
  ASSERT_TRUE(rep.ok()) << rep.status().ToString();
  ASSERT_TRUE(rep->reset);
  EXPECT_EQ(listed_in_pool(), 31u);
  EXPECT_EQ(rendered_total(), 31u);

  // A state written before the count was kept: counted on load, kept again
  // by the next write.
  storage::Backend& backend = BackendOf(store());
  auto rec = backend.LoadSession("c");
  ASSERT_TRUE(rec.ok());
  json state = json::parse(rec->state_json);
  ASSERT_EQ(state["listed_entries"], 31);
  state.erase("listed_entries");
  storage::SessionWrite w;
  w.id = "c";
  w.expected_generation = rec->generation;
  w.state_json = state.dump();
  ASSERT_TRUE(backend.WriteSession(w).ok());
  EXPECT_EQ(rendered_total(), 31u);
  ASSERT_TRUE(Reopen("c")->Unpin(Key(3)).ok());
  rec = backend.LoadSession("c");
  ASSERT_TRUE(rec.ok());
  EXPECT_EQ(json::parse(rec->state_json)["listed_entries"], 31);
}

}  // namespace
}  // namespace ctxkit
