// SessionPolicy's options beyond budget pressure: seed 004's collapse at
// ingestion (the newest keep_tool_outputs outputs stay active, older ones
// collapse whatever the budget), and relief ahead of the trigger once the
// provider's prompt cache has expired (cache_ttl_seconds).

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

#include "ctxkit/session.h"
#include "session/log_builders.h"
#include "session/session_test_util.h"

namespace ctxkit {
namespace {

struct PoolCounts {
  int active = 0;
  int collapsed = 0;
};

PoolCounts Outputs(Session& s) {
  PoolCounts c;
  auto snap = s.Snapshot();
  EXPECT_TRUE(snap.ok()) << snap.status().ToString();
  if (!snap.ok()) return c;
  for (const PoolEntry& e : snap->entries) {
    if (e.kind != "toolcall") continue;
    c.active += e.active ? 1 : 0;
    c.collapsed += e.collapsed ? 1 : 0;
  }
  return c;
}

// The static ref of the output of turn `t` (OpenAITurn's call_<t>).
std::string OutputRef(Session& s, int t) {
  auto snap = s.Snapshot();
  EXPECT_TRUE(snap.ok());
  for (const PoolEntry& e : snap->entries) {
    if (e.kind == "toolcall" && e.key.ends_with("call_" + std::to_string(t))) {
      return e.ref;
    }
  }
  return "";
}

class PolicyOptionsTest : public testing::SessionStoreFixture {
 protected:
  void AddTurn(Session& s, int t, int lines = 20) {
    auto r = s.IngestAppend(testing::OpenAITurn(t, lines).dump(),
                            LogFormat::kOpenAI);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
};

TEST_F(PolicyOptionsTest, CollapseAtIngestionKeepsTheNewestOutputs) {
  SessionPolicy p;
  p.keep_tool_outputs = 2;
  p.collapse_at_ingestion = true;
  auto s = NewSession("seed004", p);
  auto plain = NewSession("pressure");  // The default: budget pressure only.
  ASSERT_TRUE(s && plain);
  for (int t = 0; t < 5; ++t) {
    AddTurn(*s, t);
    AddTurn(*plain, t);
    PoolCounts c = Outputs(*s);
    EXPECT_EQ(c.active, std::min(t + 1, 2)) << "turn " << t;
    EXPECT_EQ(c.collapsed, std::max(0, t + 1 - 2)) << "turn " << t;
    EXPECT_EQ(Outputs(*plain).active, t + 1);
  }
  // No budget pressure in sight: the collapsed ones are placeholders.
  auto r = s->Render({.budget_tokens = 1'000'000});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_GT(r->breakdown.placeholders, 0u);
  EXPECT_NE(r->request_json.find("[grep output hidden, "), std::string::npos);
  EXPECT_TRUE(r->collapsed.empty());  // Collapsed at ingestion, not here.

  // An output a user activated, or pinned, stays whatever comes next.
  ASSERT_TRUE(s->Activate(OutputRef(*s, 0)).ok());
  ASSERT_TRUE(s->Pin(OutputRef(*s, 1)).ok());
  AddTurn(*s, 5);
  AddTurn(*s, 6);
  auto snap = s->Snapshot();
  ASSERT_TRUE(snap.ok());
  for (const PoolEntry& e : snap->entries) {
    if (e.key.ends_with("call_0")) {
      EXPECT_TRUE(e.active) << e.key;
    } else if (e.key.ends_with("call_1")) {
      EXPECT_NE(e.pinned_version, 0u) << e.key;
    } else if (e.key.ends_with("call_4")) {
      EXPECT_TRUE(e.collapsed) << e.key;
    } else if (e.key.ends_with("call_6")) {
      EXPECT_TRUE(e.active) << e.key;
    }
  }
}

TEST_F(PolicyOptionsTest, TheNewestOutputsStayActiveWithKeepZero) {
  SessionPolicy p;
  p.keep_tool_outputs = 0;
  p.collapse_at_ingestion = true;
  auto s = NewSession("keep0", p);
  ASSERT_TRUE(s);
  for (int t = 0; t < 3; ++t) AddTurn(*s, t);
  PoolCounts c = Outputs(*s);
  EXPECT_EQ(c.active, 1);
  EXPECT_EQ(c.collapsed, 2);
}

TEST_F(PolicyOptionsTest, TheOptionsPersistAndAreValidated) {
  SessionPolicy p;
  p.collapse_at_ingestion = true;
  p.cache_ttl_seconds = 60;
  ASSERT_TRUE(NewSession("kept", p));
  OpenStore();
  auto s = Session::Open(store(), "kept");
  ASSERT_TRUE(s.ok());
  auto snap = (*s)->Snapshot();
  ASSERT_TRUE(snap.ok());
  EXPECT_TRUE(snap->policy.collapse_at_ingestion);
  EXPECT_EQ(snap->policy.cache_ttl_seconds, 60u);
  p.cache_ttl_seconds = 86'401;
  EXPECT_TRUE(Session::Create(store(), "bad", p).status().IsInvalidArgument());
}

// Between the target (50%) and the trigger (100%), a render relieves only
// when the previous recorded render is older than the cache lifetime.
TEST_F(PolicyOptionsTest, ACacheGoneColdRelievesAheadOfTheTrigger) {
  SessionPolicy p;
  p.keep_tool_outputs = 1;
  p.cache_ttl_seconds = 1;
  SessionPolicy never = p;
  never.cache_ttl_seconds = 0;
  auto cold = NewSession("cold", p);
  auto warm = NewSession("never", never);
  ASSERT_TRUE(cold && warm);
  for (int t = 0; t < 8; ++t) {
    AddTurn(*cold, t, 40);
    AddTurn(*warm, t, 40);
  }
  auto probe = cold->Render({.budget_tokens = 1'000'000, .record = false});
  ASSERT_TRUE(probe.ok());
  const uint64_t budget = probe->tokens * 100 / 70;  // Uses about 70%.
  for (Session* s : {cold.get(), warm.get()}) {
    auto first = s->Render({.budget_tokens = budget});
    ASSERT_TRUE(first.ok()) << first.status().ToString();
    EXPECT_TRUE(first->collapsed.empty());
    EXPECT_GT(first->tokens, budget / 2);
    auto again = s->Render({.budget_tokens = budget});
    ASSERT_TRUE(again.ok());
    EXPECT_TRUE(again->collapsed.empty());  // Still warm.
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(1200));
  auto relieved = cold->Render({.budget_tokens = budget});
  ASSERT_TRUE(relieved.ok()) << relieved.status().ToString();
  EXPECT_FALSE(relieved->collapsed.empty());
  EXPECT_LE(relieved->tokens, budget / 2);
  auto kept = warm->Render({.budget_tokens = budget});
  ASSERT_TRUE(kept.ok());
  EXPECT_TRUE(kept->collapsed.empty());
  EXPECT_GT(kept->tokens, budget / 2);
  // The relief is recorded: the next render, warm again, keeps it.
  auto next = cold->Render({.budget_tokens = budget});
  ASSERT_TRUE(next.ok());
  EXPECT_TRUE(next->collapsed.empty());
  EXPECT_EQ(next->request_json, relieved->request_json);
}

}  // namespace
}  // namespace ctxkit
