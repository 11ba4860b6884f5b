#include "text/json_items.h"

#include <algorithm>
#include <string>

#include "core/status_macros.h"

namespace ctxkit::text {

namespace {

bool IsJsonSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

// The items of a top-level JSON array or object, scanned a block at a
// time: where each one begins and ends, and the bytes of those wanted
// ([first, last), within max_span_bytes in all).
class JsonItemScanner {
 public:
  JsonItemScanner(uint64_t first, uint64_t last, uint64_t max_span_bytes)
      : first_(first), last_(last), max_span_bytes_(max_span_bytes) {
    span_.first = first;
  }

  // The scan has passed the last item wanted.
  bool ReachedLast() const { return started_ && index_ >= last_; }

  // The error for a source that ends before the container does.
  Status Unended() const {
    if (!started_) {
      return Status::FailedPrecondition("not a JSON array or object");
    }
    return Status::InvalidArgument(
        "not valid JSON: the top-level container does not end");
  }

  // Scans the block read at source offset `pos`. True when the scan is
  // over: the container closed, the last item wanted ended, or the cap cut
  // an item.
  Result<bool> ScanBlock(const std::string& block, uint64_t pos) {
    block_ = &block;
    pos_ = pos;
    collect_from_ = 0;
    for (size_t i = 0; i < block.size(); ++i) {
      CTXKIT_ASSIGN_OR_RETURN(Step step, ScanByte(block[i], i));
      if (step != Step::kNext) return true;
    }
    Collect(collect_from_, block.size());
    return false;
  }

  // The span found; `end` is the offset where the scan stopped.
  JsonItemSpan Finish(uint64_t end) && {
    if (span_.cut) return std::move(span_);
    if (span_.total.has_value()) span_.first = std::min(first_, *span_.total);
    if (span_.items.empty()) {
      // Nothing returned: an empty range, or past the end. Point at where
      // the requested item would begin.
      span_.begin_byte = span_.end_byte = in_item_ ? item_begin_ : end;
    }
    return std::move(span_);
  }

 private:
  enum class Step { kNext, kDone, kCut };

  // Byte `i` of the current block.
  Result<Step> ScanByte(char c, size_t i) {
    const uint64_t at = pos_ + i;
    if (!started_) return Open(c);
    if (in_string_) {
      item_end_ = at + 1;
      if (escape_) {
        escape_ = false;
      } else if (c == '\\') {
        escape_ = true;
      } else if (c == '"') {
        in_string_ = false;
      }
      return OverCap() ? Cut(i) : Step::kNext;
    }
    if (IsJsonSpace(c)) return Step::kNext;
    const bool closes = (c == ']' || c == '}') && depth_ == 1;
    const bool separates = c == ',' && depth_ == 1;
    if (closes || separates) return EndItem(closes);
    if (!in_item_) BeginItem(at, i);
    item_end_ = at + 1;
    if (c == '"') {
      in_string_ = true;
    } else if (c == '[' || c == '{') {
      ++depth_;
    } else if (c == ']' || c == '}') {
      --depth_;
    }
    return OverCap() ? Cut(i) : Step::kNext;
  }

  // Before the opening bracket: whitespace, then '[' or '{'.
  Result<Step> Open(char c) {
    if (IsJsonSpace(c)) return Step::kNext;
    if (c == '[') {
      span_.kind = JsonContainer::kArray;
    } else if (c == '{') {
      span_.kind = JsonContainer::kObject;
    } else {
      return Status::FailedPrecondition("not a JSON array or object");
    }
    started_ = true;
    depth_ = 1;
    return Step::kNext;
  }

  void BeginItem(uint64_t at, size_t i) {
    in_item_ = true;
    item_begin_ = at;
    if (index_ >= first_ && index_ < last_) {
      collecting_ = true;
      collect_from_ = i;
      current_.clear();
    }
  }

  // A ',' or the closing bracket at depth 1.
  Result<Step> EndItem(bool closes) {
    if (in_item_) {
      if (collecting_) KeepItem();
      in_item_ = false;
      ++index_;
    } else if (!closes) {
      return Status::InvalidArgument("not valid JSON: an empty item");
    }
    if (closes) {
      span_.total = index_;
      depth_ = 0;
      return Step::kDone;
    }
    return index_ >= last_ ? Step::kDone : Step::kNext;
  }

