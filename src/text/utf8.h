// UTF-8 validation and repair for the tokenizer.
//
// The tokenizer works on valid UTF-8 only. Invalid input is repaired the way
// the WHATWG Encoding Standard's decoder (JavaScript's TextDecoder) does it:
// every maximal subpart of an ill-formed sequence becomes one U+FFFD. That
// is what the npm `tiktoken` package sees when it is handed bytes decoded to
// a JS string, so both produce the same tokens.

#ifndef CTXKIT_TEXT_UTF8_H_
#define CTXKIT_TEXT_UTF8_H_

#include <cstddef>
#include <string>
#include <string_view>

namespace ctxkit::text {

// The three bytes of U+FFFD REPLACEMENT CHARACTER.
inline constexpr std::string_view kReplacementUtf8 = "\xEF\xBF\xBD";

// Returns the length of the longest prefix of `bytes` that is well-formed
// UTF-8 (bytes.size() when all of it is).
size_t ValidUtf8Prefix(std::string_view bytes);

// Appends `bytes` to `*out`, replacing each maximal subpart of an ill-formed
// sequence with U+FFFD.
//
// When `final` is false, a trailing incomplete sequence that more bytes could
// still complete is not consumed; the return value is the number of bytes
// consumed (the caller keeps the rest for the next call). When `final` is
// true everything is consumed and an incomplete tail becomes U+FFFD.
size_t AppendRepairedUtf8(std::string_view bytes, bool final, std::string* out);

// Decodes the code point of the well-formed sequence at `p` and stores its
// byte length in `*len`.
// REQUIRES: p points at a complete, well-formed UTF-8 sequence.
inline char32_t DecodeUtf8(const unsigned char* p, size_t* len) {
  const unsigned char b = p[0];
  if (b < 0x80) {
    *len = 1;
    return b;
  }
  if (b < 0xE0) {
    *len = 2;
    return (char32_t{b & 0x1Fu} << 6) | (p[1] & 0x3Fu);
  }
  if (b < 0xF0) {
    *len = 3;
    return (char32_t{b & 0x0Fu} << 12) | (char32_t{p[1] & 0x3Fu} << 6) |
           (p[2] & 0x3Fu);
  }
  *len = 4;
  return (char32_t{b & 0x07u} << 18) | (char32_t{p[1] & 0x3Fu} << 12) |
         (char32_t{p[2] & 0x3Fu} << 6) | (p[3] & 0x3Fu);
}

}  // namespace ctxkit::text

#endif  // CTXKIT_TEXT_UTF8_H_
