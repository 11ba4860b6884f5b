// Line-oriented search, as grep: a line matches when the pattern matches
// inside it; matches never span lines. Input arrives in pieces of any size
// (LineSearcher::Feed, or SearchLines pulling blocks from a ByteSource).
//
// Whole lines inside a piece are searched in place, without copying; only a
// line split across pieces is carried (copied) into the next one. Memory
// stays bounded by the carried line, capped by max_line_bytes: a carried
// line that grows past it is searched in windows of about that size (a
// match that straddles a window boundary inside such a line is missed;
// line numbers stay right). Lines are counted with a vector loop over the
// bytes (text/byte_scan.h); no per-line work happens away from matches.
// Each matching line is reported once, for its leftmost match.
//
// Thread safety: matchers are immutable after construction and may be
// shared; a LineSearcher is used by one thread at a time.

#ifndef CTXKIT_TEXT_LINE_SEARCH_H_
#define CTXKIT_TEXT_LINE_SEARCH_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ctxkit/status.h"
#include "text/byte_scan.h"
#include "text/byte_source.h"

namespace ctxkit::text {

// Finds matches inside a buffer of whole lines.
class LineMatcher {
 public:
  virtual ~LineMatcher() = default;

  // The leftmost match starting at or after `from` in `text`; false when
  // there is none. *begin and *end are offsets into `text`.
  // Contract for implementations: a match never contains '\n', and '^' and
  // '$' (if the syntax has them) match at line boundaries inside `text`.
  virtual bool Find(std::string_view text, size_t from, size_t* begin,
                    size_t* end) const = 0;
};

// Exact bytes, case-sensitive: a vector filter on the needle's two rarest
// bytes (text::LiteralFinder).
class LiteralMatcher : public LineMatcher {
 public:
  // InvalidArgument when `pattern` contains '\n'.
  static Result<LiteralMatcher> Create(std::string_view pattern);

  bool Find(std::string_view text, size_t from, size_t* begin,
            size_t* end) const override;

 private:
  explicit LiteralMatcher(std::string pattern) : finder_(std::move(pattern)) {}
  LiteralFinder finder_;
};

struct LineSearchOptions {
  // Lines of context reported before and after each match.
  uint32_t context_lines = 0;
  // Bytes of a preview (the matching line, or a window of it around the
  // match) and of each context line; cut on UTF-8 boundaries.
  size_t preview_bytes = 200;
  uint64_t block_bytes = kDefaultBlockBytes;
  uint64_t max_line_bytes = 16ull << 20;
};

struct ContextLine {
  uint64_t line = 0;  // 1-based.
  std::string text;   // Printable (text::PrintablePreview), bounded.
};

struct LineMatch {
  uint64_t line = 0;          // 1-based line number.
  uint64_t line_offset = 0;   // Byte offset of the line's first byte.
  uint64_t byte_offset = 0;   // Byte offset of the match in the source.
  uint64_t match_length = 0;  // In bytes.
  // The line, or a window of it around the match when it is longer than
  // preview_bytes; printable (see text::PrintablePreview).
  std::string preview;
  bool preview_truncated = false;
  std::vector<ContextLine> before;  // Oldest first.
  std::vector<ContextLine> after;
};

// Called for each match in source order; return false to stop the search.
using MatchSink = std::function<bool(LineMatch)>;

// Searches a source fed to it piece by piece, in order.
class LineSearcher {
 public:
  // `matcher` and `sink` must outlive the searcher.
  LineSearcher(const LineMatcher& matcher, const LineSearchOptions& options,
               const MatchSink& sink);
  ~LineSearcher();
  LineSearcher(const LineSearcher&) = delete;
  LineSearcher& operator=(const LineSearcher&) = delete;

  // The next bytes of the source (any size, may be empty). `bytes` is only
  // read during the call. Returns false once the sink has stopped the
  // search (further input is ignored).
  bool Feed(std::string_view bytes);
  // The end of the source: searches the last (unterminated) line and emits
  // matches still waiting for after-context.
  void Finish();
  bool stopped() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

// Searches every line of `source`, reading options.block_bytes at a time.
// Stops early (OK) when the sink says so.
Status SearchLines(ByteSource& source, const LineMatcher& matcher,
                   const LineSearchOptions& options, const MatchSink& sink);

}  // namespace ctxkit::text

#endif  // CTXKIT_TEXT_LINE_SEARCH_H_
