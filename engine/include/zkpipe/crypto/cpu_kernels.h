// zkpipe/crypto/cpu_kernels.h: which CPU kernels the MSM and NTT run. The AVX-512 IFMA kernels
// run where the CPU has AVX-512 F and IFMA, unless the environment variable ZKPIPE_CPU_KERNELS
// is `scalar`: then the portable (ADX/BMI2 scalar) path runs everywhere, so one machine can
// measure both paths side by side (docs/performance.md). Read once per process.
// Thread-safety: the first call reads the environment under a static initializer; later calls
// return the cached value.
#pragma once

#include <optional>
#include <string>

namespace zkpipe::crypto {

enum class CpuKernels { kAuto, kScalar };

// ZKPIPE_CPU_KERNELS: unset, empty or `auto` -> kAuto; `scalar` -> kScalar. Any other value
// throws std::invalid_argument naming the variable, the value and the accepted ones (every
// call does: a misspelt switch never falls back silently).
CpuKernels cpu_kernels();

// The same check without the throw, for programs to refuse a bad value at start: the message
// cpu_kernels() would throw, or none when the value is good.
std::optional<std::string> cpu_kernels_error();

// Whether the CPU itself has AVX-512 F and IFMA (whatever ZKPIPE_CPU_KERNELS says).
bool cpu_has_ifma();

// Whether the IFMA kernels run: cpu_has_ifma() and cpu_kernels() == kAuto.
bool cpu_ifma_active();

}  // namespace zkpipe::crypto
