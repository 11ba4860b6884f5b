// The render policy at every budget (issue 38): the newest tool
// outputs are always visible (whole when they fit, else an excerpt that
// names the call reading the rest), placeholders are small and never take
// more than a tenth of the budget, thresholds scale with the budget, and
// every render stays within its budget and replays.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ctxkit/session.h"
#include "ctxkit/store.h"
#include "ctxkit/tokenizer.h"
#include "session/render_layout.h"
#include "session/session_state.h"
#include "session/session_test_util.h"

namespace ctxkit {
namespace {

using nlohmann::json;
using testing::SessionStoreFixture;

uint64_t Count(std::string_view text) {
  static const Tokenizer* tok = *Tokenizer::Get();
  return tok->Count(text);
}

// A service log of about `bytes` bytes for turn `turn` (about 2.9 bytes a
// token, as real logs).
std::string LogOutput(int turn, size_t bytes) {
  std::string out;
  uint32_t x = 2654435761u * static_cast<uint32_t>(turn + 1);
  char line[200];
  for (int i = 0; out.size() < bytes; ++i) {
    x = x * 1664525u + 1013904223u;
    std::snprintf(line, sizeof(line),
                  "2026-03-14T10:%02d:%02d.%03uZ %s worker-%u req=%08x "
                  "path=/api/v1/items/%u status=%u took=%ums\n",
                  (i / 60) % 60, i % 60, x % 1000,
                  (x >> 8) % 13 == 0 ? "WARN" : "INFO", (x >> 4) % 16, x,
                  (x >> 12) % 10000, (x >> 20) % 7 == 0 ? 500 : 200,
                  (x >> 16) % 900);
    out += line;
  }
  return out;
}

// One turn of the trial: a user message, one tool call, its output.
json Turn(int t, const std::string& output) {
  const std::string id = "call_" + std::to_string(t);
  return json::array(
      {{{"role", "user"},
        {"content", "Check the logs of service " + std::to_string(t)}},
       {{"role", "assistant"},
        {"content", nullptr},
        {"tool_calls",
         json::array({{{"id", id},
                       {"type", "function"},
                       {"function",
                        {{"name", "read_log"},
                         {"arguments",
                          "{\"service\":" + std::to_string(t) + "}"}}}}})}},
       {{"role", "tool"}, {"tool_call_id", id}, {"content", output}}});
}

class PolicyTest : public SessionStoreFixture {
 protected:
  // What one render showed of the newest output.
  enum class Seen { kWhole, kExcerpt, kHidden };

  // Checks render `r` of `budget` whose newest tool result answers
  // `call_id` with `output`: within budget, placeholders within a tenth of
  // it, the newest output visible, whole whenever it fits (an excerpt only
  // when the render without it plus the whole output would not fit).
  Seen CheckRender(const RenderResult& r, uint64_t budget,
                   const std::string& call_id, const std::string& output,
                   const std::string& when) {
    EXPECT_LE(r.tokens, budget) << when;
    EXPECT_LE(r.breakdown.placeholders, budget / 10)
        << when << ": placeholders " << r.breakdown.placeholders;
    const json request = json::parse(r.request_json);
    std::string content;
    for (const json& m : request["messages"]) {
      if (m["role"] == "tool" && m["tool_call_id"] == call_id) {
        content = m["content"].get<std::string>();
      }
    }
    // The reference line comes first whatever is shown.
    const std::string ref_line = content.substr(0, content.find('\n'));
    if (content.find(output) != std::string::npos) return Seen::kWhole;
    if (content.find("\n[excerpt of ") == std::string::npos) {
      ADD_FAILURE() << when << ": newest output hidden: " << content;
      return Seen::kHidden;
    }
    // The excerpt names the call that reads the rest.
    EXPECT_NE(content.find("; read the rest with get {\"ref\":\"ck:"),
              std::string::npos)
        << when;
    // An excerpt only when the whole output could not have fit: it is the
    // only output shown, and the render with the output whole instead
    // would be over budget.
    const uint64_t whole = Count(ref_line + "\n" + output);
    const uint64_t excerpt = Count(content);
    EXPECT_EQ(r.breakdown.active_outputs, excerpt) << when;
    EXPECT_GT(r.tokens - excerpt + whole, budget)
        << when << ": an output of " << whole
        << " tokens fit whole but was shown as an excerpt";
    return Seen::kExcerpt;
  }

