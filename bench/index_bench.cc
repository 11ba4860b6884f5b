// find_relevant: index build throughput and query latency.
//
//   BM_IndexBuild/<docs>   first FindRelevant over <docs> variables of ~4 KiB
//                          each: chunking + FTS5 inserts (MB/s of text).
//   BM_Query/<docs>        later queries on the built index: the lazy sync
//                          check (one lookup per variable) + BM25 ranking,
//                          top 5; p50/p99 per query.
//
// Text is generated from a 20,000-word pseudo-vocabulary with a Zipf-like
// distribution, so BM25 has realistic document frequencies.

#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "bench_util.h"
#include "ctxkit/index.h"
#include "ctxkit/store.h"

namespace {

using ctxkit_bench::Clock;
using ctxkit_bench::LatencySamples;
using ctxkit_bench::NanosSince;
using ctxkit_bench::TempDir;

constexpr size_t kDocBytes = 4096;

struct Rng {
  uint64_t x;
  uint64_t Next() {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x;
  }
};

const std::vector<std::string>& Vocabulary() {
  static const std::vector<std::string> words = [] {
    static constexpr const char* kSyllables[] = {
        "ka", "lo", "mi", "tr", "en", "qu", "zo", "ri", "sa", "ve",
        "no", "pa", "du", "xi", "ch", "or", "el", "an", "st", "um"};
    std::vector<std::string> w;
    Rng r{12345};
    for (int i = 0; i < 20000; ++i) {
      std::string s;
      int n = 2 + static_cast<int>(r.Next() % 3);
      for (int j = 0; j < n; ++j) s += kSyllables[r.Next() % 20];
      w.push_back(s);
    }
    return w;
  }();
  return words;
}

// Zipf-ish: index = floor(N * u^3) favours small indexes.
std::string Doc(uint64_t seed) {
  const auto& v = Vocabulary();
  Rng r{seed * 0x9E3779B97F4A7C15ull + 7};
  std::string out;
  size_t line = 0;
  while (out.size() < kDocBytes) {
    double u = static_cast<double>(r.Next() % 1000000) / 1e6;
    const std::string& w = v[static_cast<size_t>(u * u * u * v.size())];
    out += w;
    line += w.size() + 1;
    if (line > 70) {
      out += '\n';
      line = 0;
    } else {
      out += ' ';
    }
  }
  return out;
}

struct Fixture {
  TempDir dir;
  std::unique_ptr<ctxkit::Store> store;
  std::unique_ptr<ctxkit::View> view;
  uint64_t bytes = 0;

  explicit Fixture(int docs) {
    ctxkit::Options o;
    o.home = dir.Sub("home");
    o.durability = ctxkit::Durability::kProcess;
    auto opened = ctxkit::Store::Open(o);
    if (!opened.ok()) std::abort();
    store = std::move(opened).value();
    view = std::make_unique<ctxkit::View>(*store->OpenView("bench", ""));
    for (int i = 0; i < docs; ++i) {
      std::string d = Doc(static_cast<uint64_t>(i));
      bytes += d.size();
      (void)view->Set("doc/" + std::to_string(i), d);
    }
  }
};

void BM_IndexBuild(benchmark::State& state) {
  uint64_t bytes = 0;
  for (auto _ : state) {
    state.PauseTiming();
    Fixture f(static_cast<int>(state.range(0)));
    state.ResumeTiming();
    auto r = ctxkit::FindRelevant(*f.view, "kalomi trenqu");
    if (!r.ok()) state.SkipWithError(r.status().ToString().c_str());
    bytes += f.bytes;
  }
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
}
BENCHMARK(BM_IndexBuild)
    ->Arg(1000)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(2);

void BM_Query(benchmark::State& state) {
  Fixture f(static_cast<int>(state.range(0)));
  (void)ctxkit::FindRelevant(*f.view, "warm up");
  const auto& v = Vocabulary();
  Rng r{99};
  LatencySamples samples;
  for (auto _ : state) {
    // Mid-frequency words: present in some documents, not in all.
    std::string q = v[200 + r.Next() % 2000] + " " + v[200 + r.Next() % 2000] +
                    " " + v[200 + r.Next() % 2000];
    auto start = Clock::now();
    auto res = ctxkit::FindRelevant(*f.view, q);
    samples.Add(static_cast<double>(NanosSince(start)));
    if (!res.ok()) state.SkipWithError(res.status().ToString().c_str());
  }
  samples.Report(state);
}
BENCHMARK(BM_Query)->Arg(1000)->Arg(10000)->Unit(benchmark::kMicrosecond);

// One variable (FindOptions::key): no listing, so this is the sync check
// of one variable plus the FTS5 match over the whole index.
void BM_QueryOneKey(benchmark::State& state) {
  Fixture f(static_cast<int>(state.range(0)));
  (void)ctxkit::FindRelevant(*f.view, "warm up");
  const auto& v = Vocabulary();
  Rng r{99};
  ctxkit::FindOptions o;
  o.key = "doc/7";
  LatencySamples samples;
  for (auto _ : state) {
    std::string q = v[200 + r.Next() % 2000] + " " + v[r.Next() % 200];
    auto start = Clock::now();
    auto res = ctxkit::FindRelevant(*f.view, q, o);
    samples.Add(static_cast<double>(NanosSince(start)));
    if (!res.ok()) state.SkipWithError(res.status().ToString().c_str());
  }
  samples.Report(state);
}
BENCHMARK(BM_QueryOneKey)->Arg(10000)->Unit(benchmark::kMicrosecond);

// The floor under BM_Query: listing what a view sees (View::List pages of
// 1000), which every view-wide query does before ranking.
void BM_ListOnly(benchmark::State& state) {
  Fixture f(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    ctxkit::ListFilter filter;
    filter.limit = 1000;
    size_t n = 0;
    while (true) {
      auto page = f.view->List(filter);
      if (!page.ok()) break;
      n += page->items.size();
      if (page->next_cursor.empty()) break;
      filter.cursor = page->next_cursor;
    }
    benchmark::DoNotOptimize(n);
  }
}
BENCHMARK(BM_ListOnly)->Arg(10000)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
