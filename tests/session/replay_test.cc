// Render records replay byte for byte whatever the session does after them:
// new versions, pool changes, budget pressure, garbage collection, other
// instances (processes) rendering.

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "ctxkit/session.h"
#include "ctxkit/store.h"
#include "ctxkit/tokenizer.h"
#include "session/log_builders.h"
#include "session/render_json.h"
#include "session/session_test_util.h"

namespace ctxkit {
namespace {

using nlohmann::json;
using testing::OpenAILog;
using testing::OpenAITurn;
using testing::SessionStoreFixture;

// What a render returned, to compare its replay with: the request and the
// report (session::RenderToJson).
struct Rendered {
  std::string request;
  json report;
};

Rendered RenderedOf(const RenderResult& r) {
  return {r.request_json, session::RenderToJson("", r.format, r)};
}

class ReplayTest : public SessionStoreFixture {
 protected:
  // A new instance of session `id`, as another process would open it.
  std::unique_ptr<Session> Reopen(const std::string& id) {
    auto s = Session::Open(store(), id);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    return s.ok() ? std::move(*s) : nullptr;
  }

  // The session's render records as stored, one JSON object each, from
  // record `from` + 1 on.
  std::vector<json> Records(const std::string& id, size_t from) {
    View sv = *store().OpenView("", id);
    auto page =
        sv.List({.scope = "session", .key_prefix = "ctxkit.session/renders/"});
    EXPECT_TRUE(page.ok()) << page.status().ToString();
    std::vector<json> out;
    if (!page.ok() || page->items.empty()) return out;
    auto stream = sv.Get(page->items.front().key, {.scope = "session"});
    EXPECT_TRUE(stream.ok()) << stream.status().ToString();
    size_t at = 0;
    for (size_t n = 0; stream.ok() && at < stream->size(); ++n) {
      const size_t nl = stream->find('\n', at);
      if (n >= from) out.push_back(json::parse(stream->substr(at, nl - at)));
      at = nl + 1;
    }
    return out;
  }

  // Every record of session `id` replays, through `replayer` (an instance
  // of it), as its render returned it: the same request and report.
  void ExpectEveryRecordReplays(Session& replayer,
                                const std::map<uint64_t, Rendered>& renders,
                                const std::string& when) {
    for (const auto& [n, rendered] : renders) {
      auto replay = replayer.Replay(n);
      ASSERT_TRUE(replay.ok())
          << when << ": record " << n << ": " << replay.status().ToString();
      ASSERT_EQ(replay->request_json, rendered.request)
          << when << ": record " << n;
      ASSERT_EQ(RenderedOf(*replay).report, rendered.report)
          << when << ": record " << n;
    }
  }

  // Every ref the records of session `id` after the first `*checked` are
  // read through is static; `*checked` becomes the number of records.
  void ExpectStaticRefs(const std::string& id, size_t* checked,
                        const std::string& when) {
    const std::vector<json> records = Records(id, *checked);
    for (const json& record : records) {
      ++*checked;
      for (const std::string& wire : RefsRead(record)) {
        auto ref = ParseRef(wire);
        ASSERT_TRUE(ref.ok()) << wire;
        EXPECT_TRUE(ref->is_static())
            << when << ": record " << *checked << " names " << wire;
      }
    }
  }

