// Chat storage growth (docs/sessions.md, docs/benchmarks.md):
//
//   BM_ChatGrowth  a realistic harness log (tests/session/log_builders.h:
//                  RealisticOpenAILog) ingested one turn at a time, each
//                  ingestion fed the whole log so far, as a harness does.
//                  Reports the store's durable content bytes
//                  (Store::Stats().content_bytes) after the last turn, the
//                  final log's size, and their ratio; plus per-ingestion
//                  latency. The anchor, from the same run: what the store
//                  would hold had every ingestion stored its chat version
//                  whole, as builds before the appendable chat did (one
//                  JSON array per version: the chat's lines plus one byte,
//                  "[" and "]" for the first and last newline and ","
//                  for the others), everything else being written alike.
//
// Args: turns. 300 turns are a log of about 468 KB.

#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "../tests/session/log_builders.h"
#include "bench_util.h"
#include "ctxkit/session.h"
#include "ctxkit/store.h"

namespace {

using ctxkit_bench::Clock;
using ctxkit_bench::LatencySamples;
using ctxkit_bench::NanosSince;
using ctxkit_bench::TempDir;

void BM_ChatGrowth(benchmark::State& state) {
  const int turns = static_cast<int>(state.range(0));
  // Every prefix of the log, built before the clock starts.
  std::vector<std::string> logs;
  logs.reserve(static_cast<size_t>(turns));
  for (int t = 1; t <= turns; ++t) {
    logs.push_back(ctxkit::testing::RealisticOpenAILog(t).dump());
  }
  uint64_t content_bytes = 0;
  uint64_t whole_chat_bytes = 0;  // Each chat version stored whole.
  uint64_t last_chat_bytes = 0;
  LatencySamples samples;
  for (auto _ : state) {
    TempDir dir;
    auto store = ctxkit_bench::OpenBenchStore(state, dir);
    if (store == nullptr) return;
    auto session = ctxkit::Session::Create(*store, "growth", {});
    auto sv = store->OpenView("", "growth");
    if (!session.ok() || !sv.ok()) {
      state.SkipWithError("cannot create the session");
      return;
    }
    whole_chat_bytes = 0;
    for (const std::string& log : logs) {
      auto start = Clock::now();
      auto r = (*session)->Ingest(log, ctxkit::LogFormat::kOpenAI);
      samples.Add(static_cast<double>(NanosSince(start)));
      if (!r.ok()) {
        state.SkipWithError(r.status().ToString().c_str());
        return;
      }
      auto chat = sv->Stat("ctxkit.session/chat", {.scope = "session"});
      if (!chat.ok()) {
        state.SkipWithError(chat.status().ToString().c_str());
        return;
      }
      last_chat_bytes = chat->size_bytes;
      whole_chat_bytes += chat->size_bytes + 1;
    }
    auto stats = store->Stats();
    if (!stats.ok()) {
      state.SkipWithError(stats.status().ToString().c_str());
      return;
    }
    content_bytes = stats->content_bytes;
  }
  samples.Report(state);
  const double log_bytes = static_cast<double>(logs.back().size());
  state.counters["log_bytes"] = log_bytes;
  state.counters["content_bytes"] = static_cast<double>(content_bytes);
  state.counters["ratio"] = static_cast<double>(content_bytes) / log_bytes;
  // The chat this run stored is its last version's bytes (a first set, then
  // appends); the anchor stores every version whole instead.
  const double whole =
      static_cast<double>(content_bytes - last_chat_bytes + whole_chat_bytes);
  state.counters["whole_chat_content_bytes"] = whole;
  state.counters["whole_chat_ratio"] = whole / log_bytes;
}
BENCHMARK(BM_ChatGrowth)
    ->Arg(60)
    ->Arg(300)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
