#include "text/pretokenizer.h"

#include <cstdint>

#include "text/utf8.h"

// The two patterns, as tiktoken 1.0.22 ships them (scripts/tokenizer/
// build_ranks.mjs refuses to build if they change):
//
// o200k_base:
//   A
//   [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+
//          (?i:'s|'t|'re|'ve|'m|'ll|'d)?
//   B
//   |[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*
//          (?i:'s|'t|'re|'ve|'m|'ll|'d)?
//   C |\p{N}{1,3}
//   D | ?[^\s\p{L}\p{N}]+[\r\n/]*
//   E |\s*[\r\n]+
//   F |\s+(?!\S)
//   G |\s+
//
// cl100k_base:
//   (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}
//   | ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
//
// Below, X = [^\r\n\p{L}\p{N}], U = [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}],
// W = [\p{Ll}\p{Lm}\p{Lo}\p{M}], Y = [^\s\p{L}\p{N}]. Every position matches
// some alternative (a character is \s, L, N or Y) and no alternative matches
// the empty string, so the matches tile the text and we only need the end
// of the match that starts at each position. With leftmost-first semantics
// that is the first alternative that matches there, and within it the
// first success in backtracking order (greedy quantifiers try longest
// first, `?` tries "present" first).

namespace ctxkit::text {
namespace {

constexpr size_t kNoMatch = static_cast<size_t>(-1);
// Class returned for the position just past the text. It has none of the
// class bits, so predicates must test for it explicitly where "not in a
// class" would otherwise accept it.
constexpr uint8_t kEndOfText = 0x80;

class Scanner {
 public:
  Scanner(std::string_view text, const CharClassTable& classes)
      : s_(reinterpret_cast<const unsigned char*>(text.data())),
        n_(text.size()),
        classes_(classes) {}

  bool needs_more() const { return needs_more_; }

  // Class bits of the code point at `i`, and its length in `*len`. At the
  // end of the text returns kEndOfText and records that the decision
  // depended on what (if anything) follows.
  uint8_t ClassAt(size_t i, size_t* len) {
    if (i >= n_) {
      needs_more_ = true;
      *len = 0;
      return kEndOfText;
    }
    if (s_[i] < 0x80) {
      *len = 1;
      return classes_.Of(s_[i]);
    }
    return classes_.Of(DecodeUtf8(s_ + i, len));
  }

  // The byte at `i`, or -1 (recording the dependency) at the end.
  int ByteAt(size_t i) {
    if (i >= n_) {
      needs_more_ = true;
      return -1;
    }
    return s_[i];
  }

  // End of the maximal run starting at `i` of code points having any of
  // `bits`.
  size_t RunOf(size_t i, uint8_t bits) {
    size_t len;
    while (ClassAt(i, &len) & bits) i += len;
    return i;
  }

  // End of the maximal run of Y = [^\s\p{L}\p{N}] starting at `i`.
  size_t RunOfY(size_t i) {
    size_t len;
    for (;;) {
      const uint8_t c = ClassAt(i, &len);
      if (!IsY(c)) return i;
      i += len;
    }
  }

  static bool IsX(uint8_t c) {
    return c != kEndOfText && (c & (kCrLf | kLetter | kNumber)) == 0;
  }
  static bool IsY(uint8_t c) {
    return c != kEndOfText && (c & (kSpace | kLetter | kNumber)) == 0;
  }

  // (?i:'s|'t|'re|'ve|'m|'ll|'d) at `i`: the end of the match, or kNoMatch.
  // Case-insensitive matching is Unicode simple case folding, under which
  // U+017F LATIN SMALL LETTER LONG S also matches `s`; no other non-ASCII
  // character folds to one of these letters.
  size_t Contraction(size_t i) {
    if (ByteAt(i) != '\'') return kNoMatch;
    const int c1 = ByteAt(i + 1);
    if (c1 < 0) return kNoMatch;
    switch (c1 | 0x20) {  // ASCII letters only: maps 'S' and 's' to 's'.
      case 's':
      case 't':
      case 'm':
      case 'd':
        return i + 2;
      case 'r':
      case 'v':
        return (ByteAt(i + 2) | 0x20) == 'e' ? i + 3 : kNoMatch;
      case 'l':
        return (ByteAt(i + 2) | 0x20) == 'l' ? i + 3 : kNoMatch;
      default:
        break;
    }
    if (c1 == 0xC5 && ByteAt(i + 2) == 0xBF) return i + 3;  // U+017F ſ
    return kNoMatch;
  }

  // Appends the optional contraction suffix of o200k's A and B.
  size_t WithContraction(size_t e) {
    const size_t c = Contraction(e);
    return c == kNoMatch ? e : c;
  }

