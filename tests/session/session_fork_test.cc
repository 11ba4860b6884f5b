// Session::Fork: a new session from a recorded render of another. The
// child's first render is the parent's replay of that record, the parent
// is unchanged, the child continues the log, and what it shares with the
// parent survives the parent's removal and a garbage collection.

#include <gtest/gtest.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ctxkit/session.h"
#include "ctxkit/store.h"
#include "session/log_builders.h"
#include "session/session_test_util.h"
#include "store/stored_sessions.h"

namespace ctxkit {
namespace {

using nlohmann::json;
using testing::OpenAILog;
using testing::OpenAITurn;
using testing::SessionStoreFixture;

constexpr uint64_t kBudget = 3000;
constexpr int kTurns = 8;

class SessionForkTest : public SessionStoreFixture {
 protected:
  // Session `id`: a tracked, an active and a pinned global object, then
  // kTurns turns of a log, each ingested whole and rendered at kBudget
  // (budget pressure collapses and compacts along the way). Returns the
  // requests, record n at [n - 1].
  std::vector<std::string> RenderedParent(const std::string& id) {
    EXPECT_TRUE(view().Set("notes/plan", "step one\nstep two\n").ok());
    EXPECT_TRUE(view().Set("notes/todo", "fix the parser\n").ok());
    EXPECT_TRUE(view().Set("notes/spec", "the spec, version one\n").ok());
    parent_ = NewSession(id);
    EXPECT_TRUE(parent_->Track("notes/plan").ok());
    EXPECT_TRUE(parent_->Activate("notes/todo").ok());
    EXPECT_TRUE(parent_->Pin("notes/spec").ok());
    std::vector<std::string> requests;
    for (int t = 1; t <= kTurns; ++t) {
      auto ingested =
          parent_->Ingest(OpenAILog(t, 40).dump(), LogFormat::kOpenAI);
      EXPECT_TRUE(ingested.ok()) << ingested.status().ToString();
      auto r = parent_->Render({.budget_tokens = kBudget});
      EXPECT_TRUE(r.ok()) << r.status().ToString();
      requests.push_back(r.ok() ? r->request_json : "");
    }
    return requests;
  }

  std::unique_ptr<Session> Fork(const std::string& parent, uint64_t n,
                                const std::string& child) {
    auto s = Session::Fork(store(), parent, n, child);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    return s.ok() ? std::move(*s) : nullptr;
  }

  static std::string Request(Result<RenderResult> r) {
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? r->request_json : "";
  }

  // The messages of turn `t` (OpenAITurn) as an append.
  static std::string Turn(int t) { return OpenAITurn(t, 40).dump(); }

