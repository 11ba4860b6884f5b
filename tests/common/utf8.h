// UTF-8 encoding of code points for tests that generate text (the product
// only ever validates UTF-8; it never needs to encode it).

#ifndef CTXKIT_TESTS_COMMON_UTF8_H_
#define CTXKIT_TESTS_COMMON_UTF8_H_

#include <string>

namespace ctxkit::testing {

// Appends the UTF-8 form of `cp` (REQUIRES: cp <= 0x10FFFF; surrogates are
// encoded as-is, which tests use to build ill-formed input on purpose).
inline void AppendUtf8(char32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

}  // namespace ctxkit::testing

#endif  // CTXKIT_TESTS_COMMON_UTF8_H_
