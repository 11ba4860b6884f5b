// Session benchmarks (docs/sessions.md):
//
//   BM_Render100k      render with 100,000 objects in the metadata pool, 50
//                      active, budget 100k tokens: per-render latency.
//   BM_PrefixStability a scripted 50-turn session with tool calls, rendered
//                      after every turn by the session renderer and by a
//                      naive renderer (every tool output inlined in order,
//                      oldest messages trimmed to fit) in the same run: the
//                      share of each turn's rendered tokens that equal a
//                      prefix of the previous turn's render.

#include <benchmark/benchmark.h>

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

void BM_Render100k(benchmark::State& state) {
  const int kObjects = 100000;
  const int kActive = 50;
  TempDir dir;
  auto store = OpenStore(dir.Sub("store"));
  auto view = store->OpenView("", "");
  Check(view.status(), "view");
  std::vector<std::string> keys;
  keys.reserve(kObjects);
  for (int i = 0; i < kObjects; ++i) {
    keys.push_back("obj/" + std::to_string(i));
    // Small variables; the 50 active ones get ~1,500-token contents below.
    std::string value = "variable " + std::to_string(i) + ": " +
                        ctxkit_bench::MakeText(120, static_cast<uint64_t>(i));
    Check(view->Set(keys.back(), value).status(), "set");
  }
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

// Tokens of the longest common byte prefix of two renders, as a share of
// the later render's tokens (the serialized request: what a provider's
// prompt cache compares).
double PrefixShare(const std::string& prev, const std::string& cur) {
  size_t n = 0;
  while (n < prev.size() && n < cur.size() && prev[n] == cur[n]) ++n;
  return static_cast<double>(Tok().Count(std::string_view(cur).substr(0, n))) /
         static_cast<double>(Tok().Count(cur));
}

// The naive renderer: the whole log, every tool output inline, oldest
// non-system messages trimmed until the text fits the budget (counted as
// the session renderer counts: every text string).
std::string NaiveRender(const json& log, uint64_t budget) {
  json msgs = log["messages"];
  auto count = [&](const json& m) {
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
  };
  uint64_t total = 0;
  for (const auto& m : msgs) total += count(m);
  size_t first = 1;  // msgs[0] is the system prompt.
  while (total > budget && first < msgs.size()) total -= count(msgs[first++]);
  json out = json::array();
  out.push_back(msgs[0]);
  for (size_t i = first; i < msgs.size(); ++i) out.push_back(msgs[i]);
  return json{{"messages", out}}.dump();
}

void BM_PrefixStability(benchmark::State& state) {
  const int kTurns = 50;
  const int kLines = static_cast<int>(state.range(0));
  const uint64_t kBudget = static_cast<uint64_t>(state.range(1));
  // A system prompt of about range(2) tokens (a harness's instructions and
  // tool definitions), and the policy's collapse batch.
  std::string system = "You are a coding agent.";
  while (Tok().Count(system) < static_cast<size_t>(state.range(2))) {
    system += "\nTool guideline " + std::to_string(system.size()) +
              ": prefer narrow searches; read files by range; keep answers "
              "short and cite the files you used.";
  }
  ctxkit::SessionPolicy policy;
  policy.min_collapse_tokens = static_cast<uint64_t>(state.range(3));
  double ours = 0, naive = 0, ours_min = 1, naive_min = 1;
  uint64_t ours_tokens = 0, naive_tokens = 0;
  for (auto _ : state) {
    TempDir dir;
    auto store = OpenStore(dir.Sub("store"));
    auto session = ctxkit::Session::Create(*store, "turns", policy);
    Check(session.status(), "create");
    std::string prev_ours, prev_naive;
    ours = naive = 0;
    ours_min = naive_min = 1;
    for (int t = 1; t <= kTurns; ++t) {
      json log = ctxkit::testing::OpenAILog(t, kLines, system);
      Check((*session)->Ingest(log.dump(), ctxkit::LogFormat::kOpenAI).status(),
            "ingest");
      auto r = (*session)->Render({.budget_tokens = kBudget});
      Check(r.status(), "render");
      std::string cur_naive = NaiveRender(log, kBudget);
      if (t > 1) {
        double o = PrefixShare(prev_ours, r->request_json);
        double n = PrefixShare(prev_naive, cur_naive);
        ours += o;
        naive += n;
        ours_min = std::min(ours_min, o);
        if (std::getenv("CTXKIT_BENCH_VERBOSE") != nullptr) {
          std::fprintf(
              stderr, "turn %2d ours %5.1f%% (%llu tokens) naive %5.1f%%\n", t,
              100 * o, static_cast<unsigned long long>(r->tokens), 100 * n);
        }
        naive_min = std::min(naive_min, n);
      }
      prev_ours = r->request_json;
      prev_naive = cur_naive;
      ours_tokens = r->tokens;
    }
    naive_tokens = Tok().Count(prev_naive);
  }
  state.counters["ours_avg_prefix_pct"] = 100.0 * ours / (kTurns - 1);
  state.counters["naive_avg_prefix_pct"] = 100.0 * naive / (kTurns - 1);
  state.counters["ours_min_prefix_pct"] = 100.0 * ours_min;
  state.counters["naive_min_prefix_pct"] = 100.0 * naive_min;
  state.counters["ours_last_tokens"] = static_cast<double>(ours_tokens);
  state.counters["naive_last_json_tokens"] = static_cast<double>(naive_tokens);
}
// Args: lines per tool output (~17 tokens each), budget tokens, system
// prompt tokens, SessionPolicy::min_collapse_tokens.
BENCHMARK(BM_PrefixStability)
    ->Args({40, 16000, 0, 2000})
    ->Args({40, 16000, 0, 8000})
    ->Args({40, 16000, 2000, 8000})
    ->Args({40, 32000, 2000, 8000})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
