// The ZKPIPE_CPU_KERNELS switch (zkpipe/crypto/cpu_kernels.h).
#include "zkpipe/crypto/cpu_kernels.h"

#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>

namespace zkpipe::crypto {
namespace {

// The parsed value, or none for a bad one (its message is rebuilt at each call).
std::optional<CpuKernels> parse(const char* v) {
  if (v == nullptr || *v == '\0' || std::string(v) == "auto") return CpuKernels::kAuto;
  if (std::string(v) == "scalar") return CpuKernels::kScalar;
  return std::nullopt;
}

}  // namespace

CpuKernels cpu_kernels() {
  static const std::optional<CpuKernels> value = parse(std::getenv("ZKPIPE_CPU_KERNELS"));
  if (!value) {
    const char* v = std::getenv("ZKPIPE_CPU_KERNELS");
    throw std::invalid_argument("ZKPIPE_CPU_KERNELS='" + std::string(v ? v : "") +
                                "': expected `auto` (the IFMA kernels where the CPU has them) "
                                "or `scalar` (the portable path everywhere)");
  }
  return *value;
}

bool cpu_has_ifma() {
  static const bool ok = [] {
    __builtin_cpu_init();  // may run in a static initializer, before libgcc's own
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512ifma");
  }();
  return ok;
}

bool cpu_ifma_active() {
  return cpu_has_ifma() && cpu_kernels() == CpuKernels::kAuto;
}

}  // namespace zkpipe::crypto
