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
  if (from > text.size()) return false;
  const void* hit = memmem(text.data() + from, text.size() - from,
                           pattern_.data(), pattern_.size());
  if (hit == nullptr) return false;
  *begin = static_cast<const char*>(hit) - text.data();
  *end = *begin + pattern_.size();
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
size_t LineEnd(const std::string& buf, size_t pos, size_t limit) {
  if (pos >= limit) return limit;
  const void* nl = memchr(buf.data() + pos, '\n', limit - pos);
  return nl == nullptr ? limit : static_cast<const char*>(nl) - buf.data();
}

// Offset of the first byte of the line that contains `pos`.
size_t LineStart(const std::string& buf, size_t pos) {
  if (pos == 0) return 0;
  const void* nl = memrchr(buf.data(), '\n', pos);
  return nl == nullptr ? 0 : static_cast<const char*>(nl) - buf.data() + 1;
}

class Searcher {
 public:
  Searcher(ByteSource& source, const LineMatcher& matcher,
           const LineSearchOptions& options, const MatchSink& sink)
      : source_(source), matcher_(matcher), options_(options), sink_(sink) {
    options_.block_bytes = std::max<uint64_t>(options_.block_bytes, 1);
    options_.max_line_bytes = std::max<uint64_t>(options_.max_line_bytes, 1);
  }

  Status Run() {
    const uint64_t size = source_.size();
    uint64_t pos = 0;
    std::string block;
    while (!stopped_) {
      bool eof = pos >= size;
      if (!eof) {
        CTXKIT_RETURN_IF_ERROR(source_.Read(pos, options_.block_bytes, &block));
        eof = block.empty();
        pos += block.size();
        eof = eof || pos >= size;
      }
      const size_t old_size = buf_.size();
      buf_ += block;
      block.clear();
      size_t region_end;
      if (eof) {
        region_end = buf_.size();
      } else {
        // Only the new bytes can hold a '\n': the carry has none.
        const void* nl =
            memrchr(buf_.data() + old_size, '\n', buf_.size() - old_size);
        if (nl != nullptr) {
          region_end = static_cast<const char*>(nl) - buf_.data() + 1;
        } else if (buf_.size() >= options_.max_line_bytes) {
          region_end = buf_.size();  // A window of an over-long line.
        } else {
          continue;
        }
      }
      Process(region_end, eof);
      buf_first_line_ = counted_line_ + CountNewlines(counted_pos_, region_end);
      if (region_end > 0 && buf_[region_end - 1] == '\n') {
        buf_line_start_ = buf_offset_ + region_end;
      }
      buf_.erase(0, region_end);
      buf_offset_ += region_end;
      if (eof) break;
    }
    return Status::Ok();
  }

 private:
  struct Pending {
    LineMatch match;
    uint32_t need = 0;
  };

  uint64_t CountNewlines(size_t from, size_t to) const {
    return std::count(buf_.begin() + from, buf_.begin() + to, '\n');
  }

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