  // The refs a replay of record `rec` reads content through.
  static std::vector<std::string> RefsRead(const json& rec) {
    std::vector<std::string> refs;
    auto add = [&](const json& r) {
      if (r.is_string() && !r.get<std::string>().empty()) refs.push_back(r);
    };
    add(rec["system"]);
    add(rec["index"]);
    add(rec["chat"]);
    for (const json& c : rec["compactions"]) add(c);
    for (const json& p : rec["pinned"]) add(p[0]);
    for (const json& e : rec["shown"]) {
      if (e.size() > 1) add(e[1]);
    }
    for (const json& t : rec["tail"]) add(t[0]);
    return refs;
  }
};

// A shown output follows its reference line whole, so the line does not
// repeat it as its summary (a one-line output appeared twice). A record of
// an earlier build (version 1) still replays as it was sent, with it.
TEST_F(ReplayTest, AShownOneLineOutputAppearsOnce) {
  auto s = NewSession("one");
  ASSERT_NE(s, nullptr);
  const std::string output = "src/net/tls.c:88: error: ssl_ctx undeclared";
  const json log = {
      {"messages",
       {{{"role", "user"}, {"content", "Why did the build fail?"}},
        {{"role", "assistant"},
         {"content", nullptr},
         {"tool_calls",
          {{{"id", "c1"},
            {"type", "function"},
            {"function", {{"name", "grep"}, {"arguments", "{}"}}}}}}},
        {{"role", "tool"}, {"tool_call_id", "c1"}, {"content", output}}}}};
  ASSERT_TRUE(s->Ingest(log.dump(), LogFormat::kOpenAI).ok());
  auto r = s->Render({.budget_tokens = 5000});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  auto count = [&](const std::string& request) {
    size_t n = 0;
    for (size_t at = request.find(output); at != std::string::npos;
         at = request.find(output, at + 1)) {
      ++n;
    }
    return n;
  };
  EXPECT_EQ(count(r->request_json), 1u) << r->request_json;
  EXPECT_NE(r->request_json.find("[toolcall c1 | grep | ok | "),
            std::string::npos);

  // The same record as an earlier build wrote it (no "texts"): the line
  // kept its summary.
  std::vector<json> records = Records("one", 0);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0]["texts"], 2);
  json old = records[0];
  old.erase("texts");
  // Its request held the summary too: so many more tokens.
  std::string shown;
  const json request = json::parse(r->request_json);
  for (const json& m : request["messages"]) {
    if (m["role"] == "tool") shown = m["content"].get<std::string>();
  }
  const size_t line_end = shown.find('\n');
  ASSERT_NE(line_end, std::string::npos) << shown;
  const std::string with_summary =
      shown.substr(0, line_end) + " " + output + shown.substr(line_end);
  auto tokenizer = Tokenizer::Get();
  ASSERT_TRUE(tokenizer.ok());
  old["tokens"] = old["tokens"].get<uint64_t>() +
                  (*tokenizer)->Count(with_summary) -
                  (*tokenizer)->Count(shown);
  View sv = *store().OpenView("", "one");
  auto page =
      sv.List({.scope = "session", .key_prefix = "ctxkit.session/renders/"});
  ASSERT_TRUE(page.ok() && !page->items.empty());
  ASSERT_TRUE(sv.Append(page->items.front().key, old.dump() + "\n",
                        {.scope = "session"})
                  .ok());
  auto replay = Reopen("one")->Replay(2);
  ASSERT_TRUE(replay.ok()) << replay.status().ToString();
  EXPECT_EQ(count(replay->request_json), 2u) << replay->request_json;
  auto again = Reopen("one")->Replay(1);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->request_json, r->request_json);
}

// Issue 37: a render whose index had not changed since the last one (in
// another process) named it by a dynamic ref, so once the index changed the
// record replayed another index and failed with a false corruption.
TEST_F(ReplayTest, ARecordReplaysAfterTheIndexChanges) {
  ASSERT_NE(NewSession("s"), nullptr);
  ASSERT_TRUE(view().Set("a", "alpha").ok());
  ASSERT_TRUE(Reopen("s")->Pin("a", 1).ok());
  std::map<uint64_t, Rendered> renders;
  for (int i = 0; i < 2; ++i) {
    auto r = Reopen("s")->Render({.budget_tokens = 5000});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    renders[r->record] = RenderedOf(*r);
  }
  ASSERT_TRUE(view().Set("a", "alpha two").ok());
  ASSERT_TRUE(Reopen("s")->Pin("a", 1).ok());  // The index line moves to v2.
  auto r = Reopen("s")->Render({.budget_tokens = 5000});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  renders[r->record] = RenderedOf(*r);
  ASSERT_EQ(renders.size(), 3u);
  EXPECT_NE(renders[2].request, renders[3].request);
  size_t checked = 0;
  ExpectStaticRefs("s", &checked, "after the index changed");
  EXPECT_EQ(checked, 3u);
  ExpectEveryRecordReplays(*Reopen("s"), renders, "after the index changed");
}