  // The wanted item [item_begin_, item_end_) is complete.
  void KeepItem() {
    Collect(collect_from_, item_end_ > pos_ ? item_end_ - pos_ : 0);
    current_.resize(item_end_ - item_begin_);
    if (span_.items.empty()) span_.begin_byte = item_begin_;
    span_.end_byte = item_end_;
    used_ += current_.size();
    span_.items.push_back(std::move(current_));
    current_.clear();
    collecting_ = false;
  }

  // Appends block[from, to) to the wanted item.
  void Collect(size_t from, size_t to) {
    if (!collecting_ || from >= to) return;
    current_.append(*block_, from, to - from);
  }

  bool OverCap() const {
    return collecting_ && used_ + (item_end_ - item_begin_) > max_span_bytes_;
  }

  // The cap: keep what fits of the current item as the partial one.
  Step Cut(size_t i) {
    Collect(collect_from_, i + 1);
    current_.resize(max_span_bytes_ - used_);
    if (span_.items.empty()) span_.begin_byte = item_begin_;
    span_.end_byte = item_begin_ + current_.size();
    span_.partial = std::move(current_);
    span_.cut = true;
    return Step::kCut;
  }

  const uint64_t first_;
  const uint64_t last_;
  const uint64_t max_span_bytes_;
  JsonItemSpan span_;
  bool started_ = false;  // Saw the opening bracket.
  int64_t depth_ = 0;
  bool in_string_ = false;
  bool escape_ = false;
  uint64_t index_ = 0;       // The item being scanned.
  bool in_item_ = false;     // Between an item's first byte and its end.
  uint64_t item_begin_ = 0;  // Source offset of the item's first byte.
  uint64_t item_end_ = 0;    // One past its last non-whitespace byte.
  uint64_t used_ = 0;        // Bytes of returned items so far.
  std::string current_;      // The wanted item being collected.
  bool collecting_ = false;
  // The block being scanned, its source offset, and where in it the
  // wanted item's bytes not yet collected begin.
  const std::string* block_ = nullptr;
  uint64_t pos_ = 0;
  size_t collect_from_ = 0;
};

}  // namespace

Result<std::optional<JsonContainer>> SniffJsonContainer(ByteSource& source) {
  std::string block;
  for (uint64_t pos = 0; pos < source.size(); pos += block.size()) {
    CTXKIT_RETURN_IF_ERROR(source.Read(pos, 4096, &block));
    if (block.empty()) break;
    for (char c : block) {
      if (IsJsonSpace(c)) continue;
      if (c == '[') return std::optional<JsonContainer>(JsonContainer::kArray);
      if (c == '{') return std::optional<JsonContainer>(JsonContainer::kObject);
      return std::optional<JsonContainer>();
    }
  }
  return std::optional<JsonContainer>();
}

Result<JsonItemSpan> LocateJsonItems(ByteSource& source, uint64_t first,
                                     uint64_t last, uint64_t max_span_bytes,
                                     uint64_t block_bytes) {
  if (first > last) {
    return Status::InvalidArgument("LocateJsonItems: first > last");
  }
  block_bytes = std::max<uint64_t>(block_bytes, 1);
  uint64_t want = std::min(kFirstScanReadBytes, block_bytes);
  JsonItemScanner scanner(first, last, max_span_bytes);
  std::string block;
  uint64_t pos = 0;
  while (!scanner.ReachedLast()) {
    if (pos >= source.size()) return scanner.Unended();
    CTXKIT_RETURN_IF_ERROR(source.Read(pos, want, &block));
    if (block.empty()) {
      return Status::InvalidArgument(
          "not valid JSON: the top-level container does not end");
    }
    want = std::min(want * 2, block_bytes);
    CTXKIT_ASSIGN_OR_RETURN(bool over, scanner.ScanBlock(block, pos));
    pos += block.size();
    if (over) break;
  }
  return std::move(scanner).Finish(pos);
}

Result<uint64_t> CountJsonItems(ByteSource& source, uint64_t block_bytes) {
  CTXKIT_ASSIGN_OR_RETURN(
      JsonItemSpan span,
      LocateJsonItems(source, UINT64_MAX, UINT64_MAX, UINT64_MAX, block_bytes));
  if (!span.total.has_value()) {
    return Status::Internal("JSON item count did not reach the end");
  }
  return *span.total;
}

}  // namespace ctxkit::text
