// Sessions: pools, locks, pins, ingestion, policy and rendering.

#include "ctxkit/session.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ctxkit/tokenizer.h"
#include "ctxkit/toolcall.h"
#include "session/log_builders.h"
#include "session/session_test_util.h"

namespace ctxkit {
namespace {

using nlohmann::json;
using testing::AnthropicLog;
using testing::OpenAILog;
using testing::SessionStoreFixture;

class SessionTest : public SessionStoreFixture {
 protected:
  RenderResult MustRender(Session& s, uint64_t budget,
                          LogFormat format = LogFormat::kOpenAI) {
    auto r = s.Render({.budget_tokens = budget, .format = format});
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : RenderResult{};
  }
  const PoolEntry* Find(const SessionSnapshot& snap, const std::string& key) {
    for (const auto& e : snap.entries) {
      if (e.key == key) return &e;
    }
    return nullptr;
  }
};

// Every text string the request carries, counted independently of the
// renderer: the documented counting rule.
uint64_t CountRequest(const std::string& request_json) {
  const Tokenizer* tok = *Tokenizer::Get();
  json req = json::parse(request_json);
  uint64_t n = 0;
  if (req.contains("system")) {
    for (const auto& b : req["system"])
      n += tok->Count(b["text"].get<std::string>());
  }
  for (const auto& m : req["messages"]) {
    if (m["content"].is_string())
      n += tok->Count(m["content"].get<std::string>());
    if (m.contains("tool_calls")) {
      for (const auto& c : m["tool_calls"]) {
        n += tok->Count(c["function"]["name"].get<std::string>());
        n += tok->Count(c["function"]["arguments"].get<std::string>());
      }
    }
    if (m["content"].is_array()) {
      for (const auto& b : m["content"]) {
        std::string type = b["type"];
        if (type == "text") n += tok->Count(b["text"].get<std::string>());
        if (type == "tool_result") {
          n += tok->Count(b["content"].get<std::string>());
        }
        if (type == "tool_use") {
          n += tok->Count(b["name"].get<std::string>());
          n += tok->Count(b["input"].dump());
        }
      }
    }
  }
  return n;
}

TEST_F(SessionTest, CreateOpenList) {
  ASSERT_NE(NewSession("alpha"), nullptr);
  ASSERT_NE(NewSession("beta"), nullptr);
  EXPECT_EQ(Session::Create(store(), "alpha", {}).status().code(),
            StatusCode::kAlreadyExists);
  EXPECT_TRUE(
      Session::Create(store(), "bad/id", {}).status().IsInvalidArgument());
  EXPECT_TRUE(Session::Open(store(), "gamma").status().IsNotFound());
  auto ids = Session::List(store());
  ASSERT_TRUE(ids.ok());
  EXPECT_EQ(*ids, (std::vector<std::string>{"alpha", "beta"}));
}

TEST_F(SessionTest, LockedChatAndSystemCannotBeDeactivated) {
  auto s = NewSession("s1");
  ASSERT_TRUE(s->Ingest(OpenAILog(2).dump(), LogFormat::kOpenAI).ok());
  for (const char* locked : {"chat", "system"}) {
    Status st = s->Deactivate(locked);
    EXPECT_EQ(st.code(), StatusCode::kFailedPrecondition) << st.ToString();
    EXPECT_NE(st.message().find("locked"), std::string::npos) << st.message();
    EXPECT_EQ(s->Pin(locked).code(), StatusCode::kFailedPrecondition);
    EXPECT_TRUE(s->Activate(locked).ok());  // Always active: a no-op.
  }
  // Also when named by their ref.
  auto chat_ref = view().store()->OpenView("", "s1")->RefOf(
      "ctxkit.session/chat", {.scope = "session"});
  ASSERT_TRUE(chat_ref.ok());
  EXPECT_EQ(s->Deactivate(FormatRef(*chat_ref)).code(),
            StatusCode::kFailedPrecondition);
  // Rendering still shows the chat.
  RenderResult r = MustRender(*s, 100000);
  EXPECT_NE(r.request_json.find("Please look for thing 1"), std::string::npos);
}

TEST_F(SessionTest, ActivateDeactivateTrackAndErrors) {
  auto s = NewSession("s1");
  ASSERT_TRUE(view().Set("notes/a", "alpha note\nsecond line").ok());
  ASSERT_TRUE(view().Set("notes/b", "beta note").ok());
  ASSERT_TRUE(s->Activate("notes/a").ok());
  ASSERT_TRUE(s->Track("notes/b").ok());
  auto snap = s->Snapshot();
  ASSERT_TRUE(snap.ok());
  ASSERT_EQ(snap->entries.size(), 2u);
  EXPECT_TRUE(Find(*snap, "notes/a")->active);
  EXPECT_FALSE(Find(*snap, "notes/b")->active);
  EXPECT_EQ(Find(*snap, "notes/a")->title, "alpha note (2 lines)");
  RenderResult r = MustRender(*s, 10000);
  EXPECT_NE(r.request_json.find("[active notes/a v1 (latest)"),
            std::string::npos);
  EXPECT_NE(r.request_json.find("- notes/b v1 | text |"), std::string::npos);
  ASSERT_TRUE(s->Deactivate("notes/a").ok());
  r = MustRender(*s, 10000);
  EXPECT_EQ(r.request_json.find("[active notes/a"), std::string::npos);
  EXPECT_NE(r.request_json.find("- notes/a v1"), std::string::npos);
  EXPECT_TRUE(s->Activate("nope").IsNotFound());
  EXPECT_TRUE(s->Activate("bad\nkey").IsInvalidArgument());
  EXPECT_TRUE(s->Unpin("notes/a").IsNotFound());
  EXPECT_TRUE(s->Pin("notes/a", 7).IsNotFound());
  // The failed calls left the pools as they were.
  auto after = s->Snapshot();
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->entries.size(), 2u);
}

TEST_F(SessionTest, PinnedV1AndActiveV2Coexist) {
  auto s = NewSession("s1");
  ASSERT_TRUE(view().Set("doc", "version one text").ok());
  ASSERT_TRUE(s->Pin("doc").ok());  // Pins v1.
  ASSERT_TRUE(view().Set("doc", "version two text").ok());
  ASSERT_TRUE(s->Activate("doc").ok());  // Follows the latest: v2.
  RenderResult r = MustRender(*s, 10000);
  EXPECT_NE(r.request_json.find("[pinned doc v1"), std::string::npos);
  EXPECT_NE(r.request_json.find("version one text"), std::string::npos);
  EXPECT_NE(r.request_json.find("[active doc v2 (latest)"), std::string::npos);
  EXPECT_NE(r.request_json.find("version two text"), std::string::npos);
  ASSERT_EQ(r.conflicts.size(), 1u);
  EXPECT_EQ(r.conflicts[0].key, "doc");
  EXPECT_EQ(r.conflicts[0].pinned_version, 1u);
  EXPECT_EQ(r.conflicts[0].active_version, 2u);
  // Pinned first (stable prefix), active after.
  EXPECT_LT(r.request_json.find("version one text"),
            r.request_json.find("version two text"));
  // Activate with a version pins it; same version as latest: no conflict.
  ASSERT_TRUE(s->Activate("doc", 2).ok());
  r = MustRender(*s, 10000);
  EXPECT_TRUE(r.conflicts.empty());
  EXPECT_EQ(r.request_json.find("version one text"), std::string::npos);
  EXPECT_NE(r.request_json.find("[pinned doc v2"), std::string::npos);
}

TEST_F(SessionTest, RenderingIsDeterministicAcrossInstances) {
  auto s = NewSession("s1", {.keep_tool_outputs = 2,
                             .min_collapse_tokens = 0,
                             .compact_trigger_percent = 90});
  ASSERT_TRUE(view().Set("notes/x", "some note").ok());
  ASSERT_TRUE(s->Activate("notes/x").ok());
  ASSERT_TRUE(s->Ingest(OpenAILog(6).dump(), LogFormat::kOpenAI).ok());
  for (LogFormat f : {LogFormat::kOpenAI, LogFormat::kAnthropic}) {
    MustRender(*s, 3000, f);  // Budget pressure settles the state first.
    RenderResult a = MustRender(*s, 3000, f);
    RenderResult b = MustRender(*s, 3000, f);
    EXPECT_EQ(a.request_json, b.request_json);
    auto other = Session::Open(store(), "s1");
    ASSERT_TRUE(other.ok());
    RenderResult c = MustRender(**other, 3000, f);
    EXPECT_EQ(a.request_json, c.request_json);
    EXPECT_EQ(a.tokens, c.tokens);
  }
  // And from a freshly opened store (another process's view of the state).
  std::string before = MustRender(*s, 3000).request_json;
  s.reset();
  OpenStore();
  auto reopened = Session::Open(store(), "s1");
  ASSERT_TRUE(reopened.ok());
  EXPECT_EQ(MustRender(**reopened, 3000).request_json, before);
}

// Requests are serialized message by message, and a session keeps each
// message's serialized form between renders: the bytes must be the compact,
// sorted-key JSON of the whole request whether a message came from that
// cache, was built again, or was rebuilt by a replay.
TEST_F(SessionTest, RequestsAreCanonicalJsonCachedOrNot) {
  ASSERT_TRUE(view().Set("notes/pinned", "pinned \"quoted\" text").ok());
  ASSERT_TRUE(view().Set("notes/tail", "tail text \u00e9\n\ttabbed").ok());
  for (LogFormat f : {LogFormat::kOpenAI, LogFormat::kAnthropic}) {
    const std::string id = f == LogFormat::kOpenAI ? "o" : "a";
    auto s = NewSession(id);
    ASSERT_TRUE(s->Pin("notes/pinned").ok());
    ASSERT_TRUE(s->Activate("notes/tail").ok());
    json log = f == LogFormat::kOpenAI ? OpenAILog(5) : AnthropicLog(5);
    ASSERT_TRUE(s->Ingest(log.dump(), f).ok());
    auto same_everywhere = [&](const RenderResult& r) {
      EXPECT_EQ(r.request_json, json::parse(r.request_json).dump());
      auto other = Session::Open(store(), id);  // No cached messages.
      ASSERT_TRUE(other.ok());
      EXPECT_EQ(MustRender(**other, 100000, f).request_json, r.request_json);
      auto replay = s->Replay(r.record);
      ASSERT_TRUE(replay.ok()) << replay.status().ToString();
      EXPECT_EQ(replay->request_json, r.request_json);
    };
    RenderResult first = MustRender(*s, 100000, f);
    same_everywhere(first);
    RenderResult cached = MustRender(*s, 100000, f);
    EXPECT_EQ(cached.request_json, first.request_json);
    same_everywhere(cached);
    // An output's text changes (hidden): its message is built again.
    auto snap = s->Snapshot();
    ASSERT_TRUE(snap.ok());
    std::string output;
    for (const auto& e : snap->entries) {
      if (e.from_chat && e.active) output = e.key;
    }
    ASSERT_FALSE(output.empty());
    ASSERT_TRUE(s->Deactivate(output).ok());
    RenderResult changed = MustRender(*s, 100000, f);
    EXPECT_NE(changed.request_json, first.request_json);
    same_everywhere(changed);
    // More turns: old messages from the cache, new ones built.
    json more = f == LogFormat::kOpenAI ? OpenAILog(7) : AnthropicLog(7);
    ASSERT_TRUE(s->Ingest(more.dump(), f).ok());
    same_everywhere(MustRender(*s, 100000, f));
  }
}

TEST_F(SessionTest, BudgetNeverExceeded) {
  auto s = NewSession("s1", {.keep_tool_outputs = 4,
                             .min_collapse_tokens = 0,
                             .index_max_tokens = 300});
  for (int i = 0; i < 30; ++i) {
    ASSERT_TRUE(view()
                    .Set("obj/" + std::to_string(i),
                         "object " + std::to_string(i) + " body text")
                    .ok());
    ASSERT_TRUE(s->Track("obj/" + std::to_string(i)).ok());
  }
  ASSERT_TRUE(view().Set("big", testing::ToolOutput(99, 40)).ok());
  ASSERT_TRUE(s->Activate("big").ok());
  ASSERT_TRUE(s->Ingest(OpenAILog(8, 15).dump(), LogFormat::kOpenAI).ok());
  for (LogFormat f : {LogFormat::kOpenAI, LogFormat::kAnthropic}) {
    RenderResult all = MustRender(*s, 1'000'000, f);
    const uint64_t full = all.tokens;
    const uint64_t full_listed = all.index_listed;
    int ok = 0, exhausted = 0;
    // Budget pressure persists what it frees, so budgets go down.
    bool relieved = false;
    for (uint64_t budget = full + 50; budget >= 1 && budget <= full + 50;
         budget -= 37) {
      auto r = s->Render({.budget_tokens = budget, .format = f});
      if (!r.ok()) {
        EXPECT_EQ(r.status().code(), StatusCode::kFailedPrecondition)
            << r.status().ToString();
        ++exhausted;
        continue;
      }
      ++ok;
      EXPECT_LE(r->tokens, budget);
      EXPECT_EQ(CountRequest(r->request_json), r->tokens)
          << "budget " << budget;
      relieved = relieved || !r->collapsed.empty() || r->compacted_messages > 0;
      EXPECT_EQ(r->breakdown.Total(), r->tokens);
      if (r->tokens < full) {
        // Less than everything: something was dropped, listed less,
        // collapsed or compacted.
        EXPECT_TRUE(!r->dropped.empty() || r->index_listed < full_listed ||
                    relieved);
      }
    }
    EXPECT_GT(ok, 10);
    EXPECT_GT(exhausted, 0);
  }
  EXPECT_TRUE(s->Render({.budget_tokens = 0}).status().IsInvalidArgument());
}

TEST_F(SessionTest, OverBudgetDropsOldestActiveFirst) {
  // No budget pressure (trigger 100%): only the render's drops.
  auto s = NewSession("s1", {.keep_tool_outputs = 10,
                             .min_collapse_tokens = 0,
                             .compact_trigger_percent = 100,
                             .compact_target_percent = 99});
  ASSERT_TRUE(s->Ingest(OpenAILog(4, 30).dump(), LogFormat::kOpenAI).ok());
  uint64_t full = MustRender(*s, 1'000'000).tokens;
  RenderResult r = MustRender(*s, full - 10);
  ASSERT_EQ(r.dropped.size(), 1u);
  EXPECT_EQ(r.dropped[0].key, "toolcall:call_0");
  EXPECT_NE(r.request_json.find("[grep output hidden, "), std::string::npos);
  // Pinned outputs are never dropped.
  ASSERT_TRUE(s->Pin("toolcall:call_0").ok());
  r = MustRender(*s, full - 10);
  ASSERT_FALSE(r.dropped.empty());
  EXPECT_EQ(r.dropped[0].key, "toolcall:call_1");
}

TEST_F(SessionTest, IngestOpenAIIsIncrementalAndIdempotent) {
  auto s = NewSession("s1");
  auto first = s->Ingest(OpenAILog(3).dump(), LogFormat::kOpenAI);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(first->messages_added, 12u);
  EXPECT_EQ(first->toolcalls_recorded, 3u);
  EXPECT_FALSE(first->reset);
  auto snap1 = s->Snapshot();
  auto again = s->Ingest(OpenAILog(3).dump(), LogFormat::kOpenAI);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->messages_added, 0u);
  auto snap2 = s->Snapshot();
  EXPECT_EQ(snap1->generation, snap2->generation);
  EXPECT_EQ(snap2->chat_version, snap1->chat_version);
  // Appended turns: only they are added.
  auto more = s->Ingest(OpenAILog(5).dump(), LogFormat::kOpenAI);
  ASSERT_TRUE(more.ok());
  EXPECT_EQ(more->messages_added, 8u);
  EXPECT_EQ(more->toolcalls_recorded, 2u);
  EXPECT_EQ(s->Snapshot()->chat_messages, 20u);
  EXPECT_EQ(view()
                .store()
                ->OpenView("", "s1")
                ->Versions("toolcall:call_0", {.scope = "session"})
                ->size(),
            1u);
  // The toolcall object holds the output; the chat only a reference line.
  auto sv = store().OpenView("", "s1");
  auto call = LoadToolCall(*sv, "call_1", true);
  ASSERT_TRUE(call.ok()) << call.status().ToString();
  EXPECT_EQ(call->tool, "grep");
  EXPECT_EQ(call->arguments_json, R"({"q":"thing 1"})");
  EXPECT_EQ(call->output, testing::ToolOutput(1, 20));
  auto chat = sv->Get("ctxkit.session/chat", {.scope = "session"});
  ASSERT_TRUE(chat.ok());
  // (The one-line summary quotes the first line; later lines stay out.)
  EXPECT_EQ(chat->find("module_1/file_7.cc"), std::string::npos);
  RenderResult r = MustRender(*s, 100000);
  EXPECT_NE(r.request_json.find("[toolcall call_1 | grep | ok | "),
            std::string::npos);
}

