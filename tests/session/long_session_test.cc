// Long sessions: budget pressure (collapses, lossless compaction), render
// records and their replay, diffs, and ingestion by appending.

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "ctxkit/session.h"
#include "ctxkit/tokenizer.h"
#include "session/log_builders.h"
#include "session/session_state.h"
#include "session/session_test_util.h"

namespace ctxkit {
namespace {

using nlohmann::json;
using testing::OpenAILog;
using testing::OpenAITurn;
using testing::SessionStoreFixture;

// Tool outputs vary in size as real ones do: 3 to 120 lines.
int LinesOf(int turn) { return 3 + (turn * 37 + turn * turn) % 118; }

json Turn(int t) { return OpenAITurn(t, LinesOf(t)); }

class LongSessionTest : public SessionStoreFixture {
 protected:
  // The session's chat as stored, one line per message.
  std::vector<std::string> ChatLines(const std::string& id) {
    auto session_view = store().OpenView("", id);
    EXPECT_TRUE(session_view.ok());
    auto text = session_view->Get(session::kChatKey, {.scope = "session"});
    EXPECT_TRUE(text.ok()) << text.status().ToString();
    std::vector<std::string> lines;
    size_t at = 0;
    while (text.ok() && at < text->size()) {
      size_t nl = text->find('\n', at);
      lines.push_back(text->substr(at, nl + 1 - at));
      at = nl + 1;
    }
    return lines;
  }
};

// The compaction refs a rendered request names, in order.
std::vector<std::string> CompactionRefs(const std::string& request) {
  std::vector<std::string> refs;
  std::regex re(
      "compacted: chat messages [0-9]+-[0-9]+, [0-9]+ turns; "
      "expand (ck:[^ ]+) to get them back");
  for (std::sregex_iterator it(request.begin(), request.end(), re), end;
       it != end; ++it) {
    refs.push_back((*it)[1]);
  }
  return refs;
}

// Every message of the chat is reachable from the render: the compactions
// it names give back messages [0, first) exactly, the rest are rendered,
// and every tool output's ref resolves to the output ingested.
void ExpectNothingLost(Session& s, View& view, const RenderResult& r,
                       const std::vector<std::string>& chat_lines, int turns) {
  std::string expanded;
  for (const std::string& ref : CompactionRefs(r.request_json)) {
    auto lines = s.Expand(ref);
    ASSERT_TRUE(lines.ok()) << lines.status().ToString();
    expanded += *lines;
  }
  ASSERT_LE(r.compacted_messages, chat_lines.size());
  std::string head;
  for (uint64_t i = 0; i < r.compacted_messages; ++i) head += chat_lines[i];
  EXPECT_EQ(expanded, head);
  json req = json::parse(r.request_json);
  size_t chat_rendered = 0;
  for (const json& m : req["messages"]) {
    if (m["role"] != "system") ++chat_rendered;
  }
  EXPECT_EQ(chat_rendered, chat_lines.size() - r.compacted_messages);
  auto decoded = session::DecodeChat([&] {
    std::string all;
    for (const auto& l : chat_lines) all += l;
    return all;
  }());
  ASSERT_TRUE(decoded.ok());
  int outputs = 0;
  for (const session::ChatMessage& m : *decoded) {
    if (m.role != "tool") continue;
    auto ref = ParseRef(m.ref);
    ASSERT_TRUE(ref.ok());
    auto out = view.Resolve(*ref);
    ASSERT_TRUE(out.ok());
    EXPECT_EQ(*out, testing::ToolOutput(outputs, LinesOf(outputs)));
    ++outputs;
  }
  EXPECT_EQ(outputs, turns);
}

TEST_F(LongSessionTest, ALongChatRendersEveryTurnWithinBudgetLosingNothing) {
#if defined(__SANITIZE_ADDRESS__)
  // The same paths (compactions merged many times over) in a fifth of the
  // turns: the sanitizer build runs ~13x slower (192 s for 5,000).
  const int kTurns = 1000;
#else
  const int kTurns = 5000;
#endif
  const uint64_t kBudget = 6000;
  auto s = NewSession("long", {.keep_tool_outputs = 3,
                               .min_collapse_tokens = 1000,
                               .compaction_summary_tokens = 120});
  ASSERT_TRUE(s->Ingest(OpenAILog(0, 0, "You are a coding agent.").dump(),
                        LogFormat::kOpenAI)
                  .ok());
  std::vector<std::string> requests;
  uint64_t compactions = 0;
  for (int t = 0; t < kTurns; ++t) {
    auto rep = s->IngestAppend(Turn(t).dump(), LogFormat::kOpenAI);
    ASSERT_TRUE(rep.ok()) << t << ": " << rep.status().ToString();
    ASSERT_EQ(rep->messages_added, 4u);
    auto r = s->Render({.budget_tokens = kBudget});
    ASSERT_TRUE(r.ok()) << t << ": " << r.status().ToString();
    ASSERT_LE(r->tokens, kBudget);
    ASSERT_EQ(r->breakdown.Total(), r->tokens);
    ASSERT_EQ(r->record, static_cast<uint64_t>(t + 1));
    if (!r->compacted.ref.empty()) ++compactions;
    requests.push_back(r->request_json);
  }
  auto last = s->Render({.budget_tokens = kBudget, .record = false});
  ASSERT_TRUE(last.ok());
  EXPECT_EQ(last->record, 0u);
  EXPECT_TRUE(last->request_json == requests.back())
      << "differs from byte "
      << std::mismatch(last->request_json.begin(), last->request_json.end(),
                       requests.back().begin(), requests.back().end())
                 .first -
             last->request_json.begin()
      << ": ..."
      << last->request_json.substr(
             std::mismatch(last->request_json.begin(), last->request_json.end(),
                           requests.back().begin(), requests.back().end())
                     .first -
                 last->request_json.begin(),
             200);
  EXPECT_GT(compactions, 1u);
  EXPECT_GT(last->compacted_messages, 0u);
  EXPECT_LE(s->Snapshot()->compactions.size(), 8u);
  ExpectNothingLost(*s, view(), *last, ChatLines("long"), kTurns);
  // gc keeps every compaction (and the chat version it reads).
  auto pinned = s->PinnedRefs();
  ASSERT_TRUE(pinned.ok());
  auto snap = s->Snapshot();
  ASSERT_TRUE(snap.ok());
  for (const CompactionInfo& c : snap->compactions) {
    EXPECT_TRUE(std::any_of(pinned->begin(), pinned->end(), [&](const Ref& r) {
      return FormatRef(r) == c.ref;
    })) << c.ref;
  }

  // Every recorded render replays byte for byte, whatever came after, and
  // from a new process too.
  s.reset();
  OpenStore();
  auto reopened = Session::Open(store(), "long");
  ASSERT_TRUE(reopened.ok());
  for (int n = 1; n <= kTurns; n += kTurns / 25) {
    auto replay = (*reopened)->Replay(n);
    ASSERT_TRUE(replay.ok()) << n << ": " << replay.status().ToString();
    EXPECT_EQ(replay->request_json, requests[n - 1]) << n;
    EXPECT_EQ(replay->record, static_cast<uint64_t>(n));
  }
  EXPECT_TRUE((*reopened)->Replay(kTurns + 1).status().IsNotFound());
  EXPECT_TRUE((*reopened)->Replay(0).status().IsNotFound());
}

TEST_F(LongSessionTest, BelowTheMinimumTheErrorNamesIt) {
  auto s = NewSession("m", {.compaction_summary_tokens = 40});
  ASSERT_TRUE(s->Ingest(OpenAILog(40, 10).dump(), LogFormat::kOpenAI).ok());
  auto r = s->Render({.budget_tokens = 60});
  ASSERT_EQ(r.status().code(), StatusCode::kFailedPrecondition);
  std::smatch m;
  const std::string msg = r.status().message();
  ASSERT_TRUE(std::regex_search(msg, m, std::regex("at least ([0-9]+)")))
      << msg;
  const uint64_t minimum = std::stoull(m[1]);
  // The failed render changed nothing; the minimum renders.
  EXPECT_TRUE(s->Snapshot()->compactions.empty());
  auto ok = s->Render({.budget_tokens = minimum});
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_LE(ok->tokens, minimum);
  EXPECT_EQ(s->Snapshot()->compactions.size(), 1u);
  EXPECT_GT(ok->compacted_messages, 100u);
  EXPECT_EQ(s->Render({.budget_tokens = minimum - 1}).status().code(),
            StatusCode::kFailedPrecondition);
}

TEST_F(LongSessionTest, AppendingTurnByTurnEqualsTheWholeLog) {
  auto whole = NewSession("whole");
  auto parts = NewSession("parts");
  const json log = OpenAILog(6, 12);
  ASSERT_TRUE(whole->Ingest(log.dump(), LogFormat::kOpenAI).ok());
  // The first append carries the system prompt; later ones only turns.
  json first = json::array({log["messages"][0]});
  ASSERT_TRUE(parts->IngestAppend(first.dump(), LogFormat::kOpenAI).ok());
  const json& msgs = log["messages"];
  for (size_t i = 1; i < msgs.size(); ++i) {
    // One message at a time: tool results answer calls appended earlier.
    auto rep =
        parts->IngestAppend(json::array({msgs[i]}).dump(), LogFormat::kOpenAI);
    ASSERT_TRUE(rep.ok()) << i << ": " << rep.status().ToString();
  }
  // The same chat and render, up to the refs (each session records its
  // own toolcall objects).
  auto a = whole->Render({.budget_tokens = 100000});
  auto b = parts->Render({.budget_tokens = 100000});
  ASSERT_TRUE(a.ok() && b.ok());
  const std::regex refs(R"(ck:[^ \]\\"]+|"object_id":"[^"]+")");
  auto strip = [&](const std::vector<std::string>& lines) {
    std::string all;
    for (const auto& l : lines) all += std::regex_replace(l, refs, "REF");
    return all;
  };
  EXPECT_EQ(std::regex_replace(a->request_json, refs, "REF"),
            std::regex_replace(b->request_json, refs, "REF"));
  EXPECT_EQ(strip(ChatLines("whole")), strip(ChatLines("parts")));
  EXPECT_EQ(ChatLines("whole").size(), 24u);
  // The whole log fed later continues the appended one: nothing added.
  auto again = parts->Ingest(log.dump(), LogFormat::kOpenAI);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again->reset);
  EXPECT_EQ(again->messages_added, 0u);
  // Bad appends change nothing.
  const uint64_t gen = parts->Snapshot()->generation;
  EXPECT_EQ(parts->IngestAppend(Turn(6).dump(), LogFormat::kAnthropic)
                .status()
                .code(),
            StatusCode::kFailedPrecondition);
  json sys = json::array({{{"role", "system"}, {"content", "new rules"}}});
  EXPECT_TRUE(parts->IngestAppend(sys.dump(), LogFormat::kOpenAI)
                  .status()
                  .IsInvalidArgument());
  json orphan = json::array(
      {{{"role", "tool"}, {"tool_call_id", "nope"}, {"content", "x"}}});
  EXPECT_TRUE(parts->IngestAppend(orphan.dump(), LogFormat::kOpenAI)
                  .status()
                  .IsInvalidArgument());
  EXPECT_TRUE(parts->IngestAppend("{", LogFormat::kOpenAI)
                  .status()
                  .IsInvalidArgument());
  EXPECT_EQ(parts->Snapshot()->generation, gen);
}

