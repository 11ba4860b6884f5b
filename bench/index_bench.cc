// find_relevant: index build throughput and query latency.
//
//   BM_IndexBuild/<docs>   first FindRelevant over <docs> variables of ~4 KiB
//                          each: chunking + FTS5 inserts (MB/s of text).
//   BM_Query/<docs>        later queries on the built index: the lazy sync
//                          check (one lookup per variable) + BM25 ranking,
//                          top 5; p50/p99 per query.
//   BM_Scale/<MiB>         the measurement: <MiB> of text in 64 KiB
//                          variables (1 GiB = 16,384 variables), indexed by
//                          one FindRelevant (build_MBps), then 40 view-wide
//                          queries (q_p50_ns, q_p99_ns) and 200 one-variable
//                          queries (key_p50_ns, key_p99_ns). The size is
//                          CTXKIT_BENCH_INDEX_MIB (default 64, so `make
//                          bench` stays short); the 1 GiB is
//                          CTXKIT_BENCH_INDEX_MIB=1024.
//
// Text is generated from a 20,000-word pseudo-vocabulary with a Zipf-like
// distribution, so BM25 has realistic document frequencies.

#include <benchmark/benchmark.h>
#include <time.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
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
std::string Doc(uint64_t seed, size_t bytes = kDocBytes) {
  const auto& v = Vocabulary();
  Rng r{seed * 0x9E3779B97F4A7C15ull + 7};
  std::string out;
  size_t line = 0;
  out.reserve(bytes + 80);
  while (out.size() < bytes) {
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

double ThreadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

uint64_t ScaleMiB() {
  const char* env = std::getenv("CTXKIT_BENCH_INDEX_MIB");
  uint64_t mib = env != nullptr ? std::strtoull(env, nullptr, 10) : 0;
  return mib > 0 ? mib : 64;
}

// Mid-frequency words: present in some documents, not in all.
std::string RandomQuery(Rng& r) {
  const auto& v = Vocabulary();
  return v[200 + r.Next() % 2000] + " " + v[200 + r.Next() % 2000] + " " +
         v[200 + r.Next() % 2000];
}

void BM_Scale(benchmark::State& state) {
  constexpr size_t kVarBytes = 64u << 10;
  const uint64_t total = static_cast<uint64_t>(state.range(0)) << 20;
  for (auto _ : state) {
    state.PauseTiming();
    TempDir dir;
    auto store = OpenBenchStore(state, dir);
    if (store == nullptr) return;
    auto view = store->OpenView("bench", "");
    uint64_t bytes = 0;
    for (uint64_t i = 0; bytes < total; ++i) {
      std::string d = Doc(i, kVarBytes);
      bytes += d.size();
      auto r = view->Set("doc/" + std::to_string(i), d);
      if (!r.ok()) {
        state.SkipWithError(r.status().ToString().c_str());
        return;
      }
    }
    state.ResumeTiming();

    auto start = Clock::now();
    const double cpu_start = ThreadCpuSeconds();
    auto built = ctxkit::FindRelevant(*view, "kalomi trenqu");
    const double build_cpu_s = ThreadCpuSeconds() - cpu_start;
    const double build_s = static_cast<double>(NanosSince(start)) / 1e9;
    if (!built.ok()) {
      state.SkipWithError(built.status().ToString().c_str());
      return;
    }
    state.counters["variables"] = static_cast<double>(built->variables_indexed);
    state.counters["chunks"] = static_cast<double>(built->chunks_indexed);
    state.counters["build_s"] = build_s;
    state.counters["build_MBps"] = static_cast<double>(bytes) / 1e6 / build_s;
    // CPU time of the indexing thread: what the build costs on a machine
    // where other processes take turns on the cores (wall time then
    // mostly measures the waiting).
    state.counters["build_cpu_s"] = build_cpu_s;
    state.counters["build_cpu_MBps"] =
        static_cast<double>(bytes) / 1e6 / build_cpu_s;

    Rng r{4242};
    LatencySamples view_wide;
    double q_cpu = ThreadCpuSeconds();
    for (int i = 0; i < 40; ++i) {
      std::string q = RandomQuery(r);
      auto t = Clock::now();
      auto res = ctxkit::FindRelevant(*view, q);
      view_wide.Add(static_cast<double>(NanosSince(t)));
      if (!res.ok()) state.SkipWithError(res.status().ToString().c_str());
    }
    state.counters["q_cpu_mean_ns"] = (ThreadCpuSeconds() - q_cpu) / 40 * 1e9;
    view_wide.Report(state, "q_");
    LatencySamples one_key;
    ctxkit::FindOptions ko;
    q_cpu = ThreadCpuSeconds();
    for (int i = 0; i < 200; ++i) {
      ko.key = "doc/" + std::to_string(r.Next() % built->variables_indexed);
      std::string q = RandomQuery(r);
      auto t = Clock::now();
      auto res = ctxkit::FindRelevant(*view, q, ko);
      one_key.Add(static_cast<double>(NanosSince(t)));
      if (!res.ok()) state.SkipWithError(res.status().ToString().c_str());
    }
    state.counters["key_cpu_mean_ns"] =
        (ThreadCpuSeconds() - q_cpu) / 200 * 1e9;
    one_key.Report(state, "key_");
    std::error_code ec;
    uint64_t db_bytes = 0;
    for (const char* f : {"/index.db", "/index.db-wal"}) {
      uint64_t n = std::filesystem::file_size(dir.Sub("home") + f, ec);
      if (!ec) db_bytes += n;
    }
    state.counters["index_db_MB"] = static_cast<double>(db_bytes) / 1e6;
    state.SetBytesProcessed(static_cast<int64_t>(bytes));
  }
}
BENCHMARK(BM_Scale)
    ->Arg(static_cast<int64_t>(ScaleMiB()))
    ->Unit(benchmark::kSecond)
    ->Iterations(1)
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