TEST_F(SessionTest, RewrittenLogResetsWithoutDuplicates) {
  for (LogFormat f : {LogFormat::kOpenAI, LogFormat::kAnthropic}) {
    const std::string id = f == LogFormat::kOpenAI ? "o" : "a";
    auto s = NewSession(id);
    json log = f == LogFormat::kOpenAI ? OpenAILog(4) : AnthropicLog(4);
    ASSERT_TRUE(s->Ingest(log.dump(), f).ok());
    const uint64_t messages = s->Snapshot()->chat_messages;
    // Rewrite an early message (not an append), and drop the last turn.
    json rewritten = f == LogFormat::kOpenAI ? OpenAILog(3) : AnthropicLog(3);
    rewritten["messages"][f == LogFormat::kOpenAI ? 1 : 0]["content"] =
        "A different first question";
    auto rep = s->Ingest(rewritten.dump(), f);
    ASSERT_TRUE(rep.ok()) << rep.status().ToString();
    EXPECT_TRUE(rep->reset);
    auto snap = s->Snapshot();
    ASSERT_TRUE(snap.ok());
    EXPECT_LT(snap->chat_messages, messages);
    // Exactly the three remaining tool outputs, once each.
    int outputs = 0;
    for (const auto& e : snap->entries) outputs += e.from_chat ? 1 : 0;
    EXPECT_EQ(outputs, 3);
    RenderResult r = MustRender(*s, 100000, f);
    EXPECT_NE(r.request_json.find("A different first question"),
              std::string::npos);
    EXPECT_EQ(
        r.request_json.find(f == LogFormat::kOpenAI ? "call_3" : "toolu_3"),
        std::string::npos);
    // Re-feeding the rewritten log adds nothing.
    auto again = s->Ingest(rewritten.dump(), f);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(again->messages_added, 0u);
    EXPECT_FALSE(again->reset);
  }
}