TEST_F(LongSessionTest, AnOutputNotShownHasOneTextDroppedOrCollapsed) {
  auto s = NewSession("one", {.keep_tool_outputs = 1,
                              .min_collapse_tokens = 0,
                              .compact_trigger_percent = 99,
                              .compact_target_percent = 98});
  ASSERT_TRUE(s->Ingest(OpenAILog(3, 60).dump(), LogFormat::kOpenAI).ok());
  const uint64_t full = s->Render({.budget_tokens = 1'000'000})->tokens;
  // Just over the budget: call_0 is dropped for this render only (the
  // newest output is kept, and collapsing the two older would free more
  // than needed... the policy frees only what it must).
  auto dropped = s->Render({.budget_tokens = full - 5});
  ASSERT_TRUE(dropped.ok()) << dropped.status().ToString();
  const std::string placeholder_start = "[grep output hidden, ";
  const size_t at = dropped->request_json.find(placeholder_start);
  ASSERT_NE(at, std::string::npos);
  const std::string placeholder = dropped->request_json.substr(
      at, dropped->request_json.find(']', at) + 1 - at);
  // Collapsed by the policy later: the same text, so the prefix holds.
  auto collapsed = s->Render({.budget_tokens = full / 2});
  ASSERT_TRUE(collapsed.ok()) << collapsed.status().ToString();
  EXPECT_NE(collapsed->request_json.find(placeholder), std::string::npos);
  const size_t tool0 = dropped->request_json.find(placeholder);
  EXPECT_EQ(collapsed->request_json.substr(0, tool0 + placeholder.size()),
            dropped->request_json.substr(0, tool0 + placeholder.size()));
}

