#include "text/utf8.h"

#include <cstdint>
#include <cstring>

namespace ctxkit::text {
namespace {

// Result of examining the sequence that starts at one byte.
struct SequenceCheck {
  size_t length;   // Bytes examined: the whole sequence when valid, else
                   // the maximal subpart (at least 1) to replace.
  bool valid;      // A complete well-formed sequence.
  bool truncated;  // Ill-formed only because the input ended.
};

// The allowed range of the second byte after lead byte `b` (Unicode Table
// 3-7, "Well-Formed UTF-8 Byte Sequences"); later bytes are 80..BF.
inline void SecondByteRange(unsigned char b, unsigned char* lo,
                            unsigned char* hi) {
  *lo = 0x80;
  *hi = 0xBF;
  if (b == 0xE0) {
    *lo = 0xA0;
  } else if (b == 0xED) {
    *hi = 0x9F;  // Excludes the surrogates D800..DFFF.
  } else if (b == 0xF0) {
    *lo = 0x90;  // Excludes overlong four-byte forms.
  } else if (b == 0xF4) {
    *hi = 0x8F;  // Excludes code points above U+10FFFF.
  }
}

SequenceCheck CheckSequence(const unsigned char* p, size_t avail) {
  const unsigned char b = p[0];
  if (b < 0x80) return {1, true, false};
  size_t need;
  if (b >= 0xC2 && b <= 0xDF) {
    need = 2;
  } else if (b >= 0xE0 && b <= 0xEF) {
    need = 3;
  } else if (b >= 0xF0 && b <= 0xF4) {
    need = 4;
  } else {
    return {1, false, false};  // C0, C1, F5..FF, or a stray continuation.
  }
  unsigned char lo, hi;
  SecondByteRange(b, &lo, &hi);
  for (size_t k = 1; k < need; ++k) {
    if (k >= avail) return {k, false, true};
    const unsigned char c = p[k];
    if (c < lo || c > hi) return {k, false, false};
    lo = 0x80;
    hi = 0xBF;
  }
  return {need, true, false};
}

// Length of the leading run of ASCII bytes, eight at a time.
size_t AsciiPrefix(const unsigned char* p, size_t n) {
  size_t i = 0;
  while (i + 8 <= n) {
    uint64_t word;
    std::memcpy(&word, p + i, 8);
    if (word & 0x8080808080808080ull) break;
    i += 8;
  }
  while (i < n && p[i] < 0x80) ++i;
  return i;
}

}  // namespace

size_t ValidUtf8Prefix(std::string_view bytes) {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  const size_t n = bytes.size();
  size_t i = 0;
  while (i < n) {
    i += AsciiPrefix(p + i, n - i);
    if (i >= n) break;
    const SequenceCheck s = CheckSequence(p + i, n - i);
    if (!s.valid) return i;
    i += s.length;
  }
  return n;
}

size_t AppendRepairedUtf8(std::string_view bytes, bool final,
                          std::string* out) {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  const size_t n = bytes.size();
  size_t i = 0;
  while (i < n) {
    const size_t good = ValidUtf8Prefix(bytes.substr(i));
    out->append(bytes.substr(i, good));
    i += good;
    if (i >= n) break;
    const SequenceCheck s = CheckSequence(p + i, n - i);
    if (s.truncated && !final) return i;  // More bytes may complete it.
    out->append(kReplacementUtf8);
    i += s.length;
  }
  return n;
}

}  // namespace ctxkit::text
