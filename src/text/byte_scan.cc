#include "text/byte_scan.h"

#include <string.h>  // memmem (GNU).

#include <algorithm>
#include <cstring>

#include "core/cpu_features.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define CTXKIT_HAVE_AVX2_KERNELS 1
#endif

namespace ctxkit::text {
namespace {

#if defined(CTXKIT_HAVE_AVX2_KERNELS)
// The build targets baseline x86-64 (SSE2); these kernels are compiled for
// AVX2 and chosen at run time when the CPU has it (twice the bytes per
// instruction, which is most of a search's cost).
bool HasAvx2() { return core::CpuHasAvx2(); }

__attribute__((target("avx2"))) uint64_t CountNewlinesAvx2(const char* d,
                                                           size_t n,
                                                           size_t* done) {
  const __m256i nl = _mm256_set1_epi8('\n');
  const __m256i zero = _mm256_setzero_si256();
  uint64_t total = 0;
  size_t i = 0;
  while (i + 128 <= n) {
    // Each step adds at most 4 to a byte counter: fold before 255.
    __m256i acc = zero;
    for (int step = 0; step < 63 && i + 128 <= n; ++step, i += 128) {
      const __m256i* v = reinterpret_cast<const __m256i*>(d + i);
      acc = _mm256_sub_epi8(acc, _mm256_cmpeq_epi8(_mm256_loadu_si256(v), nl));
      acc = _mm256_sub_epi8(acc,
                            _mm256_cmpeq_epi8(_mm256_loadu_si256(v + 1), nl));
      acc = _mm256_sub_epi8(acc,
                            _mm256_cmpeq_epi8(_mm256_loadu_si256(v + 2), nl));
      acc = _mm256_sub_epi8(acc,
                            _mm256_cmpeq_epi8(_mm256_loadu_si256(v + 3), nl));
    }
    const __m256i sums = _mm256_sad_epu8(acc, zero);
    total += static_cast<uint64_t>(_mm256_extract_epi64(sums, 0)) +
             static_cast<uint64_t>(_mm256_extract_epi64(sums, 1)) +
             static_cast<uint64_t>(_mm256_extract_epi64(sums, 2)) +
             static_cast<uint64_t>(_mm256_extract_epi64(sums, 3));
  }
  *done = i;
  return total;
}

// Candidate starts p in [p, p + 64) steps while p + max_key + 64 <= n;
// returns the first confirmed match or npos, with *next the first start
// not examined. *false_hits counts rejected candidates.
__attribute__((target("avx2"))) size_t FindPairAvx2(
    const char* d, size_t n, size_t p, size_t last, std::string_view needle,
    size_t i1, size_t i2, size_t* next, size_t* false_hits, bool* bail) {
  const __m256i v1 = _mm256_set1_epi8(needle[i1]);
  const __m256i v2 = _mm256_set1_epi8(needle[i2]);
  const size_t max_key = std::max(i1, i2);
  const size_t from = p;
  while (p + max_key + 64 <= n) {
    const char* a = d + p + i1;
    const char* b = d + p + i2;
    const __m256i m0 = _mm256_and_si256(
        _mm256_cmpeq_epi8(
            _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a)), v1),
        _mm256_cmpeq_epi8(
            _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b)), v2));
    const __m256i m1 = _mm256_and_si256(
        _mm256_cmpeq_epi8(
            _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + 32)), v1),
        _mm256_cmpeq_epi8(
            _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + 32)), v2));
    if (!_mm256_testz_si256(_mm256_or_si256(m0, m1), _mm256_or_si256(m0, m1))) {
      uint64_t mask =
          static_cast<uint32_t>(_mm256_movemask_epi8(m0)) |
          static_cast<uint64_t>(static_cast<uint32_t>(_mm256_movemask_epi8(m1)))
              << 32;
      while (mask != 0) {
        const size_t c = p + static_cast<size_t>(__builtin_ctzll(mask));
        if (c > last) {
          *next = n;
          return std::string_view::npos;
        }
        if (std::memcmp(d + c, needle.data(), needle.size()) == 0) return c;
        mask &= mask - 1;
        if (++*false_hits > 64 + (c - from) / 64) {
          *next = c + 1;
          *bail = true;
          return std::string_view::npos;
        }
      }
    }
    p += 64;
  }
  *next = p;
  return std::string_view::npos;
}
#endif

}  // namespace

uint64_t CountNewlines(const char* data, size_t size) {
  uint64_t total = 0;
  size_t i = 0;
#if defined(CTXKIT_HAVE_AVX2_KERNELS)
  if (HasAvx2()) total = CountNewlinesAvx2(data, size, &i);
#endif
#if defined(__SSE2__)
  const __m128i nl = _mm_set1_epi8('\n');
  const __m128i zero = _mm_setzero_si128();
  while (i + 16 <= size) {
    // Per-byte counters (a compare yields -1 per hit, subtracted) would
    // overflow after 255 steps: fold them into 64-bit sums before that.
    __m128i acc = zero;
    for (int step = 0; step < 255 && i + 16 <= size; ++step, i += 16) {
      const __m128i v =
          _mm_loadu_si128(reinterpret_cast<const __m128i*>(data + i));
      acc = _mm_sub_epi8(acc, _mm_cmpeq_epi8(v, nl));
    }
    const __m128i sums = _mm_sad_epu8(acc, zero);
    total += static_cast<uint64_t>(_mm_cvtsi128_si64(sums)) +
             static_cast<uint64_t>(
                 _mm_cvtsi128_si64(_mm_unpackhi_epi64(sums, sums)));
  }
#endif
  for (; i < size; ++i) total += data[i] == '\n';
  return total;
}