TEST_F(LongSessionTest, DiffSaysWhatEnteredLeftCollapsedAndWasCompacted) {
  auto s = NewSession("d", {.keep_tool_outputs = 2,
                            .min_collapse_tokens = 0,
                            .keep_turns = 1,
                            .compaction_summary_tokens = 40});
  ASSERT_TRUE(s->Ingest(OpenAILog(4, 30).dump(), LogFormat::kOpenAI).ok());
  ASSERT_TRUE(view().Set("notes/plan", "the plan").ok());
  auto r1 = s->Render({.budget_tokens = 100000});
  ASSERT_TRUE(r1.ok());
  ASSERT_TRUE(s->Activate("notes/plan").ok());
  auto r2 = s->Render({.budget_tokens = 100000});
  ASSERT_TRUE(r2.ok());
  auto d = s->Diff(r1->record, r2->record);
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(d->entered, std::vector<std::string>{"notes/plan"});
  EXPECT_TRUE(d->left.empty());
  // A small budget: outputs collapse, the oldest turns are compacted.
  auto r3 = s->Render({.budget_tokens = 700});
  ASSERT_TRUE(r3.ok()) << r3.status().ToString();
  d = s->Diff(r2->record, r3->record);
  ASSERT_TRUE(d.ok());
  EXPECT_FALSE(d->compacted.empty());
  EXPECT_EQ(d->compacted[0].first_message, 0u);
  EXPECT_GT(d->to_breakdown.compactions, 0u);
  EXPECT_EQ(d->from_tokens, r2->tokens);
  EXPECT_EQ(d->to_tokens, r3->tokens);
  EXPECT_TRUE(s->Diff(1, 99).status().IsNotFound());
  // Record numbers and counts show in the snapshot.
  EXPECT_EQ(s->Snapshot()->renders, 3u);
}

