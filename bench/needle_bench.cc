// Needle retrieval with find_relevant (the acceptance measurement).
//
//   BM_NeedleRecall   100 generated cases (tests/index/needle_cases.h), each
//                     a ~132k-token haystack of real text from this machine
//                     (/usr/share/common-licenses and
//                     /usr/share/doc/*/copyright) with one planted fact at a
//                     varied depth, and a question that paraphrases it.
//                     Each haystack is one variable; find_relevant(question,
//                     key = that variable, top_k = 5) must return the fact's
//                     chunk. Counters: recall_at_5 (fraction of cases),
//                     recall_at_1, mrr (mean reciprocal rank, 0 when not in
//                     the top 5), index_s (indexing all haystacks: the first
//                     call), q_p50_ns / q_p99_ns per question.
//
// CTXKIT_BENCH_NEEDLE_CASES changes the number of cases (default 100).

#include <benchmark/benchmark.h>
#include <time.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "../tests/index/needle_cases.h"
#include "bench_util.h"
#include "ctxkit/index.h"
#include "ctxkit/store.h"

namespace {

using ctxkit_bench::Clock;
using ctxkit_bench::LatencySamples;
using ctxkit_bench::NanosSince;
using ctxkit_bench::TempDir;

constexpr size_t kHaystackTokens = 132000;

int CaseCount() {
  const char* env = std::getenv("CTXKIT_BENCH_NEEDLE_CASES");
  int n = env != nullptr ? std::atoi(env) : 0;
  return n > 0 ? n : 100;
}

void BM_NeedleRecall(benchmark::State& state) {
  const int cases = CaseCount();
  for (auto _ : state) {
    state.PauseTiming();
    const auto corpus = ctxkit::needle::LoadCorpus(true);
    if (corpus.size() < 100) {
      state.SkipWithError("no corpus under /usr/share/common-licenses");
      return;
    }
    TempDir dir;
    auto store = OpenBenchStore(state, dir);
    if (store == nullptr) return;
    auto view = store->OpenView("bench", "");
    std::vector<ctxkit::needle::Case> all;
    double tokens = 0;
    uint64_t bytes = 0;
    for (int i = 0; i < cases; ++i) {
      all.push_back(ctxkit::needle::MakeCase(corpus, i, kHaystackTokens));
      tokens += static_cast<double>(all.back().tokens);
      bytes += all.back().haystack.size();
      auto r = view->Set("needle/" + std::to_string(i), all.back().haystack);
      if (!r.ok()) {
        state.SkipWithError(r.status().ToString().c_str());
        return;
      }
    }
    state.ResumeTiming();

    auto start = Clock::now();
    timespec c0{};
    timespec c1{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
    auto built = ctxkit::FindRelevant(*view, "warm up the index");
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
    const double index_s = static_cast<double>(NanosSince(start)) / 1e9;
    state.counters["index_cpu_s"] =
        static_cast<double>(c1.tv_sec - c0.tv_sec) +
        static_cast<double>(c1.tv_nsec - c0.tv_nsec) / 1e9;
    if (!built.ok()) {
      state.SkipWithError(built.status().ToString().c_str());
      return;
    }
    int at1 = 0;
    int at5 = 0;
    double rr = 0;
    LatencySamples latency;
    for (int i = 0; i < cases; ++i) {
      const auto& c = all[i];
      ctxkit::FindOptions fo;
      fo.key = "needle/" + std::to_string(i);
      fo.top_k = 5;
      auto t = Clock::now();
      auto r = ctxkit::FindRelevant(*view, c.question, fo);
      latency.Add(static_cast<double>(NanosSince(t)));
      if (!r.ok()) {
        state.SkipWithError(r.status().ToString().c_str());
        return;
      }
      for (size_t k = 0; k < r->hits.size(); ++k) {
        const auto& h = r->hits[k];
        if (h.byte_offset <= c.fact_begin &&
            c.fact_end <= h.byte_offset + h.byte_length) {
          ++at5;
          at1 += k == 0 ? 1 : 0;
          rr += 1.0 / static_cast<double>(k + 1);
          break;
        }
      }
    }
    state.counters["cases"] = cases;
    state.counters["haystack_tokens"] = tokens / cases;
    state.counters["corpus_paragraphs"] = static_cast<double>(corpus.size());
    state.counters["index_s"] = index_s;
    state.counters["index_MBps"] = static_cast<double>(bytes) / 1e6 / index_s;
    state.counters["recall_at_5"] = static_cast<double>(at5) / cases;
    state.counters["recall_at_1"] = static_cast<double>(at1) / cases;
    state.counters["mrr"] = rr / cases;
    latency.Report(state, "q_");
  }
}
BENCHMARK(BM_NeedleRecall)
    ->Unit(benchmark::kSecond)
    ->Iterations(1)
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