TEST_F(SessionTest, IngestAnthropic) {
  auto s = NewSession("s1");
  auto rep = s->Ingest(AnthropicLog(8).dump(), LogFormat::kAnthropic);
  ASSERT_TRUE(rep.ok()) << rep.status().ToString();
  EXPECT_EQ(rep->toolcalls_recorded, 8u);
  auto sv = store().OpenView("", "s1");
  auto err = LoadToolCall(*sv, "toolu_2");
  ASSERT_TRUE(err.ok());
  EXPECT_EQ(err->status, "error");  // is_error: true for toolu_2's result.
  EXPECT_EQ(err->arguments_json, R"({"q":"thing 2"})");
  EXPECT_EQ(LoadToolCall(*sv, "toolu_1")->status, "ok");
  EXPECT_TRUE(s->Ingest(AnthropicLog(8).dump(), LogFormat::kAnthropic).ok());
  EXPECT_EQ(
      s->Ingest(AnthropicLog(8).dump(), LogFormat::kAnthropic)->messages_added,
      0u);
  RenderResult r = MustRender(*s, 100000, LogFormat::kAnthropic);
  json req = json::parse(r.request_json);
  ASSERT_TRUE(req["system"].is_array());
  EXPECT_EQ(req["system"].back()["cache_control"]["type"], "ephemeral");
  EXPECT_EQ(req["messages"].back()["content"].back()["cache_control"]["type"],
            "ephemeral");
  // Roles alternate and tool results answer tool uses.
  for (size_t i = 1; i < req["messages"].size(); ++i) {
    EXPECT_NE(req["messages"][i]["role"], req["messages"][i - 1]["role"]);
  }
  EXPECT_NE(r.request_json.find("\"is_error\":true"), std::string::npos);
}