  // U*W+ at `p` (the body of o200k's A). U* takes the longest run it can
  // give back from: the match ends after the last W inside the U run, or,
  // if the code point right after the U run is W (then it is Ll), after the
  // W run starting there. A W inside the U run is followed by a non-W, so
  // W+ starting there matches just that code point.
  size_t UpperThenLower(size_t p) {
    size_t last_w_end = kNoMatch;
    size_t len;
    size_t i = p;
    uint8_t c;
    while ((c = ClassAt(i, &len)) & kUpper) {
      i += len;
      if (c & kLower) last_w_end = i;
    }
    if (c & kLower) return RunOf(i, kLower);
    return last_w_end;
  }

  // U+W* at `p` (the body of o200k's B): both runs greedy; W* cannot fail.
  size_t UpperRunThenLower(size_t p) {
    size_t len;
    if (!(ClassAt(p, &len) & kUpper)) return kNoMatch;
    return RunOf(RunOf(p + len, kUpper), kLower);
  }

  // \p{N}{1,3} at `i`, whose code point is N.
  size_t Digits(size_t i) {
    size_t len;
    for (int k = 0; k < 3 && (ClassAt(i, &len) & kNumber); ++k) i += len;
    return i;
  }

  // ` ?Y+` followed by the greedy trailing class: [\r\n/]* for o200k,
  // [\r\n]* for cl100k. Returns kNoMatch when neither option matches.
  size_t Punctuation(size_t i, uint8_t c0, size_t len0, bool slash) {
    size_t start = kNoMatch;
    if (s_[i] == ' ') {
      size_t len1;
      if (IsY(ClassAt(i + len0, &len1))) start = i + len0;
    }
    if (start == kNoMatch) {
      if (!IsY(c0)) return kNoMatch;
      start = i;
    }
    size_t e = RunOfY(start);
    for (;;) {
      const int b = ByteAt(e);
      if (b == '\r' || b == '\n' || (slash && b == '/')) {
        ++e;
      } else {
        return e;
      }
    }
  }

  // The last three alternatives, shared by both patterns, at a \s code
  // point `i`:
  //   \s*[\r\n]+  \s* gives back until [\r\n]+ can start, so the match ends
  //               just after the last \r or \n of the whitespace run (that
  //               one is not followed by another \r or \n inside the run).
  //   \s+(?!\S)   at the run's end the next code point is \S unless the
  //               text ends; giving back one code point leaves a \s next,
  //               so the match is the run minus its last code point, when
  //               that leaves at least one.
  //   \s+         the whole run.
  size_t Whitespace(size_t i) {
    size_t last_crlf_end = kNoMatch;
    size_t last_start = i;
    size_t len;
    size_t j = i;
    uint8_t c;
    while ((c = ClassAt(j, &len)) & kSpace) {
      last_start = j;
      j += len;
      if (c & kCrLf) last_crlf_end = j;
    }
    if (last_crlf_end != kNoMatch) return last_crlf_end;
    if (c == kEndOfText) return j;  // (?!\S) holds at the end of the text.
    if (last_start > i) return last_start;
    return j;
  }

  size_t O200kPiece(size_t i) {
    size_t len0;
    const uint8_t c0 = ClassAt(i, &len0);
    const bool x = IsX(c0);
    size_t e;
    // A: with the optional X, then without it.
    if (x && (e = UpperThenLower(i + len0)) != kNoMatch) {
      return WithContraction(e);
    }
    if ((e = UpperThenLower(i)) != kNoMatch) return WithContraction(e);
    // B: likewise.
    if (x && (e = UpperRunThenLower(i + len0)) != kNoMatch) {
      return WithContraction(e);
    }
    if ((e = UpperRunThenLower(i)) != kNoMatch) return WithContraction(e);
    // C
    if (c0 & kNumber) return Digits(i);
    // D
    if ((e = Punctuation(i, c0, len0, /*slash=*/true)) != kNoMatch) return e;
    // E, F, G: every remaining code point is \s.
    return Whitespace(i);
  }

  size_t Cl100kPiece(size_t i) {
    size_t e;
    if ((e = Contraction(i)) != kNoMatch) return e;
    size_t len0;
    const uint8_t c0 = ClassAt(i, &len0);
    // [^\r\n\p{L}\p{N}]?\p{L}+ : with the X (then a letter must follow),
    // else the letter run itself.
    if (IsX(c0)) {
      size_t len1;
      if (ClassAt(i + len0, &len1) & kLetter) {
        return RunOf(i + len0 + len1, kLetter);
      }
    }
    if (c0 & kLetter) return RunOf(i + len0, kLetter);
    if (c0 & kNumber) return Digits(i);
    if ((e = Punctuation(i, c0, len0, /*slash=*/false)) != kNoMatch) return e;
    return Whitespace(i);
  }

 private:
  const unsigned char* s_;
  size_t n_;
  const CharClassTable& classes_;
  bool needs_more_ = false;
};

}  // namespace

size_t PreTokenizer::PieceEnd(std::string_view text, size_t pos,
                              bool* needs_more) const {
  Scanner scanner(text, classes_);
  const size_t end = pattern_ == SplitPattern::kO200k
                         ? scanner.O200kPiece(pos)
                         : scanner.Cl100kPiece(pos);
  *needs_more = scanner.needs_more();
  return end;
}

}  // namespace ctxkit::text
