// File watchers: how fast a change on disk becomes a version, and what an
// idle watcher of a big tree costs.
//
//   BM_ChangeToVersion/<settle_ms>  write a 4 KiB file in a watched tree of
//       1,000 files (open, write, close), wait for the watcher to commit the
//       new version (the on_change callback, after the store commit);
//       p50/p99 per change. settle 20 is the default (coalesces editor
//       saves), settle 0 shows the pipeline without that window.
//   BM_DirectSetAnchor  the floor: read the same file and View::Set it
//       directly (same store, same durability), no watcher.
//   BM_Idle10k  10,000 files of 4 KiB in 100 directories: wall and CPU
//       time to add the watch (the initial indexing pass: 10,000 durable
//       sets), to Start a watcher (a catch-up pass over unchanged files),
//       and the watcher thread's CPU time over 3 s idle.
//
// Stores use Durability::kFull (the default), on $CTXKIT_BENCH_TMPDIR.

#include <benchmark/benchmark.h>
#include <pthread.h>
#include <time.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "bench_util.h"
#include "ctxkit/store.h"
#include "ctxkit/watch.h"

namespace {

using ctxkit_bench::Clock;
using ctxkit_bench::LatencySamples;
using ctxkit_bench::NanosSince;
using ctxkit_bench::TempDir;

constexpr size_t kFileBytes = 4096;

void WriteFile(const std::string& path, const std::string& content) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << content;
}

// `count` files of kFileBytes in `dirs` subdirectories of `root`.
std::vector<std::string> MakeTree(const std::string& root, int count,
                                  int dirs) {
  std::vector<std::string> files;
  for (int d = 0; d < dirs; ++d) {
    std::filesystem::create_directories(root + "/d" + std::to_string(d));
  }
  for (int i = 0; i < count; ++i) {
    std::string path = root + "/d" + std::to_string(i % dirs) + "/f" +
                       std::to_string(i) + ".txt";
    WriteFile(path, ctxkit_bench::MakeText(kFileBytes, i));
    files.push_back(path);
  }
  return files;
}

std::unique_ptr<ctxkit::Store> OpenStore(const std::string& home) {
  ctxkit::Options o;
  o.home = home;
  auto s = ctxkit::Store::Open(o);
  if (!s.ok()) {
    std::fprintf(stderr, "open: %s\n", s.status().ToString().c_str());
    std::abort();
  }
  return std::move(*s);
}