TEST_F(SessionTest, MalformedLogsAreRefusedAndChangeNothing) {
  auto s = NewSession("s1");
  ASSERT_TRUE(s->Ingest(OpenAILog(1).dump(), LogFormat::kOpenAI).ok());
  const uint64_t gen = s->Snapshot()->generation;
  auto expect_bad = [&](const std::string& log, LogFormat f,
                        const std::string& needle) {
    Status st = s->Ingest(log, f).status();
    EXPECT_TRUE(st.IsInvalidArgument()) << st.ToString();
    EXPECT_NE(st.message().find(needle), std::string::npos) << st.message();
  };
  expect_bad("{not json", LogFormat::kOpenAI, "not valid JSON");
  expect_bad(R"({"messages": 3})", LogFormat::kOpenAI, "$.messages");
  expect_bad(R"([{"role":"tool","tool_call_id":"x","content":"o"}])",
             LogFormat::kOpenAI, "matches no earlier");
  expect_bad(R"([{"role":"wizard","content":"o"}])", LogFormat::kOpenAI,
             "messages[0].role");
  expect_bad(R"([{"role":"user","content":[{"type":"image"}]}])",
             LogFormat::kAnthropic, "unsupported block type 'image'");
  expect_bad(R"([{"role":"assistant","content":[{"type":"tool_use",)"
             R"("id":"a b","name":"x","input":{}}]}])",
             LogFormat::kAnthropic, "[A-Za-z0-9_.-]");
  EXPECT_EQ(s->Snapshot()->generation, gen);
  EXPECT_EQ(s->Snapshot()->chat_messages, 4u);
}

