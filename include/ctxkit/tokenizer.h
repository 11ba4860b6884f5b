// Tokenizer: exact token counts for OpenAI's BPE encodings.
//
// A Tokenizer turns text into the token ids an OpenAI model sees, and back.
// Two encodings are built in: o200k_base (the default; GPT-4o and later)
// and cl100k_base (GPT-4, GPT-3.5). For every input the result equals what
// the npm package `tiktoken` (pinned in package-lock.json) returns from
// `encode_ordinary`; a test checks this on several megabytes of mixed text.
//
//   ctxkit::Result<const ctxkit::Tokenizer*> tok =
//       ctxkit::Tokenizer::Get(ctxkit::Encoding::kO200kBase);
//   if (!tok.ok()) return tok.status();
//   size_t n = (*tok)->Count("hello world");  // 2
//
// Text is bytes. Well-formed UTF-8 is tokenized as is. Ill-formed UTF-8 is
// first repaired exactly as JavaScript's TextDecoder (the WHATWG Encoding
// Standard) does it: each maximal subpart of an ill-formed sequence (a stray
// continuation byte, a truncated sequence, an overlong form, an encoded
// surrogate, a code point above U+10FFFF) becomes one U+FFFD REPLACEMENT
// CHARACTER. That is what tiktoken sees when bytes are decoded to a JS
// string before `encode`, so counts agree with it on any byte string. It
// follows that Decode(Encode(s)) == s exactly when s is well-formed UTF-8;
// otherwise it returns the repaired text.
//
// Special tokens such as "<|endoftext|>" are never produced by Encode: their
// text is encoded as ordinary text (tiktoken's `encode_ordinary`; its plain
// `encode` would throw on them by default). Decode accepts their ids.
//
// Cost: time linear in the input for pre-tokenization and O(n log n) in the
// length of each unbroken run for merging: a 10 MB line without a space
// counts in seconds (under a second for base64 or digits, several seconds
// when the whole line is one run of letters), where tiktoken's quadratic
// merge would take hours. Rank data is compiled into the library;
// nothing is read from disk or the network.
//
// Thread safety: a Tokenizer is immutable once Get returns it and may be
// used from any number of threads at once. Get itself is thread-safe.
// A TokenCounter is a value with mutable state: one per thread.

#ifndef CTXKIT_TOKENIZER_H_
#define CTXKIT_TOKENIZER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ctxkit/status.h"

namespace ctxkit {

// The built-in encodings.
enum class Encoding {
  kO200kBase,   // "o200k_base": GPT-4o, GPT-4.1, o1, o3, o4-mini.
  kCl100kBase,  // "cl100k_base": GPT-4, GPT-3.5-turbo, text-embedding-3.
};

// The encoding used wherever none is named.
inline constexpr Encoding kDefaultEncoding = Encoding::kO200kBase;

// The canonical name of `encoding`, e.g. "o200k_base".
std::string_view EncodingName(Encoding encoding);

// Parses a canonical encoding name ("o200k_base", "cl100k_base"). Returns
// InvalidArgument, naming the known encodings, for anything else.
Result<Encoding> ParseEncoding(std::string_view name);

class Tokenizer {
 public:
  // Returns the process-wide tokenizer for `encoding`, building it on first
  // use (tens of milliseconds: the vocabulary is indexed in memory). The
  // pointer stays valid until the process exits; do not delete it.
  // Returns Corruption if the embedded rank data is damaged (a build bug).
  static Result<const Tokenizer*> Get(Encoding encoding = kDefaultEncoding);

  // Same, by canonical name. Returns InvalidArgument for an unknown name.
  static Result<const Tokenizer*> Get(std::string_view name);

  Tokenizer(const Tokenizer&) = delete;
  Tokenizer& operator=(const Tokenizer&) = delete;
  ~Tokenizer();

  Encoding encoding() const;
  std::string_view name() const { return EncodingName(encoding()); }

  // Number of token ids, special tokens included (ids are 0..n_vocab()-1;
  // a few ids in that range may be unused, as in tiktoken).
  uint32_t n_vocab() const;

  // Returns the token ids of `text` (any bytes; see the top of this file
  // for ill-formed UTF-8). Empty text gives no tokens.
  std::vector<uint32_t> Encode(std::string_view text) const;

  // Returns Encode(text).size() without building the vector.
  size_t Count(std::string_view text) const;

  // Returns the bytes that `tokens` stand for, concatenated. The result
  // need not be valid UTF-8 when a multi-byte character is split across a
  // slice of tokens. Returns InvalidArgument, naming the first offending
  // position, if an id is not a token of this encoding.
  Result<std::string> Decode(std::span<const uint32_t> tokens) const;

 private:
  friend class TokenCounter;
  struct Rep;

  explicit Tokenizer(std::unique_ptr<Rep> rep);

  // Counts the tokens of the pieces of `text` (well-formed UTF-8). When
  // `final` is false, stops before the first piece that more text could
  // change and stores the bytes used in `*consumed`.
  size_t CountValidUtf8(std::string_view text, bool final,
                        size_t* consumed) const;

  std::unique_ptr<Rep> rep_;
};

// Counts the tokens of a byte stream fed in chunks of any size, with the
// same result as Tokenizer::Count on the concatenation: use it to count a
// large value while streaming it, without holding it whole in memory.
//
// Memory is bounded by the longest piece BPE sees (a run of letters,
// digits-free punctuation or whitespace), not by the stream length; each
// byte is scanned an amortized constant number of times.
//
//   ctxkit::TokenCounter counter(**ctxkit::Tokenizer::Get());
//   while (ReadChunk(&chunk)) counter.Append(chunk);
//   size_t tokens = counter.Finish();
class TokenCounter {
 public:
  // REQUIRES: `tokenizer` outlives this counter (those from Get always do).
  explicit TokenCounter(const Tokenizer& tokenizer);

  // Feeds the next chunk of the stream. A chunk may end anywhere, even in
  // the middle of a UTF-8 sequence.
  void Append(std::string_view bytes);

  // Ends the stream and returns its token count. The counter is then empty
  // again, ready for a new stream.
  size_t Finish();

 private:
  const Tokenizer* tokenizer_;
  std::string raw_tail_;  // A UTF-8 sequence cut by the end of a chunk.
  std::string pending_;   // Repaired text whose pieces are not final yet.
  size_t count_ = 0;      // Tokens of the pieces already final.
  size_t retry_at_ = 0;   // Scan pending_ again once it is this long.
};

}  // namespace ctxkit

#endif  // CTXKIT_TOKENIZER_H_