double ThreadCpuNs(pthread_t thread) {
  clockid_t cid;
  if (pthread_getcpuclockid(thread, &cid) != 0) return -1;
  timespec ts{};
  clock_gettime(cid, &ts);
  return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

// CPU time of the calling thread so far.
double SelfCpuNs() { return ThreadCpuNs(pthread_self()); }

// Signals each committed change to the timing loop.
struct ChangeSignal {
  std::mutex mu;
  std::condition_variable cv;
  std::string last_key;
  uint64_t count = 0;

  void On(const ctxkit::WatchChange& c) {
    std::lock_guard lock(mu);
    last_key = c.key;
    ++count;
    cv.notify_all();
  }
  // Waits for change number `n`; false after 10 s.
  bool WaitCount(uint64_t n) {
    std::unique_lock lock(mu);
    return cv.wait_for(lock, std::chrono::seconds(10),
                       [&] { return count >= n; });
  }
};

void BM_ChangeToVersion(benchmark::State& state) {
  TempDir tmp;
  std::string tree = tmp.Sub("tree");
  std::vector<std::string> files = MakeTree(tree, 1000, 10);
  auto store = OpenStore(tmp.Sub("store"));
  if (!ctxkit::AddWatch(*store, tree).ok()) std::abort();
  ChangeSignal signal;
  ctxkit::WatchOptions o;
  o.settle_ms = static_cast<uint32_t>(state.range(0));
  o.on_change = [&](const ctxkit::WatchChange& c) { signal.On(c); };
  auto watcher = ctxkit::Watcher::Start(store.get(), o);
  if (!watcher.ok()) std::abort();
  std::thread runner([&] { (void)(*watcher)->Run(); });
  std::string content = ctxkit_bench::MakeText(kFileBytes, 7);
  LatencySamples samples;
  uint64_t n = 0;
  for (auto _ : state) {
    ctxkit_bench::Stamp(&content, n);
    const std::string& path = files[n % files.size()];
    auto start = Clock::now();
    WriteFile(path, content);
    if (!signal.WaitCount(n + 1)) {
      state.SkipWithError("no version within 10 s");
      break;
    }
    samples.Add(static_cast<double>(NanosSince(start)));
    ++n;
  }
  samples.Report(state);
  (*watcher)->Stop();
  runner.join();
  // One version per write: a partial read (the truncate before the write)
  // would show up as extra changes.
  state.counters["changes_per_write"] =
      n == 0 ? 0 : static_cast<double>(signal.count) / static_cast<double>(n);
}
BENCHMARK(BM_ChangeToVersion)
    ->Arg(20)
    ->Arg(0)
    ->Iterations(300)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

void BM_DirectSetAnchor(benchmark::State& state) {
  TempDir tmp;
  std::string tree = tmp.Sub("tree");
  std::vector<std::string> files = MakeTree(tree, 1000, 10);
  auto store = OpenStore(tmp.Sub("store"));
  auto view = store->OpenView("", "");
  ctxkit::SetOptions so;
  so.scope = "global";
  // As AddWatch leaves it: every file already an object, so each timed Set
  // is an update, like the watcher's.
  for (const std::string& path : files) {
    if (!view->Set("file:" + path, ctxkit_bench::MakeText(kFileBytes, 1), so)
             .ok()) {
      std::abort();
    }
  }
  std::string content = ctxkit_bench::MakeText(kFileBytes, 7);
  LatencySamples samples;
  uint64_t n = 0;
  for (auto _ : state) {
    ctxkit_bench::Stamp(&content, n);
    const std::string& path = files[n % files.size()];
    auto start = Clock::now();
    WriteFile(path, content);
    std::ifstream in(path, std::ios::binary);
    std::string read((std::istreambuf_iterator<char>(in)),
                     std::istreambuf_iterator<char>());
    if (!view->Set("file:" + path, read, so).ok()) std::abort();
    samples.Add(static_cast<double>(NanosSince(start)));
    ++n;
  }
  samples.Report(state);
}
BENCHMARK(BM_DirectSetAnchor)
    ->Iterations(300)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

void BM_Idle10k(benchmark::State& state) {
  for (auto _ : state) {
    TempDir tmp;
    std::string tree = tmp.Sub("tree");
    MakeTree(tree, 10000, 100);
    auto store = OpenStore(tmp.Sub("store"));
    auto start = Clock::now();
    double cpu = SelfCpuNs();
    if (!ctxkit::AddWatch(*store, tree).ok()) std::abort();
    double add_ns = static_cast<double>(NanosSince(start));
    double add_cpu_ns = SelfCpuNs() - cpu;
    start = Clock::now();
    cpu = SelfCpuNs();
    auto watcher = ctxkit::Watcher::Start(store.get(), {});
    if (!watcher.ok()) std::abort();
    double start_ns = static_cast<double>(NanosSince(start));
    double start_cpu_ns = SelfCpuNs() - cpu;
    std::thread runner([&] { (void)(*watcher)->Run(); });
    // Let Run reach poll(), then measure an idle interval.
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    double cpu0 = ThreadCpuNs(runner.native_handle());
    auto idle_start = Clock::now();
    std::this_thread::sleep_for(std::chrono::seconds(3));
    double cpu1 = ThreadCpuNs(runner.native_handle());
    double idle_ns = static_cast<double>(NanosSince(idle_start));
    (*watcher)->Stop();
    runner.join();
    state.counters["add_watch_ms"] = add_ns / 1e6;
    state.counters["add_watch_cpu_ms"] = add_cpu_ns / 1e6;
    state.counters["start_catchup_ms"] = start_ns / 1e6;
    state.counters["start_catchup_cpu_ms"] = start_cpu_ns / 1e6;
    state.counters["idle_cpu_ns"] = cpu1 - cpu0;
    state.counters["idle_cpu_pct"] = 100.0 * (cpu1 - cpu0) / idle_ns;
    state.counters["files"] = 10000;
  }
}
BENCHMARK(BM_Idle10k)->Iterations(1)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
