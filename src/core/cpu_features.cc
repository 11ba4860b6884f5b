#include "core/cpu_features.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#endif

namespace ctxkit::core {
namespace {

bool DetectAvx2() {
#if defined(__x86_64__) && defined(__GNUC__)
  if (__get_cpuid_max(0, nullptr) < 7) return false;
  unsigned a = 0, b = 0, c = 0, d = 0;
  __cpuid(1, a, b, c, d);
  if ((c & bit_OSXSAVE) == 0 || (c & bit_AVX) == 0) return false;
  // XCR0 bits 1 and 2: the OS saves the XMM and YMM registers.
  unsigned lo = 0, hi = 0;
  __asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  if ((lo & 6) != 6) return false;
  __cpuid_count(7, 0, a, b, c, d);
  return (b & bit_AVX2) != 0;
#else
  return false;
#endif
}

}  // namespace

bool CpuHasAvx2() {
  static const bool has = DetectAvx2();
  return has;
}

}  // namespace ctxkit::core
