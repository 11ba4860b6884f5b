// TokenCounter: Tokenizer::Count over a stream of chunks.
//
// The pre-tokenizer reports when a piece's extent depended on the end of
// the text seen so far; such a piece (always the last one) is kept in
// pending_ and split again once more text arrives. Rescanning only after
// pending_ has doubled keeps a long unbroken run from being rescanned on
// every small chunk, so total work stays linear.

#include <algorithm>

#include "ctxkit/tokenizer.h"
#include "text/utf8.h"

namespace ctxkit {

TokenCounter::TokenCounter(const Tokenizer& tokenizer)
    : tokenizer_(&tokenizer) {}

void TokenCounter::Append(std::string_view bytes) {
  if (bytes.empty()) return;
  std::string joined;
  if (!raw_tail_.empty()) {
    // A sequence cut by the previous chunk: complete it from this one.
    joined = std::move(raw_tail_);
    joined.append(bytes);
    bytes = joined;
  }
  const size_t used =
      text::AppendRepairedUtf8(bytes, /*final=*/false, &pending_);
  raw_tail_.assign(bytes.substr(used));
  if (pending_.size() < retry_at_) return;
  size_t consumed;
  count_ += tokenizer_->CountValidUtf8(pending_, /*final=*/false, &consumed);
  pending_.erase(0, consumed);
  retry_at_ = std::max<size_t>(2 * pending_.size(), 4096);
}

size_t TokenCounter::Finish() {
  text::AppendRepairedUtf8(raw_tail_, /*final=*/true, &pending_);
  size_t consumed;
  const size_t total =
      count_ + tokenizer_->CountValidUtf8(pending_, /*final=*/true, &consumed);
  raw_tail_.clear();
  pending_.clear();
  count_ = 0;
  retry_at_ = 0;
  return total;
}

}  // namespace ctxkit
