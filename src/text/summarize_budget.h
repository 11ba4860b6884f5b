// Token-budgeted text assembly shared by the structural summarizers.
//
// Every summarizer builds a header line and a few blocks of lines (head,
// outline, key paths, ...), each with a weight. RenderWithinBudget picks as
// many lines as fit, sharing the budget by weight, and guarantees the exact
// token count of the result (with the given tokenizer) is at most
// max_tokens: per-line counts only steer the greedy choice; the final text
// is counted whole and trimmed until it fits.

#ifndef CTXKIT_TEXT_SUMMARIZE_BUDGET_H_
#define CTXKIT_TEXT_SUMMARIZE_BUDGET_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ctxkit/tokenizer.h"

namespace ctxkit::text {

struct SummaryBlock {
  std::string heading;  // Printed before the lines when any line fits.
  std::vector<std::string> lines;
  int weight = 1;  // Share of the budget relative to the other blocks.
  // Lines are kept from the front; when true, from the back instead
  // (a tail block keeps its last lines).
  bool keep_back = false;
};

// The longest prefix of `text` that is whole UTF-8 characters and at most
// `max_bytes` long, with "…" appended when something was cut.
std::string ClipLine(std::string_view text, size_t max_bytes);

// `text` cut (at a line break when one is near, else a character boundary)
// so that tok.Count(result) <= max_tokens. Returns `text` unchanged when it
// fits already.
std::string FitToTokens(const Tokenizer& tok, std::string_view text,
                        size_t max_tokens);

// Header, then each block's heading and chosen lines, one per line. Each
// block first gets lines within its weighted share of the budget; what is
// left goes to the heaviest blocks first. The result's exact token count is
// <= max_tokens (0 gives "").
std::string RenderWithinBudget(const Tokenizer& tok, std::string_view header,
                               const std::vector<SummaryBlock>& blocks,
                               size_t max_tokens);

// True when the bytes look like text: no NUL and few invalid UTF-8 or
// control bytes.
bool LooksLikeText(std::string_view sample);

}  // namespace ctxkit::text

#endif  // CTXKIT_TEXT_SUMMARIZE_BUDGET_H_
