// tests/gpu_required.h: what a [cuda] test does when no usable CUDA device exists. With
// ZKPIPE_REQUIRE_GPU=1 in the environment (the GPU check, scripts/gpu-check-run, sets it) the
// test FAILS, naming why: a GPU host whose device broke must not pass. Otherwise it warns and
// passes, as on machines without a GPU (CPU-only CTest runs exclude [cuda] anyway).
// Thread-safety: call from the test's own thread (Catch2 assertions).
#pragma once

#include <cstdlib>
#include <string>
#include <string_view>

#include <catch2/catch.hpp>

namespace zkpipe::testing {

// True when ZKPIPE_REQUIRE_GPU is "1".
inline bool gpu_required() {
  const char* v = std::getenv("ZKPIPE_REQUIRE_GPU");
  return v != nullptr && std::string_view(v) == "1";
}

// In a [cuda] test: `usable` says whether a device can run it, `why` what was found instead.
// Returns `usable`; when false, FAILs the test under ZKPIPE_REQUIRE_GPU=1 (it does not return
// then), else warns. Usage: if (!zkpipe::testing::gpu_usable(have_device(), reason)) return;
inline bool gpu_usable(bool usable, const std::string& why) {
  if (usable) return true;
  if (gpu_required()) FAIL("ZKPIPE_REQUIRE_GPU=1 but no usable CUDA device: " << why);
  WARN("no usable CUDA device, test skipped (ZKPIPE_REQUIRE_GPU=1 fails it): " << why);
  return false;
}

}  // namespace zkpipe::testing
