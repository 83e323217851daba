// The ZKPIPE_CPU_KERNELS switch (zkpipe/crypto/cpu_kernels.h).
#include "zkpipe/crypto/cpu_kernels.h"

#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>

namespace zkpipe::crypto {
namespace {

// The value, or none for a bad one (cpu_kernels_error() words its message).
std::optional<CpuKernels> parse(const char* v) {
  if (v == nullptr || *v == '\0' || std::string(v) == "auto") return CpuKernels::kAuto;
  if (std::string(v) == "scalar") return CpuKernels::kScalar;
  return std::nullopt;
}

// ZKPIPE_CPU_KERNELS, read once.
const std::optional<CpuKernels>& parsed() {
  static const std::optional<CpuKernels> value = parse(std::getenv("ZKPIPE_CPU_KERNELS"));
  return value;
}

}  // namespace

std::optional<std::string> cpu_kernels_error() {
  if (parsed()) return std::nullopt;
  const char* v = std::getenv("ZKPIPE_CPU_KERNELS");
  return "ZKPIPE_CPU_KERNELS='" + std::string(v ? v : "") +
         "': expected `auto` (the IFMA kernels where the CPU has them) or `scalar` (the portable "
         "path everywhere)";
}

CpuKernels cpu_kernels() {
  if (!parsed()) throw std::invalid_argument(*cpu_kernels_error());
  return *parsed();
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
