// backends/memory/common/cuda_check.h: CUDA error checking for the CUDA memory plugins:
// ZKP_CUDA_OK(expr) returns a Status naming the call, file:line and the CUDA error string, and
// cuda_host_memory_available() is the "unavailable: ..." check their init runs.
// Include <cuda_runtime_api.h> before zkpipe/sdk.h so the build tag names the CUDA runtime.
// Thread-safety: stateless; the CUDA runtime calls it makes are thread-safe.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

#include "zkpipe/status.h"

#if defined(__FILE_NAME__)
#define ZKP_CUDA_FILE __FILE_NAME__
#else
#define ZKP_CUDA_FILE __FILE__
#endif

// The Status of one CUDA runtime call (OK on cudaSuccess). Both macros stringify `expr`
// themselves so the message shows the call as written, not with its macros expanded.
#define ZKP_CUDA_STATUS(expr) ::zkpipe::memory::cuda_status((expr), #expr, ZKP_CUDA_FILE, __LINE__)
// Returns the Status from the enclosing function when the call fails.
#define ZKP_CUDA_OK(expr) \
  ZKP_RETURN_IF_ERROR(::zkpipe::memory::cuda_status((expr), #expr, ZKP_CUDA_FILE, __LINE__))

namespace zkpipe::memory {

// "out of memory (cudaErrorMemoryAllocation)"
inline std::string cuda_error_text(cudaError_t err) {
  return std::string(cudaGetErrorString(err)) + " (" + cudaGetErrorName(err) + ")";
}

inline Code cuda_error_code(cudaError_t err) {
  switch (err) {
    case cudaErrorMemoryAllocation:
      return Code::kResourceExhausted;
    case cudaErrorInsufficientDriver:
    case cudaErrorNoDevice:
    case cudaErrorDevicesUnavailable:
    case cudaErrorSystemDriverMismatch:
    case cudaErrorSystemNotReady:
      return Code::kUnavailable;
    default:
      return Code::kInternal;
  }
}

inline Status cuda_status(cudaError_t err, const char* expr, const char* file, int line) {
  if (err == cudaSuccess) return ok_status();
  return Status(cuda_error_code(err), std::string(expr) + " failed at " + file + ":" +
                                          std::to_string(line) + ": " + cuda_error_text(err));
}

// OK when the CUDA runtime sees at least one device (and, with require_map_host, every device
// can map host memory); else UNAVAILABLE "unavailable: <reason>".
inline Status cuda_host_memory_available(bool require_map_host) {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) return unavailable("unavailable: " + cuda_error_text(err));
  if (count == 0) return unavailable("unavailable: no CUDA device");
  if (!require_map_host) return ok_status();
  for (int device = 0; device < count; ++device) {
    int can_map = 0;
    const cudaError_t attr_err =
        cudaDeviceGetAttribute(&can_map, cudaDevAttrCanMapHostMemory, device);
    if (attr_err != cudaSuccess) {
      return unavailable("unavailable: CUDA device " + std::to_string(device) +
                         ": cudaDeviceGetAttribute(cudaDevAttrCanMapHostMemory) failed: " +
                         cuda_error_text(attr_err));
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
