// Process-wide counters behind GetSummarizerStats().

#ifndef CTXKIT_SUMMARY_STATS_H_
#define CTXKIT_SUMMARY_STATS_H_

#include <atomic>
#include <cstdint>

namespace ctxkit::summary {

struct Counters {
  std::atomic<uint64_t> structural_runs{0};
  std::atomic<uint64_t> llm_requests{0};
  std::atomic<uint64_t> llm_failures{0};
  std::atomic<uint64_t> cache_hits{0};
  std::atomic<uint64_t> cache_misses{0};
  std::atomic<uint64_t> cache_writes{0};
  std::atomic<uint64_t> bytes_read{0};
};

Counters& GlobalCounters();

}  // namespace ctxkit::summary

#endif  // CTXKIT_SUMMARY_STATS_H_