TEST_F(LongSessionTest, EachRecordKeepsTheBytesItSharesWithThePreviousOne) {
  auto s = NewSession("prefix");
  ASSERT_TRUE(s->Ingest(OpenAILog(2).dump(), LogFormat::kOpenAI).ok());
  auto r1 = s->Render({.budget_tokens = 100000});
  ASSERT_TRUE(r1.ok()) << r1.status().ToString();
  EXPECT_EQ(r1->bytes, r1->request_json.size());
  EXPECT_FALSE(r1->prefix_bytes.has_value());  // Nothing before it.
  ASSERT_TRUE(s->IngestAppend(Turn(2).dump(), LogFormat::kOpenAI).ok());
  auto r2 = s->Render({.budget_tokens = 100000});
  ASSERT_TRUE(r2.ok());
  ASSERT_TRUE(r2->prefix_bytes.has_value());
  EXPECT_EQ(*r2->prefix_bytes,
            RequestPrefixBytes(r1->request_json, r2->request_json));
  // The chat only grew: all of render 1 but its closing brackets.
  EXPECT_EQ(*r2->prefix_bytes, r1->request_json.size() - 2)
      << r1->request_json.substr(r1->request_json.size() - 80) << "\n"
      << r2->request_json.substr(r1->request_json.size() - 80, 100);
  // Another instance (a new process) compares with the replayed record.
  auto other = Session::Open(store(), "prefix");
  ASSERT_TRUE(other.ok());
  auto r3 = (*other)->Render({.budget_tokens = 300});
  ASSERT_TRUE(r3.ok()) << r3.status().ToString();
  ASSERT_TRUE(r3->prefix_bytes.has_value());
  EXPECT_EQ(*r3->prefix_bytes,
            RequestPrefixBytes(r2->request_json, r3->request_json));
  EXPECT_LT(*r3->prefix_bytes, r2->request_json.size() - 2);  // Compacted.
  // The history gives every record's figures without a replay.
  auto history = s->RenderHistory();
  ASSERT_TRUE(history.ok()) << history.status().ToString();
  ASSERT_EQ(history->size(), 3u);
  const RenderResult* renders[] = {&*r1, &*r2, &*r3};
  for (size_t i = 0; i < 3; ++i) {
    const RenderFigures& f = (*history)[i];
    EXPECT_EQ(f.record, i + 1);
    EXPECT_EQ(f.tokens, renders[i]->tokens);
    EXPECT_EQ(f.budget_tokens, renders[i]->budget_tokens);
    EXPECT_EQ(f.breakdown.Total(), renders[i]->tokens);
    EXPECT_EQ(f.bytes, renders[i]->bytes);
    EXPECT_EQ(f.prefix_bytes, renders[i]->prefix_bytes);
  }
  auto replayed = s->Replay(3);
  ASSERT_TRUE(replayed.ok());
  EXPECT_EQ(replayed->prefix_bytes, r3->prefix_bytes);
  EXPECT_EQ(replayed->bytes, r3->bytes);
}

