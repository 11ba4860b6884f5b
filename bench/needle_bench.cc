// Needle retrieval with find_relevant (the acceptance measurement).
//
//   BM_NeedleRecall   100 generated cases (tests/index/needle_cases.h), each
//                     a ~132k-token haystack of real text from this machine
//                     (/usr/share/common-licenses and
//                     /usr/share/doc/*/copyright) with one planted fact at a
//                     varied depth, and a question that paraphrases it
//                     keeping its names.
//   BM_RewordedRecall The same haystacks with the 100 hand-written facts of
//                     tests/index/data/reworded_facts.tsv, whose questions
//                     share at most one content word with their fact.
//
// Each haystack is one variable; find_relevant(question, key = that
// variable, top_k = 5) must return the fact's chunk. Every question is
// asked twice, interleaved: widened with related words (the default) and
// literal (widen = false, the anchor). Counters: recall_at_5 (fraction of
// cases), recall_at_1, mrr (mean reciprocal rank, 0 when not in the top 5)
// widened; literal_recall_at_5 / _at_1; index_s (indexing all haystacks:
// the first call); q_p50_ns / q_p99_ns per widened question and
// literal_q_* per literal one.
//
// CTXKIT_BENCH_NEEDLE_CASES changes the number of cases (default 100).

#include <benchmark/benchmark.h>
#include <time.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <functional>
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

using MakeCaseFn = std::function<ctxkit::needle::Case(
    const std::vector<ctxkit::needle::Paragraph>&, int)>;

// Plants `cases` facts made by `make` in haystacks, one variable each,
// indexes them (the first call), then asks each question twice, with the
// query's own words (literal) and widened with related words, and counts
// the facts whose chunk is in the top 5.
void RunRecall(benchmark::State& state, int cases, const MakeCaseFn& make) {
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
      all.push_back(make(corpus, i));
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
    struct Tally {
      int at1 = 0;
      int at5 = 0;
      double rr = 0;
      LatencySamples latency;
    } widened, literal;
    for (int i = 0; i < cases; ++i) {
      const auto& c = all[i];
      // Interleaved: the literal query, then the widened one.
      for (Tally* t : {&literal, &widened}) {
        ctxkit::FindOptions fo;
        fo.key = "needle/" + std::to_string(i);
        fo.top_k = 5;
        fo.widen = t == &widened;
        auto q = Clock::now();
        auto r = ctxkit::FindRelevant(*view, c.question, fo);
        t->latency.Add(static_cast<double>(NanosSince(q)));
        if (!r.ok()) {
          state.SkipWithError(r.status().ToString().c_str());
          return;
        }
        for (size_t k = 0; k < r->hits.size(); ++k) {
          const auto& h = r->hits[k];
          if (ctxkit::needle::HoldsFact(c, h.byte_offset, h.byte_length)) {
            ++t->at5;
            t->at1 += k == 0 ? 1 : 0;
            t->rr += 1.0 / static_cast<double>(k + 1);
            break;
          }
        }
      }
    }
    state.counters["cases"] = cases;
    state.counters["haystack_tokens"] = tokens / cases;
    state.counters["corpus_paragraphs"] = static_cast<double>(corpus.size());
    state.counters["index_s"] = index_s;
    state.counters["index_MBps"] = static_cast<double>(bytes) / 1e6 / index_s;
    state.counters["recall_at_5"] = static_cast<double>(widened.at5) / cases;
    state.counters["recall_at_1"] = static_cast<double>(widened.at1) / cases;
    state.counters["mrr"] = widened.rr / cases;
    state.counters["literal_recall_at_5"] =
        static_cast<double>(literal.at5) / cases;
    state.counters["literal_recall_at_1"] =
        static_cast<double>(literal.at1) / cases;
    widened.latency.Report(state, "q_");
    literal.latency.Report(state, "literal_q_");
  }
}

void BM_NeedleRecall(benchmark::State& state) {
  RunRecall(state, CaseCount(), [](const auto& corpus, int i) {
    return ctxkit::needle::MakeCase(corpus, i, kHaystackTokens);
  });
}
BENCHMARK(BM_NeedleRecall)
    ->Unit(benchmark::kSecond)
    ->Iterations(1)
    ->UseRealTime();

void BM_RewordedRecall(benchmark::State& state) {
  const auto set = ctxkit::needle::LoadReworded(
      std::string(CTXKIT_SOURCE_DIR) + "/tests/index/data/reworded_facts.tsv");
  if (set.empty()) {
    state.SkipWithError("cannot read tests/index/data/reworded_facts.tsv");
    return;
  }
  const int cases = std::min<int>(CaseCount(), static_cast<int>(set.size()));
  RunRecall(state, cases, [&set](const auto& corpus, int i) {
    return ctxkit::needle::MakeRewordedCase(corpus, set, i, kHaystackTokens);
  });
}
BENCHMARK(BM_RewordedRecall)
    ->Unit(benchmark::kSecond)
    ->Iterations(1)
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
