// zkpipe/sdk/cuda_check.h: the one CUDA error check of zkpipe, for the engine, plugins and tools:
// ZKP_CUDA_STATUS(expr) is the Status of one CUDA runtime call, naming the call as written,
// file:line and the CUDA error string and name; ZKP_CUDA_OK(expr) returns it when not OK.
// Header-only (part of the SDK); include <cuda_runtime_api.h> first.
// Thread-safety: stateless; the CUDA runtime calls it makes are thread-safe.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

#include "zkpipe/sdk/status.h"

#if defined(__FILE_NAME__)
#define ZKP_CUDA_FILE __FILE_NAME__
#else
#define ZKP_CUDA_FILE __FILE__
#endif

#define ZKP_CUDA_STATUS(expr) ::zkpipe::cuda::status((expr), #expr, ZKP_CUDA_FILE, __LINE__)
#define ZKP_CUDA_OK(expr) ZKP_RETURN_IF_ERROR(ZKP_CUDA_STATUS(expr))

namespace zkpipe::cuda {

// "out of memory (cudaErrorMemoryAllocation)"
inline std::string error_text(cudaError_t err) {
  return std::string(cudaGetErrorString(err)) + " (" + cudaGetErrorName(err) + ")";
}

// Out of memory -> RESOURCE_EXHAUSTED; no driver or device -> UNAVAILABLE; else INTERNAL.
inline Code error_code(cudaError_t err) {
  switch (err) {
    case cudaErrorMemoryAllocation:
      return Code::kResourceExhausted;
    case cudaErrorInsufficientDriver:
    case cudaErrorNoDevice:
    case cudaErrorInvalidDevice:
    case cudaErrorDevicesUnavailable:
    case cudaErrorSystemDriverMismatch:
    case cudaErrorSystemNotReady:
      return Code::kUnavailable;
    default:
      return Code::kInternal;
  }
}

// OK for cudaSuccess. A failure also clears the runtime's last (non-sticky) error, so a handled
// one (say, cudaMalloc out of memory) does not resurface at the next launch check.
inline Status status(cudaError_t err, const char* expr, const char* file, int line) {
  if (err == cudaSuccess) return ok_status();
  (void)cudaGetLastError();
  return Status(error_code(err), std::string(expr) + " failed at " + file + ":" +
                                     std::to_string(line) + ": " + error_text(err));
}

}  // namespace zkpipe::cuda
