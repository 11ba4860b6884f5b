#include "explore/value_search.h"

#include <string>
#include <utility>

namespace ctxkit::explore {

namespace {

// Pieces View::Scan hands over: parts of mapped windows of a blob file, or
// reads of inline, stream and session-only contents (so a search that
// stops early has read little). Lines inside a piece are searched in
// place; only a line that straddles two pieces is copied. 256 KiB stays
// in a core's L2 cache between the checksum, the match scan and the
// newline count.
constexpr uint64_t kScanPieceBytes = 256ull << 10;

SearchMatch ToSearchMatch(const Ref& ref, text::LineMatch m) {
  SearchMatch out;
  out.key = ref.key;
  out.ref = ref;
  out.line = m.line;
  out.byte_offset = m.byte_offset;
  out.line_offset = m.line_offset;
  out.match_length = m.match_length;
  out.preview = std::move(m.preview);
  out.preview_truncated = m.preview_truncated;
  for (auto& c : m.before) out.before.push_back({c.line, std::move(c.text)});
  for (auto& c : m.after) out.after.push_back({c.line, std::move(c.text)});
  return out;
}

}  // namespace

ValueHits SearchValue(View& view, const text::LineMatcher& matcher,
                      const SearchOptions& options, const Ref& ref,
                      size_t limit, const std::atomic<bool>& cancel) {
  ValueHits hits;
  text::LineSearchOptions lo;
  lo.context_lines = options.context_lines;
  lo.preview_bytes = options.preview_bytes;
  text::MatchSink sink = [&](text::LineMatch m) {
    hits.matches.push_back(ToSearchMatch(ref, std::move(m)));
    hits.scanned_at.push_back(hits.scanned);
    // Stop here rather than read on for one more match.
    return hits.matches.size() < limit;
  };
  text::LineSearcher searcher(matcher, lo, sink);
  hits.status = view.Scan(ref, 0, ref.size_bytes, kScanPieceBytes,
                          [&](std::string_view piece) {
                            if (cancel.load(std::memory_order_relaxed)) {
                              return false;
                            }
                            hits.scanned += piece.size();
                            return searcher.Feed(piece);
                          });
  if (hits.status.ok()) searcher.Finish();
  return hits;
}

Status SearchMerge::Add(const Ref& ref, ValueHits hits, bool listed) {
  if (done()) return Status::Ok();
  ++result_.variables_searched;
  const size_t wanted = this->wanted();
  if (hits.matches.size() >= wanted) {
    // A search of one value after another stops at this match, whatever
    // the value held after it.
    hits.matches.resize(wanted);
    result_.bytes_read += hits.scanned_at[wanted - 1];
    result_.truncated = true;
  } else {
    result_.bytes_read += hits.scanned;
  }
  for (SearchMatch& m : hits.matches) {
    result_.matches.push_back(std::move(m));
  }
  if (result_.truncated || hits.status.ok()) return Status::Ok();
  const StatusCode code = hits.status.code();
  if (listed &&
      (code == StatusCode::kNotFound || code == StatusCode::kUnavailable)) {
    result_.skipped.push_back(ref.key + ": " + hits.status.ToString());
    return Status::Ok();
  }
  return hits.status;
}

}  // namespace ctxkit::explore
