// Peak RSS of a process using a store with a modest memory ceiling.
//
// Opens a store with a 64 MiB ceiling, writes 4x the ceiling of session-only
// values (sizes around and above the 32 KiB spill threshold) and 4x the
// ceiling of durable values (inline and blob-file sizes), then reads
// everything back twice in a pattern that fills the memory tier and forces
// eviction and spill. Reports the process's peak RSS (VmHWM, reset right
// before the store is opened) against the ceiling and against the largest
// Store::Stats().memory_used_bytes seen.
//
// It is its own program because VmHWM is per process: nothing else may run
// in it. One benchmark, one iteration; bench/run.sh writes the JSON and
// bench/report.py the table.

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bench_util.h"
#include "ctxkit/store.h"

namespace {

using ctxkit_bench::Clock;
using ctxkit_bench::MakeText;
using ctxkit_bench::NanosSince;
using ctxkit_bench::ProcStatusBytes;
using ctxkit_bench::ResetPeakRss;
using ctxkit_bench::Stamp;
using ctxkit_bench::TempDir;

constexpr uint64_t kKiB = 1024;
constexpr uint64_t kMiB = 1024 * 1024;

struct Item {
  std::string key;
  uint64_t size;
};

void BM_MemoryCeiling(benchmark::State& state) {
  const uint64_t ceiling = static_cast<uint64_t>(state.range(0)) * kMiB;
  const uint64_t to_write = 4 * ceiling;  // Of each kind.
  // Session-only sizes straddle the 32 KiB spill threshold; durable sizes
  // cover inline (<= 64 KiB) and blob-file contents.
  const std::vector<uint64_t> session_sizes = {
      2 * kKiB, 8 * kKiB, 24 * kKiB, 31 * kKiB, 48 * kKiB, 512 * kKiB};
  const std::vector<uint64_t> durable_sizes = {
      4 * kKiB, 32 * kKiB, 64 * kKiB, 256 * kKiB, 1024 * kKiB, 4096 * kKiB};
  // One source buffer; each value is a slice of it with a unique stamp.
  const std::string source = MakeText(4 * kMiB, 7);

  // The write buffer, sized and touched before the baseline so that the
  // peak measures the store (and Get's returned strings), not this program.
  std::string value(
      *std::max_element(durable_sizes.begin(), durable_sizes.end()), 'x');

  for (auto _ : state) {
    TempDir dir;
    uint64_t max_used = 0;
    uint64_t errors = 0;
    uint64_t ops = 0;
    const uint64_t baseline_rss = ProcStatusBytes("VmRSS");
    const bool reset = ResetPeakRss();
    auto start = Clock::now();
    {
      ctxkit::Options options;
      options.home = dir.path();
      options.memory_ceiling_bytes = ceiling;
      auto opened = ctxkit::Store::Open(options);
      if (!opened.ok()) {
        state.SkipWithError(opened.status().ToString().c_str());
        return;
      }
      std::unique_ptr<ctxkit::Store> store = std::move(opened).value();
      auto view = store->OpenView("mem", "s1");
      if (!view.ok()) {
        state.SkipWithError(view.status().ToString().c_str());
        return;
      }
      auto sample = [&] {
        if (++ops % 8 == 0) {
          max_used = std::max(max_used, store->Stats()->memory_used_bytes);
        }
      };

      std::vector<Item> session_items;
      std::vector<Item> durable_items;
      auto write_all = [&](bool persist, const std::vector<uint64_t>& sizes,
                           std::vector<Item>* items) {
        ctxkit::SetOptions opts;
        opts.persist = persist;
        opts.scope = persist ? "" : "session";
        uint64_t written = 0;
        for (uint64_t i = 0; written < to_write; ++i) {
          uint64_t size = sizes[i % sizes.size()];
          value.assign(source, 0, size);
          Stamp(&value, i + (persist ? 1'000'000 : 0));
          std::string key =
              (persist ? "durable/" : "session/") + std::to_string(i);
          if (!view->Set(key, value, opts).ok()) ++errors;
          items->push_back({std::move(key), size});
          written += size;
          sample();
        }
      };
      // VmHWM after each phase, to see where the peak happens.
      auto phase = [&](const char* name) {
        state.counters[std::string("hwm_after_") + name + "_bytes"] =
            static_cast<double>(ProcStatusBytes("VmHWM"));
      };
      write_all(false, session_sizes, &session_items);
      phase("session_writes");
      write_all(true, durable_sizes, &durable_items);
      phase("durable_writes");

      // Read back: durable values twice (the first pass fills the tier and
      // evicts, the second hits whatever survived), session-only values
      // (bringing spilled ones back under pressure), durable once more.
      auto read_all = [&](const std::vector<Item>& items) {
        for (const Item& item : items) {
          auto got = view->Get(item.key);
          if (!got.ok() || got->size() != item.size) ++errors;
          sample();
        }
      };
      read_all(durable_items);
      read_all(durable_items);
      phase("durable_reads");
      read_all(session_items);
      phase("session_reads");
      read_all(durable_items);

      ctxkit::StoreStats stats = *store->Stats();
      max_used = std::max(max_used, stats.memory_used_bytes);
      const uint64_t peak_rss = ProcStatusBytes("VmHWM");
      state.counters["ceiling_bytes"] = static_cast<double>(ceiling);
      state.counters["written_session_bytes"] = static_cast<double>(to_write);
      state.counters["written_durable_bytes"] = static_cast<double>(to_write);
      state.counters["baseline_rss_bytes"] = static_cast<double>(baseline_rss);
      state.counters["peak_rss_bytes"] = static_cast<double>(peak_rss);
      state.counters["peak_rss_over_baseline_bytes"] =
          static_cast<double>(peak_rss - baseline_rss);
      state.counters["max_memory_used_bytes"] = static_cast<double>(max_used);
      state.counters["final_memory_used_bytes"] =
          static_cast<double>(stats.memory_used_bytes);
      state.counters["cached_values"] =
          static_cast<double>(stats.cached_values);
      state.counters["session_resident_bytes"] =
          static_cast<double>(stats.session_resident_bytes);
      state.counters["session_spilled_bytes"] =
          static_cast<double>(stats.session_spilled_bytes);
      state.counters["evictions"] = static_cast<double>(stats.evictions);
      state.counters["spills"] = static_cast<double>(stats.spills);
      state.counters["errors"] = static_cast<double>(errors);
      state.counters["hwm_reset"] = reset ? 1 : 0;
      state.counters["ops"] = static_cast<double>(ops);
      state.counters["seconds"] = static_cast<double>(NanosSince(start)) / 1e9;
      (void)store->EndSession("s1");
    }
    if (errors != 0) {
      state.SkipWithError("some Set/Get calls failed or returned wrong sizes");
    }
  }
}

BENCHMARK(BM_MemoryCeiling)
    ->Name("ctxkit/memory_ceiling")
    ->Arg(64)
    ->Iterations(1)
    ->UseRealTime()
    ->Unit(benchmark::kSecond);

}  // namespace

BENCHMARK_MAIN();
