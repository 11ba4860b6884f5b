// Bounded, printable excerpts of arbitrary bytes: what search shows for a
// matching line and peek for a cut slice.

#ifndef CTXKIT_TEXT_PREVIEW_H_
#define CTXKIT_TEXT_PREVIEW_H_

#include <cstddef>
#include <string>
#include <string_view>

namespace ctxkit::text {

// The largest n <= max such that bytes[0, n) does not end inside a UTF-8
// sequence that continues at bytes[n] (a cut never splits a character).
// bytes.size() when it fits. Invalid UTF-8 is cut anywhere.
size_t Utf8SafeCut(std::string_view bytes, size_t max);

// The length of `bytes` without a trailing UTF-8 sequence that is
// incomplete (a cut in the middle of a character); bytes.size() otherwise.
size_t Utf8CompletePrefix(std::string_view bytes);

// The first byte at or after `pos` that does not continue a UTF-8
// sequence (at most 3 bytes further), so an excerpt can start there.
size_t Utf8SafeStart(std::string_view bytes, size_t pos);

// `bytes` made safe to print: each ill-formed UTF-8 sequence becomes
// U+FFFD (as text::AppendRepairedUtf8) and each control character other
// than tab becomes U+FFFD too (a preview is one line).
std::string PrintablePreview(std::string_view bytes);

}  // namespace ctxkit::text

#endif  // CTXKIT_TEXT_PREVIEW_H_