TEST_F(SessionTest, PressureCollapsesOldOutputsInBatches) {
  auto s = NewSession("s1", {.keep_tool_outputs = 2,
                             .min_collapse_tokens = 0,
                             .compact_trigger_percent = 90});
  ASSERT_TRUE(s->Ingest(OpenAILog(5, 40).dump(), LogFormat::kOpenAI).ok());
  // No pressure: every output stays active.
  const uint64_t full = MustRender(*s, 1'000'000).tokens;
  auto snap = s->Snapshot();
  for (int i = 0; i < 5; ++i) {
    const PoolEntry* e = Find(*snap, "toolcall:call_" + std::to_string(i));
    ASSERT_NE(e, nullptr);
    EXPECT_TRUE(e->active) << i;
  }
  // Over 90% of the budget: the oldest collapse (not the newest two).
  RenderResult r = MustRender(*s, full * 100 / 95);
  ASSERT_FALSE(r.collapsed.empty());
  EXPECT_EQ(r.collapsed[0], "toolcall:call_0");
  snap = s->Snapshot();
  for (int i = 0; i < 5; ++i) {
    const PoolEntry* e = Find(*snap, "toolcall:call_" + std::to_string(i));
    const bool collapsed = i < static_cast<int>(r.collapsed.size());
    EXPECT_EQ(e->collapsed, collapsed) << i;
    EXPECT_EQ(e->active, !collapsed) << i;
  }
  EXPECT_NE(r.request_json.find("[grep output hidden, "), std::string::npos);
  EXPECT_EQ(r.request_json.find("module_0/file_7.cc"), std::string::npos);
  EXPECT_NE(r.request_json.find("module_4/file_7.cc"), std::string::npos);
  // Collapses persist: a later render with room to spare keeps them, so
  // its prefix is the same.
  EXPECT_EQ(MustRender(*s, 1'000'000).request_json, r.request_json);
  // Re-activating a collapsed output brings it back and the policy leaves
  // it alone.
  ASSERT_TRUE(s->Activate("toolcall:call_0").ok());
  ASSERT_TRUE(s->Ingest(OpenAILog(6, 40).dump(), LogFormat::kOpenAI).ok());
  r = MustRender(*s, full * 100 / 95);
  EXPECT_NE(r.request_json.find("module_0/file_7.cc"), std::string::npos);

  // Batches: with a high minimum, collapses free at least that much.
  auto b =
      NewSession("s2", {.keep_tool_outputs = 2, .min_collapse_tokens = 1500});
  int collapses = 0;
  for (int turns = 1; turns <= 12; ++turns) {
    ASSERT_TRUE(
        b->Ingest(OpenAILog(turns, 40).dump(), LogFormat::kOpenAI).ok());
    RenderResult br = MustRender(*b, 4000);
    EXPECT_LE(br.tokens, 4000u);
    if (!br.collapsed.empty()) {
      ++collapses;
      EXPECT_GE(br.collapsed.size(), 2u);  // A batch, not one at a time.
    }
  }
  EXPECT_GE(collapses, 1);
  EXPECT_LT(collapses, 6);
}

