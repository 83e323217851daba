// tests/feature_required.h: what a test does when this machine or build lacks what it needs
// (AVX-512 IFMA, xmllint, the CUDA build). It FAILS, naming the feature and the variable,
// unless ZKPIPE_ALLOW_MISSING_<NAME>=1 says the lack is known (then it warns and the caller
// skips that part): a missing feature never passes by accident. [cuda] tests use
// gpu_required.h instead. Thread-safety: call from the test's own thread (Catch2 assertions).
#pragma once

#include <cstdlib>
#include <string>
#include <string_view>

#include <catch2/catch.hpp>

namespace zkpipe::testing {

// The variable that allows `name` to be missing: "ZKPIPE_ALLOW_MISSING_IFMA".
inline std::string allow_missing_variable(std::string_view name) {
  return "ZKPIPE_ALLOW_MISSING_" + std::string(name);
}

// Returns `present`. When false: FAILs (and does not return) unless the variable of `name` is
// "1", then warns. `what` says what is missing. Usage:
//   if (!feature_present(cpu_has_ifma(), "IFMA", "AVX-512 IFMA")) return;
inline bool feature_present(bool present, std::string_view name, const std::string& what) {
  if (present) return true;
  const std::string var = allow_missing_variable(name);
  const char* v = std::getenv(var.c_str());
  if (v == nullptr || std::string_view(v) != "1") {
    FAIL(what << " is missing here; set " << var << "=1 where that is known and expected");
  }
  WARN(what << " is missing (" << var << "=1): not tested");
  return false;
}

// Whether this build compiled the CUDA targets (tests/CMakeLists.txt defines ZKPIPE_HAVE_CUDA).
inline constexpr bool kCudaBuilt =
#if defined(ZKPIPE_HAVE_CUDA)
    true;
#else
    false;
#endif

}  // namespace zkpipe::testing
