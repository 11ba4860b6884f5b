#include "explore/parallel_search.h"

#include <algorithm>
#include <atomic>
#include <optional>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "core/mutex.h"
#include "core/status_macros.h"

namespace ctxkit::explore {

namespace {

constexpr size_t kMaxThreads = 8;
// Below this many bytes in all, a search is over before a thread would
// have started (a thread costs tens of microseconds; a MiB of text is
// searched in about a hundred).
constexpr uint64_t kParallelMinBytes = 4ull << 20;

// One call's shared state: the next value to start, the hits waiting for
// the merge, and the merge itself.
class OrderedSearch {
 public:
  OrderedSearch(View& view, const text::LineMatcher& matcher,
                const SearchOptions& options, std::span<const Ref> targets,
                bool listed, size_t threads, SearchMerge& merge)
      : view_(view),
        matcher_(matcher),
        options_(options),
        targets_(targets),
        listed_(listed),
        ahead_(2 * threads),
        merge_(merge),
        slots_(targets.size()) {}

  // Searches values until none is left or the merge is done.
  void Work() EXCLUDES(mu_) {
    for (;;) {
      std::optional<Claimed> claimed = Claim();
      if (!claimed) return;
      ValueHits hits =
          SearchValue(view_, matcher_, options_, targets_[claimed->index],
                      claimed->limit, stop_);
      Deliver(claimed->index, std::move(hits));
    }
  }

  Status status() EXCLUDES(mu_) {
    core::MutexLock lock(&mu_);
    return error_;
  }

 private:
  struct Claimed {
    size_t index = 0;
    size_t limit = 0;  // Matches worth finding in it.
  };

  // The next value to search, waiting while the work is ahead_ values
  // ahead of the merge; none once everything is started or the merge is
  // done.
  std::optional<Claimed> Claim() EXCLUDES(mu_) {
    core::MutexLock lock(&mu_);
    while (!stop_.load() && next_ < targets_.size() &&
           next_ >= merged_ + ahead_) {
      merged_more_.Wait(&mu_);
    }
    if (stop_.load() || next_ >= targets_.size()) return std::nullopt;
    return Claimed{next_, LimitLocked(next_++)};
  }

  // What value i can contribute: the matches still wanted less those the
  // finished values before it already hold (a bound that only falls as
  // they finish, so it never cuts a match the merge keeps; at least 1).
  // It keeps the hits held while an earlier value is searched near
  // max_results.
  size_t LimitLocked(size_t i) REQUIRES(mu_) {
    size_t held = 0;
    for (size_t j = merged_; j < i; ++j) {
      if (slots_[j]) held += slots_[j]->matches.size();
    }
    const size_t wanted = merge_.wanted();
    return held < wanted ? wanted - held : 1;
  }

  // Stores value i's hits and merges every value ready in order.
  void Deliver(size_t i, ValueHits hits) EXCLUDES(mu_) {
    core::MutexLock lock(&mu_);
    slots_[i] = std::move(hits);
    const size_t before = merged_;
    while (!stop_.load() && merged_ < slots_.size() && slots_[merged_]) {
      Status s =
          merge_.Add(targets_[merged_], std::move(*slots_[merged_]), listed_);
      slots_[merged_].reset();
      ++merged_;
      if (!s.ok()) error_ = s;
      // Values after this one no longer matter: stop them.
      if (!s.ok() || merge_.done()) stop_.store(true);
    }
    if (merged_ != before || stop_.load()) merged_more_.SignalAll();
  }

  View& view_;
  const text::LineMatcher& matcher_;
  const SearchOptions& options_;
  const std::span<const Ref> targets_;
  const bool listed_;
  const size_t ahead_;
  // Read without the lock by the values being searched (their cancel).
  std::atomic<bool> stop_{false};
  core::Mutex mu_;
  core::CondVar merged_more_;
  SearchMerge& merge_ GUARDED_BY(mu_);
  std::vector<std::optional<ValueHits>> slots_ GUARDED_BY(mu_);
  size_t next_ GUARDED_BY(mu_) = 0;
  size_t merged_ GUARDED_BY(mu_) = 0;
  Status error_ GUARDED_BY(mu_);
};

}  // namespace

size_t SearchThreads(std::span<const Ref> targets) {
  uint64_t bytes = 0;
  for (const Ref& ref : targets) bytes += ref.size_bytes;
  if (bytes < kParallelMinBytes) return 1;
  const size_t hardware = std::max(1u, std::thread::hardware_concurrency());
  return std::min({hardware, kMaxThreads, targets.size()});
}

Status SearchInOrder(View& view, const text::LineMatcher& matcher,
                     const SearchOptions& options, std::span<const Ref> targets,
                     bool listed, size_t threads, SearchMerge& merge) {
  if (threads <= 1) {
    // One value after another on this thread, each told how many matches
    // are still wanted.
    const std::atomic<bool> never{false};
    for (const Ref& ref : targets) {
      if (merge.done()) break;
      CTXKIT_RETURN_IF_ERROR(merge.Add(
          ref, SearchValue(view, matcher, options, ref, merge.wanted(), never),
          listed));
    }
    return Status::Ok();
  }
  if (targets.empty() || merge.done()) return Status::Ok();
  OrderedSearch search(view, matcher, options, targets, listed, threads, merge);
  std::vector<std::thread> helpers;
  for (size_t t = 1; t < threads; ++t) {
    try {
      helpers.emplace_back([&search] { search.Work(); });
    } catch (const std::system_error&) {
      break;  // No thread to be had (a process limit): fewer do the work.
    }
  }
  search.Work();
  for (std::thread& t : helpers) t.join();
  return search.status();
}

}  // namespace ctxkit::explore