TEST_F(SessionTest, TwoSessionObjectsSeeEachOthersChanges) {
  auto a = NewSession("s1");
  auto b = Session::Open(store(), "s1");
  ASSERT_TRUE(b.ok());
  ASSERT_TRUE(view().Set("k1", "one").ok());
  ASSERT_TRUE(view().Set("k2", "two").ok());
  ASSERT_TRUE(a->Activate("k1").ok());
  ASSERT_TRUE((*b)->Activate("k2").ok());  // Reloads first: keeps k1.
  auto snap = a->Snapshot();
  ASSERT_TRUE(snap.ok());
  EXPECT_EQ(snap->entries.size(), 2u);
  EXPECT_TRUE(Find(*snap, "k1")->active);
  EXPECT_TRUE(Find(*snap, "k2")->active);
}

TEST_F(SessionTest, IndexIsCappedAndSaysMoreExist) {
  auto s = NewSession("s1", {.index_max_tokens = 200});
  std::vector<std::string> keys;
  for (int i = 0; i < 100; ++i) {
    keys.push_back("obj/" + std::to_string(i));
    ASSERT_TRUE(view().Set(keys.back(), "body " + std::to_string(i)).ok());
  }
  ASSERT_TRUE(s->TrackMany(keys).ok());
  RenderResult r = MustRender(*s, 100000);
  EXPECT_EQ(r.index_total, 100u);
  EXPECT_GT(r.index_listed, 0u);
  EXPECT_LT(r.index_listed, 100u);
  EXPECT_NE(r.request_json.find("more objects are known"), std::string::npos);
  json req = json::parse(r.request_json);
  EXPECT_LE((*Tokenizer::Get())
                ->Count(req["messages"][0]["content"].get<std::string>()),
            200u);
}

}  // namespace
}  // namespace ctxkit
