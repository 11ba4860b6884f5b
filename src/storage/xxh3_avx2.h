// XXH3-64 compiled for AVX2, for the blob chunk checksums
// (storage/blob_checksums.h). The build targets baseline x86-64 (SSE2),
// where XXH3 hashes about 10 GB/s on this project's machines; this copy,
// in a file of its own compiled with -mavx2, hashes about 24 GB/s. Same
// function, same values: only the instructions differ.

#ifndef CTXKIT_STORAGE_XXH3_AVX2_H_
#define CTXKIT_STORAGE_XXH3_AVX2_H_

#include <cstddef>
#include <cstdint>

namespace ctxkit::storage {

// True when this build has the AVX2 copy (x86-64 with GCC or Clang) and
// the CPU runs it.
bool Xxh3Avx2Usable();

// XXH3_64bits(data, size). Call only when Xxh3Avx2Usable().
uint64_t Xxh3Avx2(const void* data, size_t size);

}  // namespace ctxkit::storage

#endif  // CTXKIT_STORAGE_XXH3_AVX2_H_