uint8_t ByteFrequencyRank(uint8_t b) {
  // A hand-made model of text, source code and logs: whitespace and
  // lowercase letters (in English frequency order) are common, digits and
  // everyday punctuation next, then capitals, rare punctuation, non-ASCII,
  // and control bytes last. Exactness does not matter, only the order.
  static constexpr std::string_view kLower = "etaoinsrhldcumfpgwybvkxjqz";
  static constexpr std::string_view kCommonPunct = ".,_-/:=\"'()";
  if (b == ' ') return 255;
  if (b == '\n') return 250;
  if (b >= 'a' && b <= 'z') {
    return static_cast<uint8_t>(245 - 6 * kLower.find(static_cast<char>(b)));
  }
  if (b >= '0' && b <= '9') return b <= '2' ? 170 : 150;
  if (b >= 'A' && b <= 'Z') {
    const char lower = static_cast<char>(b - 'A' + 'a');
    return static_cast<uint8_t>(140 - 3 * kLower.find(lower));
  }
  if (b == '\t' || b == '\r') return 130;
  if (kCommonPunct.find(static_cast<char>(b)) != std::string_view::npos) {
    return 145;
  }
  if (b > ' ' && b < 0x7f) return 60;     // Other ASCII punctuation.
  if (b >= 0x80 && b <= 0xbf) return 50;  // UTF-8 continuation bytes.
  if (b >= 0xc2 && b <= 0xf4) return 45;  // UTF-8 lead bytes.
  if (b >= 0x80) return 5;                // Never in valid UTF-8.
  return 10;                              // Other control bytes.
}

LiteralFinder::LiteralFinder(std::string needle) : needle_(std::move(needle)) {
  const size_t m = needle_.size();
  if (m < 2) return;
  auto rank = [&](size_t i) {
    return ByteFrequencyRank(static_cast<uint8_t>(needle_[i]));
  };
  for (size_t i = 1; i < m; ++i) {
    if (rank(i) < rank(i1_)) i1_ = i;
  }
  // The second key: the rarest byte that differs from the first (two equal
  // bytes filter less), else any other offset.
  bool found = false;
  for (size_t i = 0; i < m; ++i) {
    if (i == i1_ || needle_[i] == needle_[i1_]) continue;
    if (!found || rank(i) < rank(i2_)) {
      i2_ = i;
      found = true;
    }
  }
  if (!found) i2_ = i1_ == 0 ? 1 : 0;
}

size_t LiteralFinder::Find(std::string_view haystack, size_t from) const {
  const size_t n = haystack.size();
  const size_t m = needle_.size();
  if (from > n || m > n - from) return std::string_view::npos;
  if (m == 0) return from;
  if (m == 1) {
    const void* hit = memchr(haystack.data() + from, needle_[0], n - from);
    return hit == nullptr ? std::string_view::npos
                          : static_cast<const char*>(hit) - haystack.data();
  }
  return FindPair(haystack.data(), n, from);
}

size_t LiteralFinder::FindPair(const char* d, size_t n, size_t from) const {
  const size_t m = needle_.size();
  const size_t last = n - m;  // The last possible start; from <= last.
  const char b1 = needle_[i1_];
  const char b2 = needle_[i2_];
  size_t p = from;
  // Candidates that memcmp rejected. When they are frequent the needle is
  // made of common bytes, and glibc's memmem does better.
  size_t false_hits = 0;
#if defined(CTXKIT_HAVE_AVX2_KERNELS)
  if (HasAvx2()) {
    bool bail = false;
    const size_t hit =
        FindPairAvx2(d, n, p, last, needle_, i1_, i2_, &p, &false_hits, &bail);
    if (hit != std::string_view::npos) return hit;
    if (bail) {
      const void* found = memmem(d + p, n - p, needle_.data(), m);
      return found == nullptr ? std::string_view::npos
                              : static_cast<const char*>(found) - d;
    }
    if (p > last) return std::string_view::npos;
  }
#endif
#if defined(__SSE2__)
  const size_t max_key = std::max(i1_, i2_);
  const __m128i v1 = _mm_set1_epi8(b1);
  const __m128i v2 = _mm_set1_epi8(b2);
  while (p + max_key + 16 <= n) {
    const __m128i a =
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(d + p + i1_));
    const __m128i b =
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(d + p + i2_));
    unsigned mask = static_cast<unsigned>(_mm_movemask_epi8(
        _mm_and_si128(_mm_cmpeq_epi8(a, v1), _mm_cmpeq_epi8(b, v2))));
    while (mask != 0) {
      const size_t c = p + static_cast<size_t>(__builtin_ctz(mask));
      if (c > last) return std::string_view::npos;
      if (std::memcmp(d + c, needle_.data(), m) == 0) return c;
      mask &= mask - 1;
      if (++false_hits > 64 + (c - from) / 64) {
        const void* hit = memmem(d + c + 1, n - c - 1, needle_.data(), m);
        return hit == nullptr ? std::string_view::npos
                              : static_cast<const char*>(hit) - d;
      }
    }
    p += 16;
  }
  // The tail: fewer than max_key + 16 bytes are left.
  for (; p <= last; ++p) {
    if (d[p + i1_] == b1 && d[p + i2_] == b2 &&
        std::memcmp(d + p, needle_.data(), m) == 0) {
      return p;
    }
  }
  return std::string_view::npos;
#else
  (void)b1;
  (void)b2;
  (void)false_hits;
  const void* hit = memmem(d + p, n - p, needle_.data(), m);
  return hit == nullptr ? std::string_view::npos
                        : static_cast<const char*>(hit) - d;
#endif
}

}  // namespace ctxkit::text