// A record names a chat output shown at the version the chat's reference
// line names by its index alone (records stay small: a ref per shown
// output tripled them), and a later version by its ref.
TEST_F(ReplayTest, AChatOutputIsRecordedByIndexUnlessItMovedOn) {
  ASSERT_NE(NewSession("i"), nullptr);
  std::unique_ptr<Session> s = Reopen("i");
  ASSERT_TRUE(s->Ingest(OpenAILog(2).dump(), LogFormat::kOpenAI).ok());
  auto first = s->Render({.budget_tokens = 100000});
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  View sv = *store().OpenView("", "i");
  ASSERT_TRUE(
      sv.Set("toolcall:call_1", "output v2", {.scope = "session"}).ok());
  auto second = s->Render({.budget_tokens = 100000});
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  const std::vector<json> records = Records("i", 0);
  ASSERT_EQ(records.size(), 2u);
  ASSERT_EQ(records[0]["shown"].size(), 2u);
  for (const json& e : records[0]["shown"]) EXPECT_EQ(e.size(), 1u) << e;
  ASSERT_EQ(records[1]["shown"].size(), 2u);
  EXPECT_EQ(records[1]["shown"][0].size(), 1u);
  ASSERT_EQ(records[1]["shown"][1].size(), 2u);
  EXPECT_EQ(ParseRef(records[1]["shown"][1][1].get<std::string>())->version,
            2u);
  ExpectEveryRecordReplays(*s,
                           {{first->record, RenderedOf(*first)},
                            {second->record, RenderedOf(*second)}},
                           "after the output moved on");
}

// A chat output a render showed at the version the chat's reference line
// names stays replayable after the output moved on and left the pool's
// entry: the session held that version when it ingested the output, and
// gc keeps what sessions hold.
TEST_F(ReplayTest, GcKeepsTheChatOutputVersionARecordShowed) {
  ASSERT_NE(NewSession("g"), nullptr);
  ASSERT_TRUE(
      Reopen("g")->Ingest(OpenAILog(1).dump(), LogFormat::kOpenAI).ok());
  auto first = Reopen("g")->Render({.budget_tokens = 100000});
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  ASSERT_NE(first->request_json.find("result line for query 0"),
            std::string::npos);
  View sv = *store().OpenView("", "g");
  ASSERT_TRUE(
      sv.Set("toolcall:call_0", "the output rewritten", {.scope = "session"})
          .ok());
  std::unique_ptr<Session> s = Reopen("g");
  ASSERT_TRUE(s->Track("toolcall:call_0").ok());  // The entry moves to v2.
  auto keep = s->PinnedRefs();
  ASSERT_TRUE(keep.ok()) << keep.status().ToString();
  auto gc = store().CollectGarbage(
      {.retention_seconds = 0, .apply = true, .keep = *keep});
  ASSERT_TRUE(gc.ok()) << gc.status().ToString();
  ExpectEveryRecordReplays(*s, {{first->record, RenderedOf(*first)}},
                           "after gc");
}

// The same when the log was rewritten since: the record's chat is no
// longer a prefix of the session's, and names the output's old version.
TEST_F(ReplayTest, GcKeepsWhatARecordShowedBeforeTheLogWasRewritten) {
  ASSERT_NE(NewSession("w"), nullptr);
  ASSERT_TRUE(
      Reopen("w")->Ingest(OpenAILog(1).dump(), LogFormat::kOpenAI).ok());
  auto first = Reopen("w")->Render({.budget_tokens = 100000});
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  json log = OpenAILog(1);
  log["messages"][1]["content"] = "Please look for another thing";
  log["messages"][3]["content"] = "another output";
  std::unique_ptr<Session> s = Reopen("w");
  auto rewritten = s->Ingest(log.dump(), LogFormat::kOpenAI);
  ASSERT_TRUE(rewritten.ok()) << rewritten.status().ToString();
  ASSERT_TRUE(rewritten->reset);
  auto second = s->Render({.budget_tokens = 100000});
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  ASSERT_EQ(second->request_json.find("result line for query 0"),
            std::string::npos);
  auto keep = s->PinnedRefs();
  ASSERT_TRUE(keep.ok()) << keep.status().ToString();
  auto gc = store().CollectGarbage(
      {.retention_seconds = 0, .apply = true, .keep = *keep});
  ASSERT_TRUE(gc.ok()) << gc.status().ToString();
  ExpectEveryRecordReplays(*s,
                           {{first->record, RenderedOf(*first)},
                            {second->record, RenderedOf(*second)}},
                           "after the rewrite and gc");
}

