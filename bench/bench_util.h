// Helpers shared by the ctxkit benchmark programs (not part of the library).
//
// Google Benchmark reports means; ctxkit's targets are percentiles, so each
// benchmark records one latency sample per operation with a steady clock
// (LatencySamples) and exports p50/p99/max as user counters.

#ifndef CTXKIT_BENCH_BENCH_UTIL_H_
#define CTXKIT_BENCH_BENCH_UTIL_H_

#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ctxkit/store.h"

namespace ctxkit_bench {

using Clock = std::chrono::steady_clock;

inline int64_t NanosSince(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() -
                                                              start)
      .count();
}

// A directory under $CTXKIT_BENCH_TMPDIR, else $TMPDIR, else /tmp, removed
// with everything in it on destruction. Stores must live on a real disk for
// the durable numbers to mean anything (tmpfs makes fsync free).
class TempDir {
 public:
  TempDir() {
    const char* base = std::getenv("CTXKIT_BENCH_TMPDIR");
    if (base == nullptr || *base == '\0') base = std::getenv("TMPDIR");
    if (base == nullptr || *base == '\0') base = "/tmp";
    std::string tmpl = std::string(base) + "/ctxkit-bench-XXXXXX";
    if (mkdtemp(tmpl.data()) == nullptr) {
      std::perror("mkdtemp");
      std::abort();
    }
    path_ = tmpl;
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }

  const std::string& path() const { return path_; }
  std::string Sub(std::string_view name) const {
    return path_ + "/" + std::string(name);
  }

 private:
  std::string path_;
};

// A store at `dir`/home for a benchmark that measures the code above the
// disk: process durability, since fsyncs would time the disk instead.
// nullptr, with the benchmark skipped and the reason given, when it cannot
// be opened.
inline std::unique_ptr<ctxkit::Store> OpenBenchStore(benchmark::State& state,
                                                     const TempDir& dir) {
  ctxkit::Options o;
  o.home = dir.Sub("home");
  o.durability = ctxkit::Durability::kProcess;
  auto store = ctxkit::Store::Open(o);
  if (!store.ok()) {
    state.SkipWithError(store.status().ToString().c_str());
    return nullptr;
  }
  return std::move(*store);
}

// Deterministic printable text of `size` bytes: words, spaces, newlines and
// the occasional quote and backslash, so JSON encoders have escaping to do
// (as they would for real tool output: code, logs, file contents).
inline std::string MakeText(size_t size, uint64_t seed) {
  static constexpr std::string_view kWords[] = {
      "context",  "store",  "agent", "ref",    "value", "tool", "output",
      "grep",     "result", "the",   "of",     "and",   "a",    "\"quoted\"",
      "path\\to", "{x}",    "line",  "status", "ok",    "42"};
  std::string out;
  out.reserve(size + 16);
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  size_t line = 0;
  while (out.size() < size) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    std::string_view w = kWords[x % std::size(kWords)];
    out.append(w);
    line += w.size() + 1;
    if (line > 72) {
      out.push_back('\n');
      line = 0;
    } else {
      out.push_back(' ');
    }
  }
  out.resize(size);
  return out;
}

// Overwrites the first bytes of `value` with `n` so that every write in a
// benchmark has distinct content (content-addressed stores deduplicate).
inline void Stamp(std::string* value, uint64_t n) {
  char buf[24];
  int len = std::snprintf(buf, sizeof(buf), "%020llu",
                          static_cast<unsigned long long>(n));
  std::memcpy(value->data(), buf,
              std::min(value->size(), static_cast<size_t>(len)));
}

inline std::string SizeLabel(uint64_t bytes) {
  if (bytes >= (1u << 20) && bytes % (1u << 20) == 0) {
    return std::to_string(bytes >> 20) + "MiB";
  }
  if (bytes >= 1024 && bytes % 1024 == 0) {
    return std::to_string(bytes >> 10) + "KiB";
  }
  return std::to_string(bytes) + "B";
}

// Involuntary context switches of the calling thread so far: how often the
// scheduler took the CPU away (another process wanted it). On a shared
// machine this explains most multi-millisecond outliers of CPU-bound work.
inline int64_t InvoluntarySwitches() {
  struct rusage ru {};
  if (getrusage(RUSAGE_THREAD, &ru) != 0) return 0;
  return ru.ru_nivcsw;
}

// One latency sample per operation (or per batch, divided by the batch
// size); reported as p50_ns, p99_ns and max_ns counters (nearest rank),
// with the number of involuntary context switches while sampling.
// Construct it right before the timed loop.
class LatencySamples {
 public:
  explicit LatencySamples(size_t expected = 1024)
      : switches_at_start_(InvoluntarySwitches()) {
    samples_.reserve(expected);
  }
  void Add(double ns) { samples_.push_back(ns); }
  size_t size() const { return samples_.size(); }

  double Percentile(double q) {
    if (samples_.empty()) return 0;
    std::sort(samples_.begin(), samples_.end());
    size_t rank = static_cast<size_t>(
        std::ceil(q * static_cast<double>(samples_.size())));
    rank = std::clamp<size_t>(rank, 1, samples_.size());
    return samples_[rank - 1];
  }

  // Counters <prefix>p50_ns, <prefix>p99_ns, <prefix>max_ns, <prefix>samples.
  void Report(benchmark::State& state, const std::string& prefix = "") {
    state.counters[prefix + "p50_ns"] = Percentile(0.50);
    state.counters[prefix + "p99_ns"] = Percentile(0.99);
    state.counters[prefix + "max_ns"] = Percentile(1.0);
    state.counters[prefix + "samples"] = static_cast<double>(samples_.size());
    state.counters[prefix + "preemptions"] =
        static_cast<double>(InvoluntarySwitches() - switches_at_start_);
  }

 private:
  int64_t switches_at_start_;
  std::vector<double> samples_;
};

// A field of /proc/self/status in bytes ("VmHWM", "VmRSS"), or 0.
inline uint64_t ProcStatusBytes(std::string_view field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.size() > field.size() &&
        line.compare(0, field.size(), field) == 0 &&
        line[field.size()] == ':') {
      return std::strtoull(line.c_str() + field.size() + 1, nullptr, 10) * 1024;
    }
  }
  return 0;
}

// Resets VmHWM to the current RSS (Linux >= 4.0: "5" > clear_refs), so a
// peak can be measured from here on. Returns false when not supported.
inline bool ResetPeakRss() {
  int fd = open("/proc/self/clear_refs", O_WRONLY);
  if (fd < 0) return false;
  bool ok = write(fd, "5", 1) == 1;
  close(fd);
  return ok;
}

}  // namespace ctxkit_bench

#endif  // CTXKIT_BENCH_BENCH_UTIL_H_
