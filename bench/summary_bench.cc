// summarize: the first call (read by range + structural summarizer + cache
// write) against the cached call (cache hit: no value read, no summarizer).
//
//   BM_Summarize/<kind>/<MiB>   kind 0 = text, 1 = JSON array of objects.
//                               Each iteration stores a new version (unique
//                               content, so the first call is a cache miss),
//                               then times Summarize twice with the
//                               structural summarizer and max_tokens = 500.
//                               Counters: first_p50_ns, cached_p50_ns (and
//                               p99/max), speedup = first_p50 / cached_p50.

#include <benchmark/benchmark.h>

#include <cstdint>
#include <memory>
#include <string>

#include "bench_util.h"
#include "ctxkit/store.h"
#include "ctxkit/summary.h"

namespace {

using ctxkit_bench::Clock;
using ctxkit_bench::LatencySamples;
using ctxkit_bench::MakeText;
using ctxkit_bench::NanosSince;
using ctxkit_bench::Stamp;
using ctxkit_bench::TempDir;

std::string MakeJson(size_t size) {
  std::string out = "[";
  for (uint64_t i = 0; out.size() < size; ++i) {
    if (i > 0) out += ",";
    out += R"({"id":)" + std::to_string(i) + R"(,"name":"item )" +
           std::to_string(i) + R"(","status":")" +
           (i % 3 == 0 ? "ok" : "failed") + R"(","score":)" +
           std::to_string(i % 97) +
           R"(.5,"tags":["a","b"],"owner":{"team":"t)" +
           std::to_string(i % 13) + R"(","oncall":true}})";
  }
  out += "]";
  return out;
}

void BM_Summarize(benchmark::State& state) {
  const bool json = state.range(0) == 1;
  const size_t size = static_cast<size_t>(state.range(1)) << 20;
  TempDir dir;
  auto store = OpenBenchStore(state, dir);
  if (store == nullptr) return;
  auto view = store->OpenView("bench", "");
  std::string value = json ? MakeJson(size) : MakeText(size, 1);
  ctxkit::SetOptions so;
  so.type = json ? ctxkit::ValueType::kJson : ctxkit::ValueType::kText;
  ctxkit::SummarizeOptions opts;
  opts.summarizer = ctxkit::SummarizerKind::kStructural;
  opts.max_tokens = 500;
  LatencySamples first;
  LatencySamples cached;
  uint64_t n = 0;
  for (auto _ : state) {
    state.PauseTiming();
    if (json) {
      // Unique content that stays valid JSON: a different first id.
      std::string id = std::to_string(1000000000ull + n++);
      std::string v = value;
      v.replace(7, 1, id);
      if (!view->Set("v", v, so).ok()) state.SkipWithError("set failed");
    } else {
      Stamp(&value, n++);
      if (!view->Set("v", value, so).ok()) state.SkipWithError("set failed");
    }
    state.ResumeTiming();
    auto t = Clock::now();
    auto s1 = ctxkit::Summarize(*view, "v", opts);
    first.Add(static_cast<double>(NanosSince(t)));
    t = Clock::now();
    auto s2 = ctxkit::Summarize(*view, "v", opts);
    cached.Add(static_cast<double>(NanosSince(t)));
    if (!s1.ok() || !s2.ok() || s1->cached || !s2->cached) {
      state.SkipWithError("expected a miss, then a hit");
      return;
    }
  }
  const double f = first.Percentile(0.5);
  const double c = cached.Percentile(0.5);
  first.Report(state, "first_");
  cached.Report(state, "cached_");
  state.counters["speedup"] = c > 0 ? f / c : 0;
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * size));
}
BENCHMARK(BM_Summarize)
    ->ArgNames({"json", "MiB"})
    ->Args({0, 1})
    ->Args({1, 1})
    ->Iterations(10)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Summarize)
    ->ArgNames({"json", "MiB"})
    ->Args({0, 32})
    ->Args({1, 32})
    ->Iterations(3)
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
