// backends/compute/cuda/device.h: the CUDA runtime side of a device for the backend: device memory
// owned by RAII handles whose out-of-memory errors carry the sizes, and which errors are sticky
// (the context is lost: the device is quarantined, see backend.cpp), and the bytes the backend
// holds on each device (every DeviceMemory counts itself there while it lives).
// Thread-safety: is_sticky and device_bytes_held are thread-safe; a DeviceMemory is owned by one
// thread at a time.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>
#include <vector>

#include "zkpipe/sdk/status.h"

namespace zkpipe::cuda_backend {

// Errors after which the CUDA context of the device cannot be used again (illegal address,
// launch failure, ECC, ...): every later call on it fails until the process exits.
bool is_sticky(cudaError_t err);

class DeviceMemory {
 public:
  DeviceMemory() = default;
  // cudaMalloc on the current device; out of memory -> RESOURCE_EXHAUSTED "<device>: out of
  // device memory: <what> needs X (free Y of Z)".
  static Result<DeviceMemory> allocate(uint64_t bytes, const std::string& what,
                                       const std::string& device);
  DeviceMemory(DeviceMemory&& o) noexcept;
  DeviceMemory& operator=(DeviceMemory&& o) noexcept;
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;
  ~DeviceMemory();

  template <typename T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }
  uint64_t bytes() const { return bytes_; }

 private:
  void release();

  void* ptr_ = nullptr;
  uint64_t bytes_ = 0;
  int device_ = -1;  // where it was allocated (its bytes count there)
};

// Device memory every live DeviceMemory of this process holds on CUDA device `device` now: what
// the backend holds there (bases, a/b/c, scalars, MSM scratch, NTT tables).
uint64_t device_bytes_held(int device);

// Grows `m` to at least `bytes` (contents are not kept).
Status ensure_capacity(DeviceMemory& m, uint64_t bytes, const std::string& what,
                       const std::string& device);

}  // namespace zkpipe::cuda_backend
