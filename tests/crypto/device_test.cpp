// The BLS12-381 arithmetic on the GPU (zkpipe/crypto/device_check.h): with CUDA built in, the
// device self-test matches the host bit for bit on a GPU ([cuda], run by the GPU check script;
// without a device it fails under ZKPIPE_REQUIRE_GPU=1, tests/gpu_required.h) and reports
// UNAVAILABLE, not a crash, on a machine without a driver or device. The layout
// checks are static_asserts in engine/crypto/cuda/device_check.cu (a build without them fails).
#include <catch2/catch.hpp>

#include "gpu_required.h"
#include "zkpipe/system.h"

#if defined(ZKPIPE_HAVE_CUDA)
#include "zkpipe/crypto/device_check.h"

using zkpipe::Code;
using zkpipe::read_cuda_info;

namespace {
bool have_cuda_device() {
  const auto info = read_cuda_info();
  return info.status.ok() && !info.devices.empty();
}
}  // namespace

TEST_CASE("Crypto device: without a GPU the self-test says unavailable", "[crypto]") {
  if (have_cuda_device()) return;  // the [cuda] test below runs instead
  const zkpipe::Status s = zkpipe::crypto::crypto_device_self_test(0, 64);
  CHECK(s.code() == Code::kUnavailable);
  CHECK_FALSE(s.message().empty());
}

TEST_CASE("Crypto device: products and point additions match the host on the GPU",
          "[crypto][cuda]") {
  if (!zkpipe::testing::gpu_usable(have_cuda_device(), read_cuda_info().status.to_string())) {
    return;
  }
  const zkpipe::Status s = zkpipe::crypto::crypto_device_self_test(0, 1 << 14);
  INFO(s.to_string());
  CHECK(s.ok());
}
#endif
