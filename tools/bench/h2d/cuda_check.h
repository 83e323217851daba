// tools/bench/h2d/cuda_check.h: RAII owners for a CUDA stream, an event and a device buffer,
// for zkpipe-bench-h2d, checked with ZKP_CUDA_OK from zkpipe/sdk/cuda_check.h. Only for builds with
// CUDA. Thread-safety: the wrappers are move-only values owned by one thread; CUDA calls are safe.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>
#include <utility>

#include "zkpipe/sdk/cuda_check.h"
#include "zkpipe/sdk/status.h"

namespace zkpipe::tool {

class CudaStream {
 public:
  CudaStream() = default;
  static Result<CudaStream> create() {
    CudaStream s;
    ZKP_CUDA_OK(cudaStreamCreateWithFlags(&s.stream_, cudaStreamNonBlocking));
    return s;
  }
  CudaStream(CudaStream&& o) noexcept : stream_(std::exchange(o.stream_, nullptr)) {}
  CudaStream& operator=(CudaStream&& o) noexcept {
    std::swap(stream_, o.stream_);
    return *this;
  }
  ~CudaStream() {
    if (stream_ != nullptr) (void)cudaStreamDestroy(stream_);
  }
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

class CudaEvent {
 public:
  CudaEvent() = default;
  static Result<CudaEvent> create() {
    CudaEvent e;
    ZKP_CUDA_OK(cudaEventCreate(&e.event_));
    return e;
  }
  CudaEvent(CudaEvent&& o) noexcept : event_(std::exchange(o.event_, nullptr)) {}
  CudaEvent& operator=(CudaEvent&& o) noexcept {
    std::swap(event_, o.event_);
    return *this;
  }
  ~CudaEvent() {
    if (event_ != nullptr) (void)cudaEventDestroy(event_);
  }
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  // RESOURCE_EXHAUSTED when the device has no room.
  static Result<DeviceBuffer> allocate(uint64_t bytes) {
    DeviceBuffer b;
    ZKP_CUDA_OK(cudaMalloc(&b.ptr_, bytes));
    b.bytes_ = bytes;
    return b;
  }
  DeviceBuffer(DeviceBuffer&& o) noexcept
      : ptr_(std::exchange(o.ptr_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(bytes_, o.bytes_);
    return *this;
  }
  ~DeviceBuffer() {
    if (ptr_ != nullptr) (void)cudaFree(ptr_);
  }
  void* get() const { return ptr_; }
  uint64_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  uint64_t bytes_ = 0;
};

}  // namespace zkpipe::tool
