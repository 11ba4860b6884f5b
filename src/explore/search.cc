// Search: a pattern over one stored variable or every variable a view
// sees, streamed piece by piece (text/line_search.h) through View::Scan:
// blob files are mapped and searched in place, nothing is copied into the
// memory tier's cache. Values are searched on several threads and merged
// in variable order (parallel_search.h).

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/status_macros.h"
#include "ctxkit/explore.h"
#include "explore/parallel_search.h"
#include "explore/regex_matcher.h"
#include "explore/value_search.h"
#include "text/line_search.h"

namespace ctxkit {

namespace {

constexpr size_t kMaxResults = 1000000;
constexpr uint32_t kMaxContextLines = 100;
constexpr size_t kListPage = 1000;

Status CheckOptions(const SearchOptions& o) {
  if (o.max_results == 0 || o.max_results > kMaxResults) {
    return Status::InvalidArgument("search max_results must be 1-1000000");
  }
  if (o.context_lines > kMaxContextLines) {
    return Status::InvalidArgument("search context lines must be 0-100");
  }
  if (o.preview_bytes < 16 || o.preview_bytes > 65536) {
    return Status::InvalidArgument("search preview_bytes must be 16-65536");
  }
  return Status::Ok();
}

class MatcherHolder {
 public:
  static Result<MatcherHolder> Create(std::string_view pattern,
                                      const SearchOptions& o) {
    MatcherHolder h;
    if (!o.regex && !o.case_insensitive) {
      CTXKIT_ASSIGN_OR_RETURN(text::LiteralMatcher literal,
                              text::LiteralMatcher::Create(pattern));
      h.literal_ = std::make_unique<text::LiteralMatcher>(std::move(literal));
    } else {
      CTXKIT_ASSIGN_OR_RETURN(
          h.re2_,
          explore::Re2Matcher::Create(pattern, !o.regex, o.case_insensitive));
    }
    return h;
  }
  const text::LineMatcher& get() const {
    return literal_ != nullptr
               ? static_cast<const text::LineMatcher&>(*literal_)
               : *re2_;
  }

 private:
  std::unique_ptr<text::LiteralMatcher> literal_;
  std::unique_ptr<explore::Re2Matcher> re2_;
};

// The variables View::List shows for `options`, page by page, searched in
// order into `merge`.
Status SearchListed(View& view, const text::LineMatcher& matcher,
                    const SearchOptions& options, explore::SearchMerge& merge) {
  ListFilter filter;
  filter.scope = options.scope;
  filter.type = options.type;
  filter.key_prefix = options.key_prefix;
  filter.limit = kListPage;
  std::vector<Ref> targets;
  while (!merge.done()) {
    CTXKIT_ASSIGN_OR_RETURN(ListPage page, view.List(filter));
    targets.clear();
    for (const ObjectMeta& meta : page.items) {
      if (!options.skip_key_prefix.empty() &&
          meta.key.starts_with(options.skip_key_prefix)) {
        continue;
      }
      targets.push_back(StaticRefOf(meta));
    }
    CTXKIT_RETURN_IF_ERROR(
        explore::SearchInOrder(view, matcher, options, targets, /*listed=*/true,
                               explore::SearchThreads(targets), merge));
    if (page.next_cursor.empty()) break;
    filter.cursor = std::move(page.next_cursor);
  }
  return Status::Ok();
}

}  // namespace

Result<SearchResult> Search(View& view, std::string_view pattern,
                            const SearchOptions& options) {
  CTXKIT_RETURN_IF_ERROR(CheckOptions(options));
  CTXKIT_ASSIGN_OR_RETURN(MatcherHolder matcher,
                          MatcherHolder::Create(pattern, options));
  explore::SearchMerge merge(options.max_results);
  if (options.keys.empty() && options.refs.empty()) {
    CTXKIT_RETURN_IF_ERROR(SearchListed(view, matcher.get(), options, merge));
    return merge.Take();
  }
  // Resolve every key first, so a missing one fails before any work.
  std::vector<Ref> targets;
  LookupOptions lookup;
  lookup.scope = options.scope;
  for (const std::string& key : options.keys) {
    CTXKIT_ASSIGN_OR_RETURN(Ref ref, view.Pin(key, lookup));
    targets.push_back(std::move(ref));
  }
  for (const Ref& ref : options.refs) {
    CTXKIT_ASSIGN_OR_RETURN(Ref pinned, view.Pin(ref));
    targets.push_back(std::move(pinned));
  }
  CTXKIT_RETURN_IF_ERROR(explore::SearchInOrder(
      view, matcher.get(), options, targets, /*listed=*/false,
      explore::SearchThreads(targets), merge));
  return merge.Take();
}

}  // namespace ctxkit
