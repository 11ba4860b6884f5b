#include "text/line_search.h"

#include <string.h>  // memmem, memrchr (GNU).

#include <algorithm>
#include <deque>
#include <utility>

#include "core/status_macros.h"
#include "text/preview.h"

namespace ctxkit::text {

Result<LiteralMatcher> LiteralMatcher::Create(std::string_view pattern) {
  if (pattern.find('\n') != std::string_view::npos) {
    return Status::InvalidArgument(
        "a search pattern matches within one line; it may not contain a "
        "newline");
  }
  return LiteralMatcher(std::string(pattern));
}

bool LiteralMatcher::Find(std::string_view text, size_t from, size_t* begin,
                          size_t* end) const {
  const size_t hit = finder_.Find(text, from);
  if (hit == std::string_view::npos) return false;
  *begin = hit;
  *end = hit + finder_.needle().size();
  return true;
}

namespace {

std::string_view TrimCr(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

std::string ContextText(std::string_view line, size_t max) {
  line = TrimCr(line);
  return PrintablePreview(line.substr(0, Utf8SafeCut(line, max)));
}

// Offset of the '\n' ending the line that contains `pos`, or `limit`.
size_t LineEnd(std::string_view buf, size_t pos, size_t limit) {
  if (pos >= limit) return limit;
  const void* nl = memchr(buf.data() + pos, '\n', limit - pos);
  return nl == nullptr ? limit : static_cast<const char*>(nl) - buf.data();
}

// Offset of the first byte of the line that contains `pos`.
size_t LineStart(std::string_view buf, size_t pos) {
  if (pos == 0) return 0;
  const void* nl = memrchr(buf.data(), '\n', pos);
  return nl == nullptr ? 0 : static_cast<const char*>(nl) - buf.data() + 1;
}

}  // namespace

class LineSearcher::Impl {
 public:
  Impl(const LineMatcher& matcher, const LineSearchOptions& options,
       const MatchSink& sink)
      : matcher_(matcher), options_(options), sink_(sink) {
    options_.max_line_bytes = std::max<uint64_t>(options_.max_line_bytes, 1);
  }

  bool stopped() const { return stopped_; }

  bool Feed(std::string_view bytes) {
    while (!stopped_ && !bytes.empty()) {
      if (!carry_.empty()) {
        // Complete the carried line with the bytes up to the first '\n'.
        const void* nl = memchr(bytes.data(), '\n', bytes.size());
        const size_t take =
            nl == nullptr ? bytes.size()
                          : static_cast<const char*>(nl) - bytes.data() + 1;
        carry_.append(bytes.data(), take);
        bytes.remove_prefix(take);
        next_offset_ += take;
        if (nl != nullptr || carry_.size() >= options_.max_line_bytes) {
          // A whole line, or a window of an over-long one.
          Process(carry_, carry_offset_, /*eof=*/false);
          carry_.clear();
        }
        continue;
      }
      // Every whole line of `bytes` is searched where it lies.
      const void* nl = memrchr(bytes.data(), '\n', bytes.size());
      const size_t whole =
          nl == nullptr ? 0 : static_cast<const char*>(nl) - bytes.data() + 1;
      if (whole > 0) {
        Process(bytes.substr(0, whole), next_offset_, /*eof=*/false);
        bytes.remove_prefix(whole);
        next_offset_ += whole;
      }
      if (bytes.size() >= options_.max_line_bytes) {
        // A window of an over-long line (a region without '\n').
        Process(bytes, next_offset_, /*eof=*/false);
        next_offset_ += bytes.size();
        bytes = {};
      }
      if (!bytes.empty() && !stopped_) {
        carry_offset_ = next_offset_;
        carry_.assign(bytes.data(), bytes.size());
        next_offset_ += bytes.size();
        bytes = {};
      }
    }
    return !stopped_;
  }

  void Finish() {
    if (finished_) return;
    finished_ = true;
    Process(carry_, carry_.empty() ? next_offset_ : carry_offset_,
            /*eof=*/true);
    carry_.clear();
  }

