// Session benchmarks (docs/sessions.md):
//
//   BM_Render100k      render with 100,000 objects in the metadata pool, 50
//                      active, budget 100k tokens: per-render latency.
//   BM_AgentLoop       the agent loop of a harness: ingest a turn's new
//                      messages, render, repeat (tool outputs of mixed
//                      sizes), with ctxkit's renderer, a window renderer
//                      (every output inlined, the oldest messages trimmed
//                      to fit) and re-sending everything, in the same run:
//                      how often a request is a prefix of the next, the
//                      average share of a request cached, and the cost;
//                      plus render-record size, replay latency, and the
//                      turns whose newest tool output ctxkit did not show
//                      whole.
//   BM_RenderCompacted render with 100,000 objects in the metadata pool and
//                      a 5,000-turn chat compacted by budget pressure.

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "../tests/session/log_builders.h"
#include "bench_util.h"
#include "ctxkit/session.h"
#include "ctxkit/store.h"
#include "ctxkit/tokenizer.h"

namespace {

using ctxkit_bench::Clock;
using ctxkit_bench::LatencySamples;
using ctxkit_bench::NanosSince;
using ctxkit_bench::TempDir;
using nlohmann::json;

std::unique_ptr<ctxkit::Store> OpenStore(const std::string& home) {
  ctxkit::Options o;
  o.home = home;
  o.durability = ctxkit::Durability::kProcess;
  auto s = ctxkit::Store::Open(o);
  if (!s.ok()) {
    std::fprintf(stderr, "open: %s\n", s.status().ToString().c_str());
    std::abort();
  }
  return std::move(*s);
}

void Check(const ctxkit::Status& s, const char* what) {
  if (!s.ok()) {
    std::fprintf(stderr, "%s: %s\n", what, s.ToString().c_str());
    std::abort();
  }
}

// Keys of `n` small variables ("obj/<i>", ~120 bytes each) set in `view`:
// the metadata pool of the render benchmarks.
std::vector<std::string> SetSmallVariables(ctxkit::View& view, int n) {
  std::vector<std::string> keys;
  keys.reserve(n);
  for (int i = 0; i < n; ++i) {
    keys.push_back("obj/" + std::to_string(i));
    std::string value = "variable " + std::to_string(i) + ": " +
                        ctxkit_bench::MakeText(120, static_cast<uint64_t>(i));
    Check(view.Set(keys.back(), value).status(), "set");
  }
  return keys;
}

void BM_Render100k(benchmark::State& state) {
  const int kObjects = 100000;
  const int kActive = 50;
  TempDir dir;
  auto store = OpenStore(dir.Sub("store"));
  auto view = store->OpenView("", "");
  Check(view.status(), "view");
  // Small variables; the 50 active ones get ~1,500-token contents below.
  std::vector<std::string> keys = SetSmallVariables(*view, kObjects);
  for (int i = 0; i < kActive; ++i) {
    Check(view->Set(keys[i * 1999],
                    ctxkit_bench::MakeText(6000, static_cast<uint64_t>(i)))
              .status(),
          "set active");
  }
  auto session = ctxkit::Session::Create(*store, "bench", {});
  Check(session.status(), "create");
  Check((*session)->TrackMany(keys), "track");
  for (int i = 0; i < kActive; ++i) {
    Check((*session)->Activate(keys[i * 1999]), "activate");
  }
  // A fresh Session, as a new process would open it; the first render
  // loads the state and fills the caches (reported separately).
  auto fresh = ctxkit::Session::Open(*store, "bench");
  Check(fresh.status(), "open");
  auto t0 = Clock::now();
  auto first = (*fresh)->Render({.budget_tokens = 100000});
  state.counters["first_render_ns"] = static_cast<double>(NanosSince(t0));
  Check(first.status(), "render");
  LatencySamples samples;
  uint64_t tokens = 0;
  for (auto _ : state) {
    auto start = Clock::now();
    auto r = (*fresh)->Render({.budget_tokens = 100000});
    samples.Add(static_cast<double>(NanosSince(start)));
    if (!r.ok()) Check(r.status(), "render");
    tokens = r->tokens;
    benchmark::DoNotOptimize(r->request_json.data());
  }
  samples.Report(state);
  state.counters["tokens"] = static_cast<double>(tokens);
  state.counters["index_listed"] = static_cast<double>(first->index_listed);
  state.counters["dropped"] = static_cast<double>(first->dropped.size());
}
BENCHMARK(BM_Render100k)->Unit(benchmark::kMillisecond)->Iterations(200);

const ctxkit::Tokenizer& Tok() { return **ctxkit::Tokenizer::Get(); }

// The request as a provider's prompt cache sees it: the serialized request
// without its closing brackets, so a request whose messages are a prefix
// of the next one's is a byte prefix of it.
std::string_view Open(const std::string& request) {
  std::string_view v(request);
  while (!v.empty() && (v.back() == '}' || v.back() == ']')) v.remove_suffix(1);
  return v;
}

size_t CommonPrefix(const std::string& prev, const std::string& cur) {
  return ctxkit::RequestPrefixBytes(prev, cur);
}

// Lines of turn t's tool output (~17 tokens a line): 60% small (5-30
// lines), 30% medium (60-250), 10% large (500-1,000), from a fixed
// pseudo-random sequence, as real tool outputs vary.
int OutputLines(int t) {
  uint64_t x = static_cast<uint64_t>(t) * 0x9E3779B97F4A7C15ull + 12345;
  x ^= x >> 29;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 32;
  const int r = static_cast<int>(x % 1000);
  const int u = static_cast<int>((x >> 10) % 1000);
  if (r < 600) return 5 + u * 25 / 1000;
  if (r < 900) return 60 + u * 190 / 1000;
  return 500 + u * 500 / 1000;
}

// The window renderer: the whole log, every tool output inline, oldest
// non-system messages trimmed until the request fits (counted as the
// session renderer counts: every text string). `keep_all`: nothing
// trimmed (re-sending everything).
// Tokens of one OpenAI message by the documented counting rule (every text
// string: content, tool-call names and arguments).
uint64_t MessageTokens(const json& m) {
  uint64_t n = 0;
  if (m["content"].is_string())
    n += Tok().Count(m["content"].get<std::string>());
  if (m.contains("tool_calls")) {
    for (const auto& c : m["tool_calls"]) {
      n += Tok().Count(c["function"]["name"].get<std::string>());
      n += Tok().Count(c["function"]["arguments"].get<std::string>());
    }
  }
  return n;
}

// A request's tokens by the same rule.
uint64_t RequestTokens(const std::string& request) {
  const json parsed = json::parse(request);
  uint64_t n = 0;
  for (const json& m : parsed["messages"]) n += MessageTokens(m);
  return n;
}

std::string WindowRender(const json& msgs, uint64_t budget, bool keep_all) {
  auto count = [](const json& m) { return MessageTokens(m); };
  uint64_t total = 0;
  for (const auto& m : msgs) total += count(m);
  size_t first = 1;  // msgs[0] is the system prompt.
  while (!keep_all && total > budget && first < msgs.size()) {
    total -= count(msgs[first++]);
  }
  json out = json::array();
  out.push_back(msgs[0]);
  for (size_t i = first; i < msgs.size(); ++i) out.push_back(msgs[i]);
  return json{{"messages", out}}.dump();
}

// Cache figures of one renderer over a loop: turns whose request is a
// prefix of the next one's, the average share of each request's tokens
// cached (the prefix it shares with the previous request), and the cost
// in fresh-token units (uncached + 0.1 x cached).
struct LoopFigures {
  int prefix_turns = 0;
  int pairs = 0;
  double reuse_sum = 0;
  double kept_sum = 0;  // Share of the previous request kept as prefix.
  double cost = 0;
  int over_budget = 0;
  uint64_t tokens_sum = 0;
  std::string prev;

