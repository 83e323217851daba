// backends/memory/common/cuda_check.h: the "unavailable: ..." check the CUDA memory plugins'
// init runs (cuda_host_memory_available), on top of zkpipe/sdk/cuda_check.h (ZKP_CUDA_OK).
// Include <cuda_runtime_api.h> before zkpipe/sdk/sdk.h so the build tag names the CUDA runtime.
// Thread-safety: stateless; the CUDA runtime calls it makes are thread-safe.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

#include "zkpipe/sdk/cuda_check.h"
#include "zkpipe/sdk/status.h"

namespace zkpipe::memory {

using cuda::error_text;

// OK when the CUDA runtime sees at least one device (and, with require_map_host, every device
// can map host memory); else UNAVAILABLE "unavailable: <reason>".
inline Status cuda_host_memory_available(bool require_map_host) {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) return unavailable("unavailable: " + error_text(err));
  if (count == 0) return unavailable("unavailable: no CUDA device");
  if (!require_map_host) return ok_status();
  for (int device = 0; device < count; ++device) {
    int can_map = 0;
    const cudaError_t attr_err =
        cudaDeviceGetAttribute(&can_map, cudaDevAttrCanMapHostMemory, device);
    if (attr_err != cudaSuccess) {
      return unavailable(
          "unavailable: CUDA device " + std::to_string(device) +
          ": cudaDeviceGetAttribute(cudaDevAttrCanMapHostMemory) failed: " + error_text(attr_err));
    }
    if (can_map == 0) {
      cudaDeviceProp prop{};
      const bool named = cudaGetDeviceProperties(&prop, device) == cudaSuccess;
      return unavailable("unavailable: CUDA device " + std::to_string(device) +
                         (named ? " (" + std::string(prop.name) + ")" : std::string()) +
                         " cannot map host memory (cudaDevAttrCanMapHostMemory is 0)");
    }
  }
  return ok_status();
}

}  // namespace zkpipe::memory
