// Search and peek throughput of the explore layer (include/ctxkit/explore.h)
// against ripgrep over the same content as files, measured in one run.
//
//   explore/search_literal   Search over every variable of a store (literal),
//                            max_results high enough that the whole store
//                            is scanned, on the threads Search uses (one
//                            per hardware thread, at most 8).
//   explore/search_regex     The same with an RE2 regex.
//   rg/literal, rg/regex     `rg -n -b --no-heading -j1` (line number, byte
//                            offset and line of every match: what a ctxkit
//                            match holds) over the same bytes written as
//                            one file per variable on the same disk, output
//                            to a file; page cache warm for both. Wall time
//                            of the child process.
//   explore/peek_head        Peek lines 100-110 of a 64 MiB variable.
//
// Counters: bytes_per_second (wall), cpu_ms (CPU time per iteration: this
// process for ctxkit, the rg child for rg; on a loaded machine the fairer
// comparison), matches (both sides must agree).
//
// Size: CTXKIT_EXPLORE_BENCH_MB (default 256) MiB in 1 MiB variables of
// generated log-like text with a rare needle.

#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <random>
#include <string>

#include "bench_util.h"
#include "ctxkit/explore.h"
#include "ctxkit/store.h"

namespace {

constexpr uint64_t kVarBytes = 1ull << 20;

uint64_t TotalMiB() {
  const char* env = std::getenv("CTXKIT_EXPLORE_BENCH_MB");
  return env != nullptr && *env != '\0' ? std::strtoull(env, nullptr, 10) : 256;
}

std::string LogText(uint64_t seed, uint64_t bytes) {
  static const char* kWords[] = {"request", "served",  "user",   "cache",
                                 "miss",    "latency", "ms",     "GET",
                                 "POST",    "/api/v1", "status", "200",
                                 "retry",   "queue",   "worker", "done"};
  std::mt19937_64 rng(seed);
  std::string s;
  s.reserve(bytes + 128);
  while (s.size() < bytes) {
    s += "2024-05-01T12:00:" + std::to_string(rng() % 60) + " ";
    const int n = 4 + rng() % 10;
    for (int i = 0; i < n; ++i) {
      s += kWords[rng() % 16];
      s += ' ';
    }
    if (rng() % 20000 == 0) s += "needle-xyzzy error 504 ";
    s += '\n';
  }
  s.resize(bytes);
  s.back() = '\n';
  return s;
}

struct Corpus {
  ctxkit_bench::TempDir dir;
  std::unique_ptr<ctxkit::Store> store;
  std::optional<ctxkit::View> view;
  std::string files;
  uint64_t bytes = 0;

  Corpus() {
    ctxkit::Options o;
    o.home = dir.path() + "/home";
    o.durability = ctxkit::Durability::kProcess;
    store = std::move(ctxkit::Store::Open(o).value());
    view.emplace(*store->OpenView("bench", ""));
    files = dir.path() + "/files";
    std::filesystem::create_directories(files);
    const uint64_t n = TotalMiB() * (1ull << 20) / kVarBytes;
    for (uint64_t i = 0; i < n; ++i) {
      const std::string key = "logs/" + std::to_string(i);
      const std::string text = LogText(i, kVarBytes);
      if (!view->Set(key, text).ok()) std::abort();
      std::ofstream(files + "/" + std::to_string(i)) << text;
      bytes += text.size();
    }
    std::string big;
    for (int i = 0; i < 64; ++i) big += LogText(1000 + i, kVarBytes);
    if (!view->Set("big", big).ok()) std::abort();
  }
};

// Built on first use and removed, directory and all, at exit.
Corpus& TheCorpus() {
  static Corpus corpus;
  return corpus;
}

// CPU seconds (user + system) of this process, or of its waited-for
// children.
double CpuSeconds(int who) {
  struct rusage ru {};
  getrusage(who, &ru);
  auto sec = [](const timeval& t) { return t.tv_sec + t.tv_usec * 1e-6; };
  return sec(ru.ru_utime) + sec(ru.ru_stime);
}

void RunSearch(benchmark::State& state, const char* pattern, bool regex) {
  Corpus& c = TheCorpus();
  ctxkit::SearchOptions o;
  o.regex = regex;
  o.max_results = 1000000;
  o.key_prefix = "logs/";
  uint64_t matches = 0;
  const double cpu_start = CpuSeconds(RUSAGE_SELF);
  for (auto _ : state) {
    auto r = ctxkit::Search(*c.view, pattern, o);
    if (!r.ok()) {
      state.SkipWithError(r.status().ToString().c_str());
      return;
    }
    matches = r->matches.size();
  }
  state.SetBytesProcessed(state.iterations() * c.bytes);
  state.counters["matches"] = matches;
  state.counters["cpu_ms"] =
      (CpuSeconds(RUSAGE_SELF) - cpu_start) * 1e3 / state.iterations();
}

void BM_SearchLiteral(benchmark::State& state) {
  RunSearch(state, "needle-xyzzy", false);
}
void BM_SearchRegex(benchmark::State& state) {
  RunSearch(state, R"(needle-\w+ error 5\d\d)", true);
}

void RunRg(benchmark::State& state, const std::string& args) {
  Corpus& c = TheCorpus();
  if (std::system("command -v rg >/dev/null 2>&1") != 0) {
    state.SkipWithError("rg (Debian ripgrep) is not installed");
    return;
  }
  // Not /dev/null: the output is written, as a caller would consume it.
  const std::string out = c.dir.path() + "/rg.out";
  const std::string cmd =
      "rg -n -b --no-heading -j1 " + args + " " + c.files + " >" + out;
  const double cpu_start = CpuSeconds(RUSAGE_CHILDREN);
  for (auto _ : state) {
    auto start = std::chrono::steady_clock::now();
    if (std::system(cmd.c_str()) != 0) {
      state.SkipWithError("rg failed");
      return;
    }
    state.SetIterationTime(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count());
  }
  state.SetBytesProcessed(state.iterations() * c.bytes);
  state.counters["cpu_ms"] =
      (CpuSeconds(RUSAGE_CHILDREN) - cpu_start) * 1e3 / state.iterations();
  std::ifstream in(out);
  uint64_t lines = 0;
  for (std::string line; std::getline(in, line);) ++lines;
  state.counters["matches"] = lines;
}

void BM_RgLiteral(benchmark::State& state) { RunRg(state, "-F needle-xyzzy"); }
void BM_RgRegex(benchmark::State& state) {
  RunRg(state, R"('needle-\w+ error 5\d\d')");
}

void BM_PeekHead(benchmark::State& state) {
  Corpus& c = TheCorpus();
  ctxkit::PeekOptions o;
  o.start = 100;
  o.end = 110;
  uint64_t read = 0;
  for (auto _ : state) {
    auto r = ctxkit::Peek(*c.view, "big", o);
    if (!r.ok()) std::abort();
    read = r->bytes_read;
  }
  state.counters["bytes_read"] = read;
}

}  // namespace

BENCHMARK(BM_SearchLiteral)
    ->Name("explore/search_literal")
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RgLiteral)
    ->Name("rg/literal")
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SearchRegex)
    ->Name("explore/search_regex")
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RgRegex)
    ->Name("rg/regex")
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PeekHead)
    ->Name("explore/peek_head")
    ->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