  void Add(const std::string& cur, uint64_t budget) {
    const uint64_t tokens = Tok().Count(cur);
    tokens_sum += tokens;
    if (RequestTokens(cur) > budget) ++over_budget;
    uint64_t cached = 0;
    if (!prev.empty()) {
      // Up to the previous request's closing brackets, as a cache keys it.
      const size_t n = std::min(CommonPrefix(prev, cur), Open(prev).size());
      cached = Tok().Count(std::string_view(cur).substr(0, n));
      ++pairs;
      if (n == Open(prev).size()) ++prefix_turns;
      reuse_sum += static_cast<double>(cached) / static_cast<double>(tokens);
      kept_sum += static_cast<double>(cached) /
                  static_cast<double>(Tok().Count(Open(prev)));
    }
    cost += static_cast<double>(tokens - cached) + 0.1 * cached;
    prev = cur;
  }
  void Report(benchmark::State& state, const std::string& name) const {
    state.counters[name + "_prefix_turns_pct"] = 100.0 * prefix_turns / pairs;
    state.counters[name + "_avg_reuse_pct"] = 100.0 * reuse_sum / pairs;
    state.counters[name + "_avg_kept_pct"] = 100.0 * kept_sum / pairs;
    state.counters[name + "_cost_mtok"] = cost / 1e6;
    state.counters[name + "_over_budget_turns"] = over_budget;
    state.counters[name + "_avg_tokens"] =
        static_cast<double>(tokens_sum) / (pairs + 1);
  }
};

// The agent loop: each turn ingests its new messages (IngestAppend), then
// renders; ctxkit's requests, the window renderer's and re-sending
// everything are measured in the same run. Also reported: the render
// records' bytes against the rendered bytes, and the p50 of replaying
// recorded renders (Session::Replay).
void BM_AgentLoop(benchmark::State& state) {
  const int kTurns = static_cast<int>(state.range(0));
  const uint64_t kBudget = static_cast<uint64_t>(state.range(1));
  ctxkit::SessionPolicy policy;
  policy.compact_trigger_percent = static_cast<uint32_t>(state.range(2));
  const std::string system =
      "You are a coding agent. Use the tools; cite the files you used.";
  LoopFigures ours, window, everything;
  uint64_t rendered_bytes = 0, record_bytes = 0, collapses = 0, compactions = 0;
  // Turns whose newest tool output the request does not show whole.
  uint64_t newest_not_whole = 0;
  LatencySamples render_samples, replay_samples;
  for (auto _ : state) {
    TempDir dir;
    auto store = OpenStore(dir.Sub("store"));
    auto session = ctxkit::Session::Create(*store, "loop", policy);
    Check(session.status(), "create");
    json log = json::array({{{"role", "system"}, {"content", system}}});
    Check((*session)
              ->IngestAppend(log.dump(), ctxkit::LogFormat::kOpenAI)
              .status(),
          "ingest system");
    ours = window = everything = LoopFigures();
    newest_not_whole = 0;
    for (int t = 0; t < kTurns; ++t) {
      json turn = ctxkit::testing::OpenAITurn(t, OutputLines(t));
      for (const json& m : turn) log.push_back(m);
      Check((*session)
                ->IngestAppend(turn.dump(), ctxkit::LogFormat::kOpenAI)
                .status(),
            "ingest");
      auto start = Clock::now();
      auto r = (*session)->Render({.budget_tokens = kBudget});
      render_samples.Add(static_cast<double>(NanosSince(start)));
      Check(r.status(), "render");
      rendered_bytes += r->request_json.size();
      // The output as JSON escapes it in the request.
      const std::string newest =
          json(ctxkit::testing::ToolOutput(t, OutputLines(t))).dump();
      if (r->request_json.find(newest.substr(1, newest.size() - 2)) ==
          std::string::npos) {
        ++newest_not_whole;
      }
      collapses += r->collapsed.empty() ? 0 : 1;
      compactions += r->compacted.ref.empty() ? 0 : 1;
      ours.Add(r->request_json, kBudget);
      window.Add(WindowRender(log, kBudget, false), kBudget);
      everything.Add(WindowRender(log, kBudget, true), kBudget);
      if (std::getenv("CTXKIT_BENCH_VERBOSE") != nullptr) {
        std::fprintf(stderr, "turn %3d %6llu tokens%s%s\n", t,
                     static_cast<unsigned long long>(r->tokens),
                     r->collapsed.empty() ? "" : " collapse",
                     r->compacted.ref.empty() ? "" : " compaction");
      }
    }
    auto snap = (*session)->Snapshot();
    Check(snap.status(), "snapshot");
    auto sv = store->OpenView("", "loop");
    // The session's record stream (its key ends in a suffix chosen at
    // creation).
    auto records =
        sv->List({.scope = "session", .key_prefix = "ctxkit.session/renders/"});
    Check(records.status(), "records");
    if (records->items.size() != 1)
      Check(ctxkit::Status::Internal("one stream"), "records");
    record_bytes = records->items[0].size_bytes;
    for (int n = 1; n <= kTurns; n += std::max(1, kTurns / 50)) {
      auto start = Clock::now();
      auto replay = (*session)->Replay(static_cast<uint64_t>(n));
      replay_samples.Add(static_cast<double>(NanosSince(start)));
      Check(replay.status(), "replay");
    }
  }
  ours.Report(state, "ours");
  window.Report(state, "window");
  everything.Report(state, "everything");
  state.counters["cost_ours_over_window"] = ours.cost / window.cost;
  state.counters["ours_collapse_turns"] = static_cast<double>(collapses);
  state.counters["ours_compaction_turns"] = static_cast<double>(compactions);
  state.counters["ours_newest_not_whole_turns"] =
      static_cast<double>(newest_not_whole);
  state.counters["record_bytes_per_turn"] =
      static_cast<double>(record_bytes) / kTurns;
  state.counters["record_pct_of_rendered"] =
      100.0 * static_cast<double>(record_bytes) /
      static_cast<double>(rendered_bytes);
  state.counters["render_p50_ms"] = render_samples.Percentile(0.5) / 1e6;
  state.counters["replay_p50_ms"] = replay_samples.Percentile(0.5) / 1e6;
  state.counters["replay_p99_ms"] = replay_samples.Percentile(0.99) / 1e6;
}
// Args: turns, budget tokens, compact_trigger_percent (90: the default;
// 100: relieve only when the render would not fit).
BENCHMARK(BM_AgentLoop)
    ->Args({50, 100000, 90})
    ->Args({500, 100000, 90})
    ->Args({50, 16000, 90})
    ->Args({50, 100000, 100})
    ->Args({500, 100000, 100})
    ->Args({50, 16000, 100})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

// Render with 100,000 objects in the metadata pool and a 5,000-turn chat
// compacted by budget pressure, budget 100k: per-render latency of an
// unchanged state (the harness renders again, or another process does).
void BM_RenderCompacted(benchmark::State& state) {
  const int kObjects = 100000;
  const int kTurns = 5000;
  TempDir dir;
  auto store = OpenStore(dir.Sub("store"));
  auto view = store->OpenView("", "");
  Check(view.status(), "view");
  std::vector<std::string> keys = SetSmallVariables(*view, kObjects);
  auto session = ctxkit::Session::Create(*store, "bench", {});
  Check(session.status(), "create");
  Check((*session)->TrackMany(keys), "track");
  json log =
      json::array({{{"role", "system"}, {"content", "You are an agent."}}});
  Check(
      (*session)->IngestAppend(log.dump(), ctxkit::LogFormat::kOpenAI).status(),
      "system");
  for (int t = 0; t < kTurns; ++t) {
    Check((*session)
              ->IngestAppend(
                  ctxkit::testing::OpenAITurn(t, OutputLines(t)).dump(),
                  ctxkit::LogFormat::kOpenAI)
              .status(),
          "ingest");
    if (t % 10 == 9) {
      Check((*session)
                ->Render({.budget_tokens = 100000, .record = false})
                .status(),
            "render");
    }
  }
  auto first = (*session)->Render({.budget_tokens = 100000});
  Check(first.status(), "render");
  LatencySamples samples;
  for (auto _ : state) {
    auto start = Clock::now();
    auto r = (*session)->Render({.budget_tokens = 100000});
    samples.Add(static_cast<double>(NanosSince(start)));
    if (!r.ok()) Check(r.status(), "render");
    benchmark::DoNotOptimize(r->request_json.data());
  }
  samples.Report(state);
  auto snap = (*session)->Snapshot();
  state.counters["tokens"] = static_cast<double>(first->tokens);
  state.counters["compacted_messages"] =
      static_cast<double>(first->compacted_messages);
  state.counters["compactions"] = static_cast<double>(snap->compactions.size());
  state.counters["chat_messages"] = static_cast<double>(snap->chat_messages);
}
BENCHMARK(BM_RenderCompacted)->Unit(benchmark::kMillisecond)->Iterations(200);

}  // namespace

BENCHMARK_MAIN();
