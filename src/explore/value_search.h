// Search's two halves (explore.h, Search): one value searched on its own,
// and the merge that joins values' hits in variable order into the
// SearchResult a search of one value after another would have built. The
// halves meet in parallel_search.h, which searches values on several
// threads.

#ifndef CTXKIT_EXPLORE_VALUE_SEARCH_H_
#define CTXKIT_EXPLORE_VALUE_SEARCH_H_

#include <atomic>
#include <cstdint>
#include <vector>

#include "ctxkit/explore.h"
#include "ctxkit/ref.h"
#include "ctxkit/status.h"
#include "ctxkit/store.h"
#include "text/line_search.h"

namespace ctxkit::explore {

// What one value's search found: its matches in line order (at most
// options.max_results), and for each the bytes scanned when it was found,
// so a merge that keeps only the first k knows what a search stopping at
// the k-th read.
struct ValueHits {
  Status status;
  std::vector<SearchMatch> matches;
  std::vector<uint64_t> scanned_at;
  uint64_t scanned = 0;  // Bytes scanned in all.
};

// Searches the version `ref` pins (a dynamic ref is read as it stands,
// bounded by its recorded size). Stops after `limit` matches (at most
// options.max_results), or as soon as `cancel` is set (the hits are then
// of no use).
ValueHits SearchValue(View& view, const text::LineMatcher& matcher,
                      const SearchOptions& options, const Ref& ref,
                      size_t limit, const std::atomic<bool>& cancel);

// Joins values' hits, fed in variable order, into one SearchResult: the
// first max_results matches, and the bytes and variables a search of one
// value after another would have read to find them.
class SearchMerge {
 public:
  explicit SearchMerge(size_t max_results) : max_results_(max_results) {}

  // The hits of the next value, `ref`. `listed`: a value from View::List, which
  // is skipped (SearchResult::skipped) when it vanished or became unreadable;
  // any other error ends the search (returned). Once done(), hits are
  // ignored.
  Status Add(const Ref& ref, ValueHits hits, bool listed);
  // The result holds max_results matches: no later value matters.
  bool done() const { return result_.truncated; }
  // Matches still wanted.
  size_t wanted() const { return max_results_ - result_.matches.size(); }
  SearchResult Take() { return std::move(result_); }

 private:
  const size_t max_results_;
  SearchResult result_;
};

}  // namespace ctxkit::explore

#endif  // CTXKIT_EXPLORE_VALUE_SEARCH_H_