// Issue 37: a replay reported no conflicts where its render reported one.
TEST_F(ReplayTest, AReplayReportsTheConflictsOfItsRender) {
  ASSERT_NE(NewSession("c"), nullptr);
  ASSERT_TRUE(view().Set("plan", "the plan v1").ok());
  ASSERT_TRUE(view().Set("plan", "the plan v2").ok());
  std::unique_ptr<Session> s = Reopen("c");
  ASSERT_TRUE(s->Pin("plan", 1).ok());
  ASSERT_TRUE(s->Activate("plan").ok());
  auto r = s->Render({.budget_tokens = 5000});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->conflicts.size(), 1u);
  auto replay = Reopen("c")->Replay(r->record);
  ASSERT_TRUE(replay.ok()) << replay.status().ToString();
  ASSERT_EQ(replay->conflicts.size(), 1u);
  EXPECT_EQ(replay->conflicts[0].key, "plan");
  EXPECT_EQ(replay->conflicts[0].pinned_version, 1u);
  EXPECT_EQ(replay->conflicts[0].active_version, 2u);
  EXPECT_EQ(RenderedOf(*replay).report, RenderedOf(*r).report);
}

// A replay reports what budget pressure did in its render: the outputs it
// collapsed and the compaction it made.
TEST_F(ReplayTest, AReplayReportsWhatBudgetPressureDid) {
  ASSERT_NE(NewSession("b", {.keep_tool_outputs = 1,
                             .min_collapse_tokens = 0,
                             .keep_turns = 1,
                             .compaction_summary_tokens = 64}),
            nullptr);
  std::unique_ptr<Session> s = Reopen("b");
  ASSERT_TRUE(s->Ingest(OpenAILog(8, 30).dump(), LogFormat::kOpenAI).ok());
  auto r = s->Render({.budget_tokens = 1200});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_FALSE(r->collapsed.empty());
  ASSERT_FALSE(r->compacted.ref.empty());
  auto replay = Reopen("b")->Replay(r->record);
  ASSERT_TRUE(replay.ok()) << replay.status().ToString();
  EXPECT_EQ(replay->collapsed, r->collapsed);
  EXPECT_EQ(replay->compacted.ref, r->compacted.ref);
  EXPECT_EQ(replay->compacted.end_message, r->compacted.end_message);
  EXPECT_EQ(RenderedOf(*replay).report, RenderedOf(*r).report);
}

