// Searching many values at once (explore.h, Search): values are handed to
// a few threads in variable order, each value is searched whole on one
// thread (value_search.h), and the hits are merged strictly in variable
// order, so the result is the one a search of one value after another
// gives: the same matches in the same order, the same limit, the same
// counts.
//
// Threads: the calling thread and up to threads - 1 more, started for the
// call and joined before it returns. Work runs at most 2 x threads values
// ahead of the merge, and a value is searched only for the matches the
// finished values before it leave wanted, which bounds the hits held while
// an earlier value is still being searched. Once the merge has max_results
// matches (or an error), values after it are not started and those being
// searched stop.

#ifndef CTXKIT_EXPLORE_PARALLEL_SEARCH_H_
#define CTXKIT_EXPLORE_PARALLEL_SEARCH_H_

#include <cstddef>
#include <span>

#include "ctxkit/explore.h"
#include "ctxkit/ref.h"
#include "ctxkit/status.h"
#include "ctxkit/store.h"
#include "explore/value_search.h"
#include "text/line_search.h"

namespace ctxkit::explore {

// The threads worth using for `targets`: one per hardware thread (at most
// 8), one per value, and one alone when the values are too small to repay
// starting a thread.
size_t SearchThreads(std::span<const Ref> targets);

// Searches `targets` in order into `merge` (listed: as SearchMerge::Add)
// on `threads` threads. Returns the merge's error, if any.
Status SearchInOrder(View& view, const text::LineMatcher& matcher,
                     const SearchOptions& options, std::span<const Ref> targets,
                     bool listed, size_t threads, SearchMerge& merge);

}  // namespace ctxkit::explore

#endif  // CTXKIT_EXPLORE_PARALLEL_SEARCH_H_
