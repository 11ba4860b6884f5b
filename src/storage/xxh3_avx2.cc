// Compiled with -mavx2 (CMakeLists.txt), and never merged into a unity
// source: xxhash.h picks its AVX2 kernel from __AVX2__. Everything it
// defines is static (XXH_INLINE_ALL), so no AVX2 code leaks into the rest
// of the program; only Xxh3Avx2 is reached, and only on CPUs with AVX2.

#include "storage/xxh3_avx2.h"

#include "core/cpu_features.h"

#if defined(__AVX2__)
#define XXH_INLINE_ALL
#include <xxhash.h>
#endif

namespace ctxkit::storage {

#if defined(__AVX2__)
// core::CpuHasAvx2, not __builtin_cpu_supports: that links libgcc's CPU
// probe, which every process would run at start.
bool Xxh3Avx2Usable() { return core::CpuHasAvx2(); }

uint64_t Xxh3Avx2(const void* data, size_t size) {
  return XXH3_64bits(data, size);
}
#else
bool Xxh3Avx2Usable() { return false; }

uint64_t Xxh3Avx2(const void*, size_t) { return 0; }
#endif

}  // namespace ctxkit::storage
