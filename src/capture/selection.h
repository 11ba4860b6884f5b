// Choosing the saved outputs relevant to a question: an LLM shown a
// numbered list (as the capture spec shows), or BM25 (SQLite FTS5 over an
// in-memory table) when no LLM is configured or it fails.

#ifndef CTXKIT_CAPTURE_SELECTION_H_
#define CTXKIT_CAPTURE_SELECTION_H_

#include <string>
#include <string_view>
#include <vector>

#include "ctxkit/capture.h"
#include "ctxkit/status.h"

namespace ctxkit::capture {

// One line per output: "<n>. <tool>: <args> -> <start of result> (<size>)".
std::string NumberedList(const std::vector<ContextPointer>& pointers,
                         const std::vector<LoadedContext>& contents);

// Parses an LLM reply such as "[1, 3]" (the first JSON array of integers
// in it) into 0-based indexes below `n`, deduplicated, at most `max`.
// InvalidArgument when the reply holds no such array.
Result<std::vector<size_t>> ParseSelectionReply(std::string_view reply,
                                                size_t n, size_t max);

// 0-based indexes of the contents matching any word of `question`, best
// BM25 first, at most `max`.
Result<std::vector<size_t>> RankBm25(std::string_view question,
                                     const std::vector<LoadedContext>& contents,
                                     size_t max);

}  // namespace ctxkit::capture

#endif  // CTXKIT_CAPTURE_SELECTION_H_