// A long randomized session (seeded: the same run every time): after each
// step, every record written so far replays byte for byte, with garbage
// collected (retention 0) keeping only what the session names.
TEST_F(ReplayTest, EveryRecordReplaysThroughALongRandomSession) {
  SessionPolicy policy;
  policy.keep_tool_outputs = 2;
  policy.min_collapse_tokens = 150;
  policy.index_max_tokens = 160;
  policy.keep_turns = 1;
  policy.compaction_summary_tokens = 48;
  ASSERT_NE(NewSession("p", policy), nullptr);
  View sv = *store().OpenView("", "p");
  ASSERT_TRUE(
      Reopen("p")->Ingest(OpenAILog(0).dump(), LogFormat::kOpenAI).ok());

  std::mt19937_64 rng(6);
  auto pick = [&](uint64_t n) { return static_cast<uint64_t>(rng() % n); };
  // Keys and their latest versions: objects of the global scope and the
  // chat's tool outputs (toolcall objects of the session's scope).
  std::map<std::string, uint64_t> versions;
  std::vector<std::string> keys;
  for (int k = 0; k < 6; ++k) keys.push_back("obj/" + std::to_string(k));
  int turns = 0;
  std::map<uint64_t, Rendered> renders;
  std::unique_ptr<Session> s = Reopen("p");
  // Replays go through an instance of their own (its caches are by content
  // and static ref, so they cannot hide a record that names the wrong
  // version).
  std::unique_ptr<Session> replayer = Reopen("p");
  size_t checked = 0;      // Records whose refs were checked.
  uint64_t collected = 0;  // Versions gc collected.
  constexpr int kSteps = 150;
  for (int step = 0; step < kSteps; ++step) {
    // Half the steps run in a new instance, as a new CLI process would.
    if (pick(2) == 0) s = Reopen("p");
    ASSERT_NE(s, nullptr);
    const std::string key = keys[pick(keys.size())];
    const uint64_t latest = versions[key];
    std::string what;
    Status done = Status::Ok();
    // Refusals that depend only on the pool (not held, not pinned; a
    // version gc collected because nothing named it) are fine.
    auto tolerate = [&](Status st) {
      const bool fine =
          st.IsNotFound() || st.code() == StatusCode::kFailedPrecondition;
      return fine ? Status::Ok() : st;
    };
    switch (pick(12)) {
      case 0: {
        what = "ingest turn " + std::to_string(turns);
        json turn = OpenAITurn(turns, 1 + static_cast<int>(pick(30)));
        const std::string call = "toolcall:call_" + std::to_string(turns);
        ++turns;
        done = s->IngestAppend(turn.dump(), LogFormat::kOpenAI).status();
        keys.push_back(call);
        versions[call] = 1;
        break;
      }
      case 1:
      case 2: {
        what = "set " + key;
        std::string text = key + " version " + std::to_string(latest + 1);
        for (uint64_t l = pick(40); l > 0; --l) {
          text += "\nline " + std::to_string(l);
        }
        const bool toolcall = key.starts_with("toolcall:");
        done = (toolcall ? sv.Set(key, text, {.scope = "session"})
                         : view().Set(key, text))
                   .status();
        ++versions[key];
        break;
      }
      case 3:
        if (latest == 0) continue;
        what = "activate " + key;
        done = s->Activate(key);
        break;
      case 4:
        if (latest == 0) continue;
        what = "deactivate " + key;
        done = tolerate(s->Deactivate(key));
        break;
      case 5: {
        if (latest == 0) continue;
        const uint64_t v = 1 + pick(latest);
        what = "pin " + key + " v" + std::to_string(v);
        done = tolerate(s->Pin(key, v));
        break;
      }
      case 6:
        if (latest == 0) continue;
        what = "unpin " + key;
        done = tolerate(s->Unpin(key));
        break;
      case 7:
        if (latest == 0) continue;
        what = "track " + key;
        done = s->Track(key);
        break;
      default: {
        const uint64_t budget = 300 + pick(4000);
        const LogFormat format =
            pick(3) == 0 ? LogFormat::kAnthropic : LogFormat::kOpenAI;
        what = "render at " + std::to_string(budget);
        Result<RenderResult> r =
            s->Render({.budget_tokens = budget, .format = format});
        if (r.ok()) {
          renders[r->record] = RenderedOf(*r);
        } else if (r.status().code() != StatusCode::kFailedPrecondition) {
          done = r.status();  // Too small a budget is the one refusal.
        }
        break;
      }
    }
    const std::string when = "step " + std::to_string(step) + " (" + what + ")";
    ASSERT_TRUE(done.ok()) << when << ": " << done.ToString();
    auto keep = s->PinnedRefs();
    ASSERT_TRUE(keep.ok()) << when << ": " << keep.status().ToString();
    auto gc = store().CollectGarbage(
        {.retention_seconds = 0, .apply = true, .keep = *keep});
    ASSERT_TRUE(gc.ok()) << when << ": " << gc.status().ToString();
    collected += gc->versions;
    ExpectStaticRefs("p", &checked, when);
    ASSERT_EQ(checked, renders.size()) << when;
    ExpectEveryRecordReplays(*replayer, renders, when);
    if (::testing::Test::HasFatalFailure() || HasFailure()) return;
  }
  // The run did what it is meant to exercise.
  EXPECT_GE(renders.size(), 40u);
  EXPECT_GT(collected, 0u);
  auto snap = s->Snapshot();
  ASSERT_TRUE(snap.ok());
  EXPECT_FALSE(snap->compactions.empty());
}