 private:
  struct Pending {
    LineMatch match;
    uint32_t need = 0;
  };

  void Emit(LineMatch match) {
    if (stopped_) return;
    if (!sink_(std::move(match))) stopped_ = true;
  }

  // Emits the leading pending matches whose after-context is complete.
  void FlushPending(bool all) {
    while (!pending_.empty() && (all || pending_.front().need == 0)) {
      LineMatch m = std::move(pending_.front().match);
      pending_.pop_front();
      Emit(std::move(m));
    }
  }

  // Searches `region`, the source bytes at `offset`: whole lines (the last
  // one unterminated only at eof or for a window of an over-long line).
  // region[0] lies on line line_no_, which starts at line_start_.
  void Process(std::string_view region, uint64_t offset, bool eof) {
    const uint32_t n = options_.context_lines;
    const size_t region_end = region.size();
    const uint64_t first_line = line_no_;
    size_t counted_pos = 0;  // Newlines before here are in counted_line.
    uint64_t counted_line = first_line;
    // After-context owed by matches of earlier regions: the first lines here.
    if (!pending_.empty()) {
      uint32_t most = 0;
      for (const Pending& p : pending_) most = std::max(most, p.need);
      std::vector<ContextLine> head;
      for (size_t at = 0; head.size() < most && at < region_end;) {
        const size_t end = LineEnd(region, at, region_end);
        head.push_back(
            {first_line + head.size(),
             ContextText(region.substr(at, end - at), options_.preview_bytes)});
        at = end + 1;
      }
      for (Pending& p : pending_) {
        const size_t take = std::min<size_t>(p.need, head.size());
        p.match.after.insert(p.match.after.end(), head.begin(),
                             head.begin() + take);
        p.need -= take;
      }
      FlushPending(eof);
    }
    if (stopped_ || region_end == 0) {
      if (eof) FlushPending(true);
      Advance(region, offset);
      return;
    }
    size_t from = 0;
    size_t b = 0;
    size_t e = 0;
    while (!stopped_ && from <= region_end &&
           matcher_.Find(region, from, &b, &e)) {
      // An empty match after the final '\n' is not on a line of this
      // region (it would be a phantom empty line).
      if (b >= region_end && region[region_end - 1] == '\n') break;
      const size_t line_start = LineStart(region, b);
      const size_t line_end = LineEnd(region, b, region_end);
      counted_line +=
          CountNewlines(region.data() + counted_pos, line_start - counted_pos);
      counted_pos = line_start;

      LineMatch m;
      m.line = counted_line;
      m.line_offset = line_start == 0 ? line_start_ : offset + line_start;
      m.byte_offset = offset + b;
      m.match_length = e - b;
      const std::string_view line =
          TrimCr(region.substr(line_start, line_end - line_start));
      const size_t cap = options_.preview_bytes;
      if (line.size() <= cap) {
        m.preview = PrintablePreview(line);
      } else {
        const size_t in_line = b - line_start;
        size_t start = in_line > cap / 4 ? in_line - cap / 4 : 0;
        start = Utf8SafeStart(line, start);
        const std::string_view piece = line.substr(start);
        m.preview = PrintablePreview(piece.substr(0, Utf8SafeCut(piece, cap)));
        m.preview_truncated = true;
      }
      uint32_t need = 0;
      if (n > 0) {
        AddBefore(&m, region, line_start);
        size_t at = line_end + 1;
        while (m.after.size() < n && at < region_end) {
          const size_t end = LineEnd(region, at, region_end);
          m.after.push_back({m.line + 1 + m.after.size(),
                             ContextText(region.substr(at, end - at), cap)});
          at = end + 1;
        }
        need = eof ? 0 : n - static_cast<uint32_t>(m.after.size());
      }
      if (need == 0 && pending_.empty()) {
        Emit(std::move(m));
      } else {
        pending_.push_back({std::move(m), need});
      }
      if (line_end >= region_end) break;
      from = line_end + 1;
    }
    if (eof) FlushPending(true);
    if (n > 0) RememberTail(region);
    Advance(region, offset);
  }

