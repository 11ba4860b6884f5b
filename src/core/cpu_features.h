// What the CPU offers beyond the build's baseline (x86-64, SSE2), asked on
// first use.
//
// Not __builtin_cpu_supports: that links libgcc's CPU probe, a constructor
// whose dozen CPUID instructions (10-25 us each in a virtual machine) every
// process would pay at start, whether it ever scans or hashes or not.
//
// Thread-safe.

#ifndef CTXKIT_CORE_CPU_FEATURES_H_
#define CTXKIT_CORE_CPU_FEATURES_H_

namespace ctxkit::core {

// AVX2, with the YMM registers saved by the OS.
bool CpuHasAvx2();

}  // namespace ctxkit::core

#endif  // CTXKIT_CORE_CPU_FEATURES_H_