  std::unique_ptr<Session> parent_;
};

TEST_F(SessionForkTest, TheChildsFirstRenderIsTheParentsReplay) {
  const std::vector<std::string> rendered = RenderedParent("p");
  auto snap = parent_->Snapshot();
  ASSERT_TRUE(snap.ok());
  ASSERT_FALSE(snap->compactions.empty()) << "the log must compact";
  for (uint64_t n = 1; n <= rendered.size(); ++n) {
    const std::string child = "c" + std::to_string(n);
    auto c = Fork("p", n, child);
    ASSERT_NE(c, nullptr);
    EXPECT_TRUE(Request(c->Render({.budget_tokens = kBudget})) ==
                rendered[n - 1])
        << "record " << n;
    // The child's own record 1 replays what it rendered.
    EXPECT_TRUE(Request(c->Replay(1)) == rendered[n - 1]) << "record " << n;
  }
}

TEST_F(SessionForkTest, TheChildRendersLikeTheParentInAnotherFormat) {
  RenderedParent("p");
  auto r =
      parent_->Render({.budget_tokens = 5000, .format = LogFormat::kAnthropic});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  auto c = Fork("p", r->record, "c");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(Request(c->Render(
                {.budget_tokens = 5000, .format = LogFormat::kAnthropic})),
            r->request_json);
}

// The parent's log is rewritten after record 1 and an output gets a new
// version: the child shows the version record 1 showed.
TEST_F(SessionForkTest, TheChildKeepsTheVersionsTheRenderShowed) {
  auto p = NewSession("p");
  ASSERT_TRUE(p->Ingest(OpenAILog(2).dump(), LogFormat::kOpenAI).ok());
  const std::string first = Request(p->Render({.budget_tokens = 20000}));
  json log = OpenAILog(2);
  log["messages"][3]["content"] = "a different output\n";
  auto rewritten = p->Ingest(log.dump(), LogFormat::kOpenAI);
  ASSERT_TRUE(rewritten.ok() && rewritten->reset);
  const std::string second = Request(p->Render({.budget_tokens = 20000}));
  ASSERT_NE(second.find("a different output"), std::string::npos);
  auto c = Fork("p", 1, "c");
  ASSERT_NE(c, nullptr);
  EXPECT_TRUE(Request(c->Render({.budget_tokens = 20000})) == first);
  auto c2 = Fork("p", 2, "c2");
  ASSERT_NE(c2, nullptr);
  EXPECT_TRUE(Request(c2->Render({.budget_tokens = 20000})) == second);
}

TEST_F(SessionForkTest, TheParentIsUnchanged) {
  const std::vector<std::string> rendered = RenderedParent("p");
  auto before = parent_->Snapshot();
  ASSERT_TRUE(before.ok());
  auto c = Fork("p", 3, "c");
  ASSERT_NE(c, nullptr);
  ASSERT_TRUE(c->IngestAppend(Turn(3), LogFormat::kOpenAI).ok());
  ASSERT_TRUE(c->Render({.budget_tokens = kBudget}).ok());
  auto reopened = Session::Open(store(), "p");
  ASSERT_TRUE(reopened.ok());
  auto after = (*reopened)->Snapshot();
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->generation, before->generation);
  EXPECT_EQ(after->chat_version, before->chat_version);
  EXPECT_EQ(after->ingested_items, before->ingested_items);
  EXPECT_EQ(after->renders, before->renders);
  ASSERT_EQ(after->entries.size(), before->entries.size());
  for (size_t i = 0; i < after->entries.size(); ++i) {
    EXPECT_EQ(after->entries[i].ref, before->entries[i].ref);
    EXPECT_EQ(after->entries[i].active, before->entries[i].active);
  }
  for (uint64_t n = 1; n <= rendered.size(); ++n) {
    EXPECT_EQ(Request((*reopened)->Replay(n)), rendered[n - 1]) << n;
  }
  // Its next render continues as it would have.
  EXPECT_EQ(Request((*reopened)->Render({.budget_tokens = kBudget})),
            rendered.back());
}

TEST_F(SessionForkTest, TheChildContinuesTheLogWhereTheRenderStood) {
  RenderedParent("p");
  auto c = Fork("p", 3, "c");  // Record 3 was rendered after turns 0-2.
  ASSERT_NE(c, nullptr);
  auto snap = c->Snapshot();
  ASSERT_TRUE(snap.ok());
  EXPECT_EQ(snap->ingest_format, "openai");
  EXPECT_EQ(snap->ingested_items, 1u + 3 * 4);
  // A different fourth turn than the parent's.
  json turn = OpenAITurn(3, 40);
  turn[0]["content"] = "Something else entirely";
  auto appended = c->IngestAppend(turn.dump(), LogFormat::kOpenAI);
  ASSERT_TRUE(appended.ok()) << appended.status().ToString();
  EXPECT_FALSE(appended->reset);
  EXPECT_EQ(appended->messages_added, 4u);
  const std::string first = Request(c->Render({.budget_tokens = kBudget}));
  EXPECT_NE(first.find("Something else entirely"), std::string::npos);
  // The whole log of that branch is recognized as the same prefix.
  json log = OpenAILog(3, 40);
  for (const json& m : turn) log["messages"].push_back(m);
  auto whole = c->Ingest(log.dump(), LogFormat::kOpenAI);
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();
  EXPECT_FALSE(whole->reset);
  EXPECT_EQ(whole->messages_added, 0u);
  ASSERT_TRUE(c->IngestAppend(Turn(4), LogFormat::kOpenAI).ok());
  const std::string second = Request(c->Render({.budget_tokens = kBudget}));
  // The child's records replay, in another instance too.
  auto again = Session::Open(store(), "c");
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(Request((*again)->Replay(1)) == first);
  EXPECT_TRUE(Request((*again)->Replay(2)) == second);
}

TEST_F(SessionForkTest, ASharedOutputCanBeActivatedAndExpandedInTheChild) {
  RenderedParent("p");
  auto c = Fork("p", kTurns, "c");
  ASSERT_NE(c, nullptr);
  auto snap = c->Snapshot();
  ASSERT_TRUE(snap.ok());
  ASSERT_FALSE(snap->compactions.empty());
  auto expanded = c->Expand(snap->compactions.front().ref);
  ASSERT_TRUE(expanded.ok()) << expanded.status().ToString();
  EXPECT_NE(expanded->find("thing 0"), std::string::npos);
  std::string hidden;
  for (const PoolEntry& e : snap->entries) {
    if (e.from_chat && !e.active) hidden = e.ref;
  }
  ASSERT_FALSE(hidden.empty()) << "an output must be hidden";
  ASSERT_TRUE(c->Activate(hidden).ok());
  const std::string r = Request(c->Render({.budget_tokens = 20000}));
  EXPECT_NE(r, "");
}

// A record written before records kept the ingest cursor: session p's
// record stream is rewritten without it (under a new key its state names).
TEST_F(SessionForkTest, ARecordWithoutTheCursorGivesTheChildAFreshOne) {
  const std::vector<std::string> rendered = RenderedParent("p");
  View pv = *store().OpenView("", "p");
  auto page =
      pv.List({.scope = "session", .key_prefix = "ctxkit.session/renders/"});
  ASSERT_TRUE(page.ok() && page->items.size() == 1);
  auto stream = pv.Get(page->items.front().key, {.scope = "session"});
  ASSERT_TRUE(stream.ok());
  const std::string legacy = "ctxkit.session/renders/0000000000000000";
  for (size_t at = 0; at < stream->size();) {
    const size_t nl = stream->find('\n', at);
    json rec = json::parse(stream->substr(at, nl - at));
    ASSERT_TRUE(rec.contains("cursor"));
    rec.erase("cursor");
    ASSERT_TRUE(pv.Append(legacy, rec.dump() + "\n",
                          {.scope = "session", .type = ValueType::kStream})
                    .ok());
    at = nl + 1;
  }
  StoredSessions stored(store());
  auto row = stored.LoadSession("p");
  ASSERT_TRUE(row.ok());
  json state = json::parse(row->state_json);
  state["records_key"] = legacy;
  ASSERT_TRUE(stored
                  .WriteSession({.id = "p",
                                 .expected_generation = row->generation,
                                 .state_json = state.dump()})
                  .ok());

  auto c = Fork("p", 3, "c");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(Request(c->Render({.budget_tokens = kBudget})), rendered[2]);
  auto snap = c->Snapshot();
  ASSERT_TRUE(snap.ok());
  EXPECT_EQ(snap->ingested_items, 0u);
  EXPECT_EQ(snap->chat_messages, 3u * 4);
  // Appends continue the forked chat...
  auto appended = c->IngestAppend(Turn(3), LogFormat::kOpenAI);
  ASSERT_TRUE(appended.ok()) << appended.status().ToString();
  EXPECT_EQ(appended->messages_added, 4u);
  // ... and the next whole log rebuilds it.
  auto whole = c->Ingest(OpenAILog(5, 40).dump(), LogFormat::kOpenAI);
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();
  EXPECT_TRUE(whole->reset);
  snap = c->Snapshot();
  ASSERT_TRUE(snap.ok());
  EXPECT_EQ(snap->chat_messages, 5u * 4);
  EXPECT_TRUE(snap->compactions.empty());
  EXPECT_TRUE(c->Render({.budget_tokens = kBudget}).ok());
}

TEST_F(SessionForkTest, BadInputIsRefusedAndChangesNothing) {
  RenderedParent("p");
  ASSERT_NE(NewSession("taken"), nullptr);
  auto before = Session::List(store());
  ASSERT_TRUE(before.ok());
  auto code = [&](std::string_view parent, uint64_t n, std::string_view child) {
    return Session::Fork(store(), parent, n, child).status().code();
  };
  EXPECT_EQ(code("p", 0, "c"), StatusCode::kInvalidArgument);
  EXPECT_EQ(code("p", kTurns + 1, "c"), StatusCode::kNotFound);
  EXPECT_EQ(code("nobody", 1, "c"), StatusCode::kNotFound);
  EXPECT_EQ(code("p", 1, "taken"), StatusCode::kAlreadyExists);
  EXPECT_EQ(code("p", 1, "p"), StatusCode::kAlreadyExists);
  EXPECT_EQ(code("p", 1, "bad id!"), StatusCode::kInvalidArgument);
  EXPECT_EQ(code("bad id!", 1, "c"), StatusCode::kInvalidArgument);
  EXPECT_EQ(code("p", 1, ""), StatusCode::kInvalidArgument);
  auto after = Session::List(store());
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(*after, *before);
  auto none = view().List({.scope = "session:c"});
  EXPECT_TRUE(!none.ok() || none->items.empty());
}

TEST_F(SessionForkTest, TheChildOutlivesTheParentAndACollection) {
  const std::vector<std::string> rendered = RenderedParent("p");
  auto c = Fork("p", kTurns, "c");
  ASSERT_NE(c, nullptr);
  const std::string first = Request(c->Render({.budget_tokens = kBudget}));
  ASSERT_EQ(first, rendered.back());
  auto snap = c->Snapshot();
  ASSERT_TRUE(snap.ok());
  ASSERT_FALSE(snap->compactions.empty());
  const std::string compaction = snap->compactions.front().ref;
  auto expanded = c->Expand(compaction);
  ASSERT_TRUE(expanded.ok());
  parent_.reset();
  ASSERT_TRUE(Session::Remove(store(), "p").ok());
  GarbageOptions gc;
  gc.retention_seconds = 0;
  gc.apply = true;
  auto collected = store().CollectGarbage(gc);
  ASSERT_TRUE(collected.ok()) << collected.status().ToString();
  EXPECT_GT(collected->versions, 0u) << "the parent's own versions go";
  auto reopened = Session::Open(store(), "c");
  ASSERT_TRUE(reopened.ok());
  EXPECT_EQ(Request((*reopened)->Replay(1)), first);
  EXPECT_EQ(Request((*reopened)->Render({.budget_tokens = kBudget})), first);
  auto again = (*reopened)->Expand(compaction);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(*again, *expanded);
  ASSERT_TRUE((*reopened)->IngestAppend(Turn(kTurns), LogFormat::kOpenAI).ok());
  EXPECT_TRUE((*reopened)->Render({.budget_tokens = kBudget}).ok());
  auto pins = (*reopened)->PinnedRefs();
  ASSERT_TRUE(pins.ok()) << pins.status().ToString();
}

}  // namespace
}  // namespace ctxkit
