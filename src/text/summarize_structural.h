// The structural summarizer: a useful, model-free summary of a value.
//
//   json    shape, key paths with types, counts and sample values
//   code    an outline of definitions (C/C++, Python, JS/TS, Go, Rust, ...)
//   text    counts, the head, the most informative lines, the tail
//   stream  an index of chunks (one per append) and the latest lines
//   binary  size, a recognized format, the first bytes in hex
//
// Pure functions over bytes the caller has read: the whole value, or for a
// large one a sample of its head (and tail) plus counts computed while
// streaming it (see src/summary/). The result's exact token count with the
// given tokenizer is at most max_tokens, always.

#ifndef CTXKIT_TEXT_SUMMARIZE_STRUCTURAL_H_
#define CTXKIT_TEXT_SUMMARIZE_STRUCTURAL_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ctxkit/ref.h"
#include "ctxkit/tokenizer.h"

namespace ctxkit::text {

// Counts over a whole value.
struct TextCounts {
  uint64_t bytes = 0;
  uint64_t lines = 0;  // Line breaks, plus one for a final unterminated line.
  uint64_t words = 0;  // Runs of non-whitespace bytes.
  uint64_t tokens = 0;
  bool tokens_exact = true;  // false: estimated from a sample.
};

// Computes TextCounts over a value fed in chunks of any size.
class TextCountsBuilder {
 public:
  explicit TextCountsBuilder(const Tokenizer& tok, bool count_tokens = true)
      : tokens_(tok), count_tokens_(count_tokens) {}
  void Append(std::string_view bytes);
  TextCounts Finish();

 private:
  TokenCounter tokens_;
  bool count_tokens_;
  TextCounts counts_;
  bool in_word_ = false;
  char last_ = '\n';
};

// One append of a stream, with the first bytes of what it appended.
struct StreamChunk {
  uint64_t index = 0;  // 1-based (the version that appended it).
  uint64_t offset = 0;
  uint64_t length = 0;
  std::string preview;
};

struct StructuralInput {
  // The value's first bytes: all of it unless `sampled`.
  std::string_view head;
  // When sampled: the value's last bytes (may be empty).
  std::string_view tail;
  bool sampled = false;
  uint64_t total_bytes = 0;
  // Whole-value counts (at least `bytes`; the rest are computed from `head`
  // when zero and not sampled).
  TextCounts counts;
  ValueType type = ValueType::kText;
  // A name whose extension hints at the language ("src/main.rs"); may be "".
  std::string_view name;
  // For streams: chunks, possibly a subset (the first and last ones), and
  // how many there are in all.
  std::vector<StreamChunk> chunks;
  uint64_t chunk_count = 0;
};

struct StructuralSummary {
  std::string text;
  // What the value was summarized as: "empty", "binary", "json", "code",
  // "text" or "stream".
  std::string kind;
};

// Detects the kind and summarizes. tok.Count(result.text) <= max_tokens.
StructuralSummary SummarizeStructural(const Tokenizer& tok,
                                      const StructuralInput& in,
                                      size_t max_tokens);

// The individual summarizers, exposed for tests. Each returns false (and
// leaves *out alone) when the input is not of its kind.
bool SummarizeJson(const Tokenizer& tok, const StructuralInput& in,
                   size_t max_tokens, std::string* out);
bool SummarizeCode(const Tokenizer& tok, const StructuralInput& in,
                   size_t max_tokens, std::string* out);
std::string SummarizeText(const Tokenizer& tok, const StructuralInput& in,
                          size_t max_tokens);
std::string SummarizeStream(const Tokenizer& tok, const StructuralInput& in,
                            size_t max_tokens);
std::string SummarizeBinary(const Tokenizer& tok, const StructuralInput& in,
                            size_t max_tokens);

// Splits `text` into lines (without their "\n" or "\r\n").
std::vector<std::string_view> SplitLines(std::string_view text);

// The counts line shared by the text-like summarizers, e.g.
// "1,234 lines, 5,678 words, 40.0 KiB, 9,876 tokens".
std::string CountsPhrase(const TextCounts& counts);

// `in.counts` completed from `in.head` when the caller left them zero.
TextCounts EffectiveCounts(const Tokenizer& tok, const StructuralInput& in);

}  // namespace ctxkit::text

#endif  // CTXKIT_TEXT_SUMMARIZE_STRUCTURAL_H_