TEST_F(LongSessionTest, ASessionCreatedAgainStartsItsOwnRecords) {
  auto s = NewSession("again");
  ASSERT_TRUE(s->Ingest(OpenAILog(2).dump(), LogFormat::kOpenAI).ok());
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(s->Render({.budget_tokens = 100000}).ok());
  }
  s.reset();
  ASSERT_TRUE(Session::Remove(store(), "again").ok());
  auto t = NewSession("again");
  ASSERT_TRUE(t->Ingest(OpenAILog(1).dump(), LogFormat::kOpenAI).ok());
  auto r = t->Render({.budget_tokens = 100000});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->record, 1u);
  auto snap = t->Snapshot();
  ASSERT_TRUE(snap.ok()) << snap.status().ToString();
  EXPECT_EQ(snap->renders, 1u);
  auto replay = t->Replay(1);
  ASSERT_TRUE(replay.ok());
  EXPECT_EQ(replay->request_json, r->request_json);
  EXPECT_TRUE(t->Replay(2).status().IsNotFound());
  EXPECT_TRUE(t->PinnedRefs().ok());
}

TEST_F(LongSessionTest, GcKeepsWhatRecordsNameSoEveryRenderReplays) {
  auto s = NewSession("kept");
  ASSERT_TRUE(s->Ingest(OpenAILog(2).dump(), LogFormat::kOpenAI).ok());
  View v = *store().OpenView("", "kept");
  ASSERT_TRUE(v.Set("spec", "the first spec, shown at render 1").ok());
  ASSERT_TRUE(s->Activate("spec").ok());
  auto first = s->Render({.budget_tokens = 100000});
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  // A new version replaces the one render 1 showed, in the pool and the
  // index; then gc runs with nothing old protected but what the session
  // names.
  ASSERT_TRUE(v.Set("spec", "the second spec").ok());
  ASSERT_TRUE(s->Track("spec").ok());
  auto second = s->Render({.budget_tokens = 100000});
  ASSERT_TRUE(second.ok());
  auto snap = s->Snapshot();
  ASSERT_TRUE(snap.ok());
  for (const PoolEntry& e : snap->entries) {
    if (e.key == "spec") {
      EXPECT_EQ(e.version, 2u);  // Only the first record names v1.
    }
  }
  auto pinned = s->PinnedRefs();
  ASSERT_TRUE(pinned.ok()) << pinned.status().ToString();
  auto gc = store().CollectGarbage(
      {.retention_seconds = 0, .apply = true, .keep = *pinned});
  ASSERT_TRUE(gc.ok()) << gc.status().ToString();
  auto replay = s->Replay(first->record);
  ASSERT_TRUE(replay.ok()) << replay.status().ToString();
  EXPECT_EQ(replay->request_json, first->request_json);
  EXPECT_NE(first->request_json.find("the first spec"), std::string::npos);
  // Without the session's refs the same gc would have taken version 1.
  EXPECT_TRUE(std::any_of(pinned->begin(), pinned->end(), [](const Ref& r) {
    return r.key == "spec" && r.version == 1;
  }));
}

TEST_F(LongSessionTest, ExpandRefusesWhatIsNotACompaction) {
  auto s = NewSession("e");
  ASSERT_TRUE(view().Set("notes/x", "{\"kind\":\"other\"}").ok());
  EXPECT_TRUE(s->Expand("notes/x").status().IsNotFound());  // Not in scope.
  auto ref = view().RefOf("notes/x");
  ASSERT_TRUE(ref.ok());
  EXPECT_TRUE(s->Expand(FormatRef(*ref)).status().IsInvalidArgument());
  EXPECT_TRUE(s->Expand("ck:garbage").status().IsInvalidArgument());
}

}  // namespace
}  // namespace ctxkit