  // Moves the line position past `region`.
  void Advance(std::string_view region, uint64_t offset) {
    line_no_ += CountNewlines(region.data(), region.size());
    if (!region.empty() && region.back() == '\n') {
      line_start_ = offset + region.size();
    }
  }

  // Up to n lines before the line at region[line_start]: from this region,
  // then from the lines remembered from earlier regions.
  void AddBefore(LineMatch* m, std::string_view region, size_t line_start) {
    const uint32_t n = options_.context_lines;
    std::vector<ContextLine> lines;  // Newest first.
    size_t pos = line_start;
    while (lines.size() < n && pos > 0) {
      const size_t prev_end = pos - 1;  // The '\n' ending the previous line.
      const size_t prev_start = LineStart(region, prev_end);
      lines.push_back(
          {m->line - 1 - lines.size(),
           ContextText(region.substr(prev_start, prev_end - prev_start),
                       options_.preview_bytes)});
      pos = prev_start;
    }
    for (auto it = history_.rbegin();
         lines.size() < n && pos == 0 && it != history_.rend(); ++it) {
      lines.push_back(*it);
    }
    m->before.assign(lines.rbegin(), lines.rend());
  }

  // Keeps the last n complete lines before the next region's start.
  void RememberTail(std::string_view region) {
    const uint32_t n = options_.context_lines;
    if (region.empty() || region.back() != '\n') return;
    std::vector<ContextLine> tail;  // Newest first.
    const uint64_t next_line =
        line_no_ + CountNewlines(region.data(), region.size());
    size_t pos = region.size();
    while (tail.size() < n && pos > 0) {
      const size_t prev_end = pos - 1;
      const size_t prev_start = LineStart(region, prev_end);
      tail.push_back(
          {next_line - 1 - tail.size(),
           ContextText(region.substr(prev_start, prev_end - prev_start),
                       options_.preview_bytes)});
      pos = prev_start;
    }
    if (pos > 0) history_.clear();
    for (auto it = tail.rbegin(); it != tail.rend(); ++it) {
      history_.push_back(std::move(*it));
    }
    while (history_.size() > n) history_.pop_front();
  }

  const LineMatcher& matcher_;
  LineSearchOptions options_;
  const MatchSink& sink_;

  std::string carry_;          // An incomplete line from earlier input.
  uint64_t carry_offset_ = 0;  // Source offset of carry_[0].
  uint64_t next_offset_ = 0;   // Source offset of the next byte fed.
  uint64_t line_no_ = 1;       // Line number of the next unsearched byte.
  uint64_t line_start_ = 0;    // Source offset where that line begins.
  std::deque<ContextLine> history_;
  std::deque<Pending> pending_;
  bool stopped_ = false;
  bool finished_ = false;
};

LineSearcher::LineSearcher(const LineMatcher& matcher,
                           const LineSearchOptions& options,
                           const MatchSink& sink)
    : impl_(std::make_unique<Impl>(matcher, options, sink)) {}
LineSearcher::~LineSearcher() = default;
bool LineSearcher::Feed(std::string_view bytes) { return impl_->Feed(bytes); }
void LineSearcher::Finish() { impl_->Finish(); }
bool LineSearcher::stopped() const { return impl_->stopped(); }

Status SearchLines(ByteSource& source, const LineMatcher& matcher,
                   const LineSearchOptions& options, const MatchSink& sink) {
  LineSearcher searcher(matcher, options, sink);
  const uint64_t size = source.size();
  const uint64_t block = std::max<uint64_t>(options.block_bytes, 1);
  std::string buf;
  for (uint64_t pos = 0; pos < size && !searcher.stopped();) {
    CTXKIT_RETURN_IF_ERROR(source.Read(pos, block, &buf));
    if (buf.empty()) break;
    pos += buf.size();
    searcher.Feed(buf);
  }
  searcher.Finish();
  return Status::Ok();
}

}  // namespace ctxkit::text