// A render record damaged in the store (a field of another type, not an
// object, not JSON) is reported as a corrupt record by replay, history and
// diff, never thrown; the session stays readable and renders on, and the
// records before it still replay.
TEST_F(ReplayTest, ADamagedRecordIsReportedNotThrown) {
  ASSERT_NE(NewSession("d"), nullptr);
  ASSERT_TRUE(
      Reopen("d")->Ingest(OpenAILog(2).dump(), LogFormat::kOpenAI).ok());
  auto first = Reopen("d")->Render({.budget_tokens = 100000});
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  View sv = *store().OpenView("", "d");
  auto page =
      sv.List({.scope = "session", .key_prefix = "ctxkit.session/renders/"});
  ASSERT_TRUE(page.ok() && page->items.size() == 1u);
  const std::string stream = page->items.front().key;
  const std::vector<std::string> damaged = {
      R"({"v":"1"})",
      R"([1,2])",
      "not json",
      R"({"v":1,"format":"openai","tokens":"many","budget":[],)"
      R"("breakdown":{"chat":"x"},"first":"0","chat":3,"system":{},)"
      R"("shown":"no","tail":5,"pinned":null,"compactions":7})",
  };
  uint64_t n = first->record;
  for (const std::string& line : damaged) {
    SCOPED_TRACE(line);
    auto appended = sv.Append(stream, line + "\n", {.scope = "session"});
    ASSERT_TRUE(appended.ok()) << appended.status().ToString();
    n = appended->version;
    std::unique_ptr<Session> s = Reopen("d");
    auto snap = s->Snapshot();
    ASSERT_TRUE(snap.ok()) << snap.status().ToString();
    EXPECT_EQ(snap->renders, n);
    EXPECT_EQ(s->Replay(n).status().code(), StatusCode::kCorruption);
    EXPECT_EQ(s->Diff(first->record, n).status().code(),
              StatusCode::kCorruption);
    EXPECT_EQ(s->RenderHistory().status().code(), StatusCode::kCorruption);
    // A render after it has no prefix to compare with, and still records.
    auto next = s->Render({.budget_tokens = 100000});
    ASSERT_TRUE(next.ok()) << next.status().ToString();
    EXPECT_EQ(next->record, n + 1);
    EXPECT_FALSE(next->prefix_bytes.has_value());
    ExpectEveryRecordReplays(*s,
                             {{first->record, RenderedOf(*first)},
                              {next->record, RenderedOf(*next)}},
                             "after a damaged record");
  }
}

// A value that is not a compaction, whatever its fields hold, is refused
// by Expand with InvalidArgument, never an exception.
TEST_F(ReplayTest, ExpandRefusesWhatIsNotACompaction) {
  ASSERT_NE(NewSession("e"), nullptr);
  View sv = *store().OpenView("", "e");
  for (const char* value :
       {R"({"kind":5})", R"({"kind":"ctxkit.compaction","chat":1})",
        R"({"kind":"ctxkit.compaction","chat":"x","first":"0","end":1})",
        R"([1])", "plain text"}) {
    SCOPED_TRACE(value);
    auto ref = sv.Set("c", value, {.scope = "session"});
    ASSERT_TRUE(ref.ok()) << ref.status().ToString();
    EXPECT_EQ(Reopen("e")->Expand(FormatRef(*ref)).status().code(),
              StatusCode::kInvalidArgument);
  }
}

}  // namespace
}  // namespace ctxkit