  // Every record of `s` replays as rendered.
  void ExpectReplays(Session& s, const std::vector<std::string>& requests) {
    for (size_t n = 1; n <= requests.size(); ++n) {
      auto replay = s.Replay(n);
      ASSERT_TRUE(replay.ok()) << n << ": " << replay.status().ToString();
      EXPECT_EQ(replay->request_json, requests[n - 1]) << "record " << n;
    }
  }
};

// The trial: 30 turns, each a user message, one tool call and a
// 5-20 KB log (1.9k-7k tokens), render(8000) after each. The newest output
// was hidden in 19 of 30 turns (in 6 it would have fit) and placeholders
// took 30-44% of the budget.
TEST_F(PolicyTest, TheNewestOutputIsVisibleInEveryTurnAt8k) {
  auto s = NewSession("trial");
  ASSERT_TRUE(s->IngestAppend(json::array({{{"role", "system"},
                                            {"content",
                                             "You are an SRE agent. Read "
                                             "the logs you are asked for."}}})
                                  .dump(),
                              LogFormat::kOpenAI)
                  .ok());
  constexpr uint64_t kBudget = 8000;
  std::vector<std::string> requests;
  int whole = 0, excerpts = 0;
  for (int t = 0; t < 30; ++t) {
    const std::string output =
        LogOutput(t, 5000 + static_cast<size_t>(t) * 7919 % 12501);
    const uint64_t tokens = Count(output);
    ASSERT_GE(tokens, 1700u);
    ASSERT_LE(tokens, 7500u);
    ASSERT_TRUE(
        s->IngestAppend(Turn(t, output).dump(), LogFormat::kOpenAI).ok());
    auto r = s->Render({.budget_tokens = kBudget});
    ASSERT_TRUE(r.ok()) << "turn " << t << ": " << r.status().ToString();
    const Seen seen =
        CheckRender(*r, kBudget, "call_" + std::to_string(t), output,
                    "turn " + std::to_string(t) + " (" +
                        std::to_string(tokens) + " tokens)");
    whole += seen == Seen::kWhole;
    excerpts += seen == Seen::kExcerpt;
    requests.push_back(r->request_json);
  }
  // Outputs of up to ~6k tokens fit whole beside the rest of the chat.
  EXPECT_GE(whole, 20);
  ExpectReplays(*s, requests);
}

// Issue 38: at budget 6,000 with five 2,770-token outputs all five were
// dropped (drops went in groups of 8,000 tokens) and the render used 623
// tokens. Groups scale with the budget: only what must go is dropped.
TEST_F(PolicyTest, DropsAtASmallBudgetAreSmall) {
  auto s = NewSession("small");
  std::string output;
  for (int t = 0; t < 5; ++t) {
    output = LogOutput(t, 8000);
    ASSERT_TRUE(
        s->IngestAppend(Turn(t, output).dump(), LogFormat::kOpenAI).ok());
  }
  constexpr uint64_t kBudget = 6000;
  auto r = s->Render({.budget_tokens = kBudget});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(CheckRender(*r, kBudget, "call_4", output, "five outputs"),
            Seen::kWhole);
  ASSERT_FALSE(r->dropped.empty());
  // The last output dropped would not have fit beside what is shown.
  EXPECT_GT(r->tokens + r->dropped.back().tokens, kBudget);
  EXPECT_GT(r->tokens, kBudget / 2);
}

// A placeholder says what the output was in about 30 tokens besides its
// ref, which it names once (the ref alone is 33 tokens here: its
// capability tag, scope and key; issue 38 asked for 40 in all, which a
// placeholder naming a whole ref cannot meet).
TEST_F(PolicyTest, APlaceholderNamesItsRefOnceInAFewTokens) {
  auto s = NewSession("ph");
  for (int t = 0; t < 10; ++t) {
    ASSERT_TRUE(
        s->IngestAppend(Turn(t, LogOutput(t, 6000)).dump(), LogFormat::kOpenAI)
            .ok());
  }
  auto r = s->Render({.budget_tokens = 16000});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  int placeholders = 0;
  const json request = json::parse(r->request_json);
  for (const json& m : request["messages"]) {
    if (m["role"] != "tool") continue;
    const std::string c = m["content"].get<std::string>();
    if (!c.starts_with("[read_log output hidden, ")) continue;
    ++placeholders;
    const size_t ref = c.find(" ck:");
    ASSERT_NE(ref, std::string::npos) << c;
    const std::string ref_text = c.substr(ref + 1, c.find(']', ref) - ref - 1);
    EXPECT_EQ(c.find(ref_text, ref + 1 + ref_text.size()), std::string::npos)
        << c;
    EXPECT_LE(Count(c), Count(ref_text) + 32) << c;
  }
  EXPECT_GE(placeholders, 1);
}

// An agent's long run of calls after one user message: the newest outputs
// are the last call's, so older outputs of the same turn still collapse
// or drop, and the last one is whole.
TEST_F(PolicyTest, OlderCallsOfOneTurnGiveWayToTheLastOne) {
  auto s = NewSession("run");
  json log = json::array({{{"role", "user"}, {"content", "Find the bug."}}});
  std::string output;
  for (int t = 0; t < 6; ++t) {
    const json turn = Turn(t, output = LogOutput(t, 7000));
    log.push_back(turn[1]);
    log.push_back(turn[2]);
  }
  ASSERT_TRUE(s->IngestAppend(log.dump(), LogFormat::kOpenAI).ok());
  constexpr uint64_t kBudget = 6000;
  auto r = s->Render({.budget_tokens = kBudget});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(CheckRender(*r, kBudget, "call_5", output, "one turn"),
            Seen::kWhole);
  const json request = json::parse(r->request_json);
  int found = 0;
  for (const json& m : request["messages"]) {
    if (m["role"] == "tool" && m["tool_call_id"] == "call_0") {
      ++found;
      EXPECT_TRUE(m["content"].get<std::string>().starts_with(
          "[read_log output hidden, "))
          << m["content"];
    }
  }
  EXPECT_EQ(found, 1);
}

// The sweep: budgets from 4k to 1M, outputs from 2% to 48% of the budget
// and one of 130% (never whole): every render within budget, placeholders
// within a tenth of it, the newest output visible and whole whenever it
// fits; every record replays.
TEST_F(PolicyTest, TheNewestOutputIsVisibleAtEveryBudget) {
  for (uint64_t budget : {4000ull, 8000ull, 32000ull, 128000ull, 1000000ull}) {
    const std::string id = "sweep-" + std::to_string(budget);
    auto s = NewSession(id);
    std::vector<std::string> requests;
    int whole = 0, excerpts = 0;
    uint64_t max_tokens = 0, max_placeholders = 0;
    constexpr int kTurns = 12;
    for (int t = 0; t < kTurns; ++t) {
      // About 2.9 bytes a token.
      const double share = t == kTurns / 2 ? 1.3 : 0.02 + (t * 37 % 47) / 100.0;
      const std::string output =
          LogOutput(t, static_cast<size_t>(share * 2.9 * budget));
      ASSERT_TRUE(
          s->IngestAppend(Turn(t, output).dump(), LogFormat::kOpenAI).ok());
      auto r = s->Render({.budget_tokens = budget});
      ASSERT_TRUE(r.ok()) << budget << " turn " << t << ": "
                          << r.status().ToString();
      const Seen seen = CheckRender(
          *r, budget, "call_" + std::to_string(t), output,
          "budget " + std::to_string(budget) + " turn " + std::to_string(t));
      whole += seen == Seen::kWhole;
      excerpts += seen == Seen::kExcerpt;
      max_tokens = std::max(max_tokens, r->tokens);
      max_placeholders = std::max(max_placeholders, r->breakdown.placeholders);
      requests.push_back(r->request_json);
    }
    // The table in docs/sessions.md.
    std::printf("| %llu | %d | %d | %.1f%% | %.1f%% |\n",
                static_cast<unsigned long long>(budget), whole, excerpts,
                100.0 * max_placeholders / budget, 100.0 * max_tokens / budget);
    EXPECT_GE(excerpts, 1) << budget;
    EXPECT_GE(whole, kTurns / 2) << budget;
    ExpectReplays(*s, requests);
  }
}

// A record written before the compact placeholder (no "texts") replays
// with the placeholder it was rendered with: its reference line and
// "[output not shown; activate <ref> to see it]". Such a record is made
// here from a new one: "texts" removed and its token figures set to those
// of the earlier texts.
TEST_F(PolicyTest, ARecordOfAnEarlierBuildReplaysItsPlaceholders) {
  auto s = NewSession("old");
  for (int t = 0; t < 4; ++t) {
    ASSERT_TRUE(
        s->IngestAppend(Turn(t, LogOutput(t, 6000)).dump(), LogFormat::kOpenAI)
            .ok());
  }
  auto r = s->Render({.budget_tokens = 5000});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_NE(r->request_json.find(" output hidden, "), std::string::npos);
  View sv = *store().OpenView("", "old");
  auto page =
      sv.List({.scope = "session", .key_prefix = "ctxkit.session/renders/"});
  ASSERT_TRUE(page.ok() && page->items.size() == 1);
  const std::string key = page->items.front().key;
  auto stream = sv.Get(key, {.scope = "session"});
  ASSERT_TRUE(stream.ok());
  json rec = json::parse(stream->substr(0, stream->size() - 1));
  ASSERT_EQ(rec["texts"], 2);
  rec.erase("texts");
  auto chat_text = sv.Resolve(*ParseRef(rec["chat"].get<std::string>()));
  ASSERT_TRUE(chat_text.ok());
  auto chat = session::DecodeChat(*chat_text);
  ASSERT_TRUE(chat.ok());
  std::vector<bool> shown(chat->size(), false);
  const size_t first = rec["first"].get<size_t>();
  for (const char* field : {"shown", "excerpt", "pinned_out"}) {
    for (const json& e : rec[field]) shown[first + e[0].get<size_t>()] = true;
  }
  uint64_t now = 0, before = 0;
  for (size_t i = first; i < chat->size(); ++i) {
    const session::ChatMessage& m = (*chat)[i];
    if (m.role != "tool" || shown[i]) continue;
    now += Count(session::PlaceholderText(m, i));
    before += Count(session::ToolText(m, i, session::ToolMode::kHidden, 0, "",
                                      session::ToolTexts::kV1));
  }
  ASSERT_GT(now, 0u);
  EXPECT_GT(before, now);
  // Its shown outputs followed their whole reference line, summary
  // included.
  uint64_t shown_now = 0, shown_before = 0;
  for (const json& e : rec["shown"]) {
    const size_t i = first + e[0].get<size_t>();
    const session::ChatMessage& m = (*chat)[i];
    auto ref = ParseRef(e.size() > 1 ? e[1].get<std::string>() : m.ref);
    ASSERT_TRUE(ref.ok());
    auto content = sv.Resolve(*ref);
    ASSERT_TRUE(content.ok());
    shown_now +=
        Count(session::ToolText(m, i, session::ToolMode::kShown, ref->version,
                                *content, session::ToolTexts::kCompact));
    shown_before +=
        Count(session::ToolText(m, i, session::ToolMode::kShown, ref->version,
                                *content, session::ToolTexts::kV1));
  }
  EXPECT_GT(shown_before, shown_now);
  rec["tokens"] =
      rec["tokens"].get<uint64_t>() - now + before - shown_now + shown_before;
  rec["breakdown"]["placeholders"] =
      rec["breakdown"]["placeholders"].get<uint64_t>() - now + before;
  rec["breakdown"]["active_outputs"] =
      rec["breakdown"]["active_outputs"].get<uint64_t>() - shown_now +
      shown_before;
  ASSERT_TRUE(sv.Append(key, rec.dump() + "\n",
                        {.scope = "session", .expected_version = 1})
                  .ok());
  auto replay = s->Replay(2);
  ASSERT_TRUE(replay.ok()) << replay.status().ToString();
  EXPECT_NE(replay->request_json.find("[output not shown; activate ck:"),
            std::string::npos);
  EXPECT_EQ(replay->request_json.find(" output hidden, "), std::string::npos);
  EXPECT_EQ(replay->tokens,
            r->tokens - now + before - shown_now + shown_before);
}

}  // namespace
}  // namespace ctxkit