  // Searches buf_[0, region_end): whole lines (the last one unterminated
  // only at eof or for a window of an over-long line).
  void Process(size_t region_end, bool eof) {
    const uint32_t n = options_.context_lines;
    counted_pos_ = 0;
    counted_line_ = buf_first_line_;
    // After-context owed by matches of earlier blocks: the first lines here.
    if (!pending_.empty()) {
      uint32_t most = 0;
      for (const Pending& p : pending_) most = std::max(most, p.need);
      std::vector<ContextLine> head;
      for (size_t at = 0; head.size() < most && at < region_end;) {
        const size_t end = LineEnd(buf_, at, region_end);
        head.push_back({buf_first_line_ + head.size(),
                        ContextText(std::string_view(buf_).substr(at, end - at),
                                    options_.preview_bytes)});
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
      return;
    }
    const std::string_view region =
        std::string_view(buf_).substr(0, region_end);
    size_t from = 0;
    size_t b = 0;
    size_t e = 0;
    while (!stopped_ && from <= region_end &&
           matcher_.Find(region, from, &b, &e)) {
      // An empty match after the final '\n' is not on a line of this
      // region (it would be a phantom empty line).
      if (b >= region_end && buf_[region_end - 1] == '\n') break;
      const size_t line_start = LineStart(buf_, b);
      const size_t line_end = LineEnd(buf_, b, region_end);
      counted_line_ += CountNewlines(counted_pos_, line_start);
      counted_pos_ = line_start;

      LineMatch m;
      m.line = counted_line_;
      m.line_offset =
          line_start == 0 ? buf_line_start_ : buf_offset_ + line_start;
      m.byte_offset = buf_offset_ + b;
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
        AddBefore(&m, line_start);
        size_t at = line_end + 1;
        while (m.after.size() < n && at < region_end) {
          const size_t end = LineEnd(buf_, at, region_end);
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
    if (n > 0) RememberTail(region_end);
  }

  // Up to n lines before the line at buf_[line_start]: from this buffer,
  // then from the lines remembered from earlier blocks.
  void AddBefore(LineMatch* m, size_t line_start) {
    const uint32_t n = options_.context_lines;
    std::vector<ContextLine> lines;  // Newest first.
    size_t pos = line_start;
    while (lines.size() < n && pos > 0) {
      const size_t prev_end = pos - 1;  // The '\n' ending the previous line.
      const size_t prev_start = LineStart(buf_, prev_end);
      lines.push_back({m->line - 1 - lines.size(),
                       ContextText(std::string_view(buf_).substr(
                                       prev_start, prev_end - prev_start),
                                   options_.preview_bytes)});
      pos = prev_start;
    }
    for (auto it = history_.rbegin();
         lines.size() < n && pos == 0 && it != history_.rend(); ++it) {
      lines.push_back(*it);
    }
    m->before.assign(lines.rbegin(), lines.rend());
  }

  // Keeps the last n complete lines before the next buffer's start.
  void RememberTail(size_t region_end) {
    const uint32_t n = options_.context_lines;
    if (region_end == 0 || buf_[region_end - 1] != '\n') return;
    std::vector<ContextLine> tail;  // Newest first.
    const uint64_t next_line = buf_first_line_ + CountNewlines(0, region_end);
    size_t pos = region_end;
    while (tail.size() < n && pos > 0) {
      const size_t prev_end = pos - 1;
      const size_t prev_start = LineStart(buf_, prev_end);
      tail.push_back({next_line - 1 - tail.size(),
                      ContextText(std::string_view(buf_).substr(
                                      prev_start, prev_end - prev_start),
                                  options_.preview_bytes)});
      pos = prev_start;
    }
    if (pos > 0) history_.clear();
    for (auto it = tail.rbegin(); it != tail.rend(); ++it) {
      history_.push_back(std::move(*it));
    }
    while (history_.size() > n) history_.pop_front();
  }

  ByteSource& source_;
  const LineMatcher& matcher_;
  LineSearchOptions options_;
  const MatchSink& sink_;

  std::string buf_;              // The carry, then the newest block.
  uint64_t buf_offset_ = 0;      // Source offset of buf_[0].
  uint64_t buf_first_line_ = 1;  // Line number of the line holding buf_[0].
  uint64_t buf_line_start_ = 0;  // Source offset where that line begins.
  size_t counted_pos_ = 0;       // Newlines before here are in counted_line_.
  uint64_t counted_line_ = 1;
  std::deque<ContextLine> history_;
  std::deque<Pending> pending_;
  bool stopped_ = false;
};

}  // namespace

Status SearchLines(ByteSource& source, const LineMatcher& matcher,
                   const LineSearchOptions& options, const MatchSink& sink) {
  return Searcher(source, matcher, options, sink).Run();
}

}  // namespace ctxkit::text
