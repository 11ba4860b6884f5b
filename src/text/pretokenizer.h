// Pre-tokenization: splitting text into the pieces BPE runs on.
//
// tiktoken splits text with a regex before merging bytes; o200k_base and
// cl100k_base use lookahead (`\s+(?!\S)`) and Unicode classes, which a
// linear-time regex engine cannot express and a backtracking one may run in
// super-linear time. PreTokenizer is a hand-written scanner that yields
// exactly the matches of those regexes (leftmost-first alternation, greedy
// quantifiers with backtracking) in time linear in the input: every branch
// below scans forward over runs, and each character is examined a bounded
// number of times. The derivation of each branch is in pretokenizer.cc.

#ifndef CTXKIT_TEXT_PRETOKENIZER_H_
#define CTXKIT_TEXT_PRETOKENIZER_H_

#include <cstddef>
#include <string_view>

#include "text/unicode_class.h"

namespace ctxkit::text {

// Which encoding's split regex to reproduce.
enum class SplitPattern { kO200k, kCl100k };

class PreTokenizer {
 public:
  explicit PreTokenizer(SplitPattern pattern)
      : pattern_(pattern), classes_(CharClassTable::Get()) {}

  // Returns the end of the piece that starts at `pos`. Sets `*needs_more`
  // when deciding that end looked at the end of `text`, i.e. when more text
  // appended after it could change the piece.
  // REQUIRES: `text` is well-formed UTF-8; pos < text.size() and pos is at
  // a code point boundary.
  size_t PieceEnd(std::string_view text, size_t pos, bool* needs_more) const;

  // Calls `on_piece(std::string_view)` for each piece of `text` in order.
  // The pieces tile the text: no byte is skipped and none is empty.
  //
  // When `final` is false, `text` is a prefix of a longer input: stops
  // before the first piece that more input could change and returns the
  // number of bytes split (the caller rescans the rest with more input).
  // When `final` is true, splits everything and returns text.size().
  // REQUIRES: `text` is well-formed UTF-8.
  template <typename OnPiece>
  size_t Split(std::string_view text, bool final, OnPiece&& on_piece) const {
    size_t pos = 0;
    while (pos < text.size()) {
      bool needs_more = false;
      const size_t end = PieceEnd(text, pos, &needs_more);
      if (needs_more && !final) break;
      on_piece(text.substr(pos, end - pos));
      pos = end;
    }
    return pos;
  }

 private:
  SplitPattern pattern_;
  const CharClassTable& classes_;
};

}  // namespace ctxkit::text

#endif  // CTXKIT_TEXT_PRETOKENIZER_H_
