// Search: a pattern over one stored variable or every variable a view
// sees, streamed piece by piece (text/line_search.h) through View::Scan:
// blob files are mapped and searched in place, nothing is copied into the
// memory tier's cache.

#include <memory>
#include <string>
#include <utility>

#include "core/status_macros.h"
#include "ctxkit/explore.h"
#include "explore/regex_matcher.h"
#include "explore/view_source.h"
#include "text/line_search.h"

namespace ctxkit {

namespace {

constexpr size_t kMaxResults = 1000000;
constexpr uint32_t kMaxContextLines = 100;
constexpr size_t kListPage = 1000;
// Pieces View::Scan hands over: parts of mapped windows of a blob file, or
// reads of inline, stream and session-only contents (so a search that
// stops early has read little). Lines inside a piece are searched in
// place; only a line that straddles two pieces is copied. 256 KiB stays
// in a core's L2 cache between the match scan and the newline count.
constexpr uint64_t kScanPieceBytes = 256ull << 10;

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

class Run {
 public:
  Run(View& view, const text::LineMatcher& matcher, const SearchOptions& o)
      : view_(view), matcher_(matcher), options_(o) {}

  bool done() const { return result_.truncated; }
  SearchResult Take() { return std::move(result_); }

  // Searches one pinned version.
  Status One(const Ref& ref) {
    text::LineSearchOptions lo;
    lo.context_lines = options_.context_lines;
    lo.preview_bytes = options_.preview_bytes;
    text::MatchSink sink = [&](text::LineMatch m) {
      if (result_.matches.size() >= options_.max_results) {
        result_.truncated = true;
        return false;
      }
      SearchMatch out;
      out.key = ref.key;
      out.ref = ref;
      out.line = m.line;
      out.byte_offset = m.byte_offset;
      out.line_offset = m.line_offset;
      out.match_length = m.match_length;
      out.preview = std::move(m.preview);
      out.preview_truncated = m.preview_truncated;
      for (auto& c : m.before)
        out.before.push_back({c.line, std::move(c.text)});
      for (auto& c : m.after) out.after.push_back({c.line, std::move(c.text)});
      result_.matches.push_back(std::move(out));
      if (result_.matches.size() >= options_.max_results) {
        // Stop here rather than read on for one more match.
        result_.truncated = true;
        return false;
      }
      return true;
    };
    text::LineSearcher searcher(matcher_, lo, sink);
    uint64_t scanned = 0;
    // A dynamic ref that could not be pinned is read as it stands, bounded
    // by its recorded size (as Peek does).
    Status s = view_.Scan(ref, 0, ref.size_bytes, kScanPieceBytes,
                          [&](std::string_view piece) {
                            scanned += piece.size();
                            return searcher.Feed(piece);
                          });
    if (s.ok()) searcher.Finish();
    result_.bytes_read += scanned;
    ++result_.variables_searched;
    return s;
  }

  // Searches a listed variable; a value that vanished meanwhile is skipped.
  Status Listed(const Ref& ref) {
    Status s = One(ref);
    if (s.code() == StatusCode::kNotFound ||
        s.code() == StatusCode::kUnavailable) {
      result_.skipped.push_back(ref.key + ": " + s.ToString());
      return Status::Ok();
    }
    return s;
  }

 private:
  View& view_;
  const text::LineMatcher& matcher_;
  const SearchOptions& options_;
  SearchResult result_;
};

}  // namespace

Result<SearchResult> Search(View& view, std::string_view pattern,
                            const SearchOptions& options) {
  CTXKIT_RETURN_IF_ERROR(CheckOptions(options));
  CTXKIT_ASSIGN_OR_RETURN(MatcherHolder matcher,
                          MatcherHolder::Create(pattern, options));
  Run run(view, matcher.get(), options);
  if (!options.keys.empty() || !options.refs.empty()) {
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
    for (const Ref& ref : targets) {
      if (run.done()) break;
      CTXKIT_RETURN_IF_ERROR(run.One(ref));
    }
    return run.Take();
  }
  ListFilter filter;
  filter.scope = options.scope;
  filter.type = options.type;
  filter.key_prefix = options.key_prefix;
  filter.limit = kListPage;
  for (;;) {
    CTXKIT_ASSIGN_OR_RETURN(ListPage page, view.List(filter));
    for (const ObjectMeta& meta : page.items) {
      if (run.done()) break;
      if (!options.skip_key_prefix.empty() &&
          meta.key.starts_with(options.skip_key_prefix)) {
        continue;
      }
      CTXKIT_RETURN_IF_ERROR(run.Listed(StaticRefOf(meta)));
    }
    if (run.done() || page.next_cursor.empty()) break;
    filter.cursor = std::move(page.next_cursor);
  }
  return run.Take();
}

}  // namespace ctxkit
