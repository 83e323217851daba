// backends/compute/cuda/device.cpp: see device.h.
#include "device.h"

#include <fmt/format.h>

#include <array>
#include <atomic>
#include <utility>

#include "zkpipe/sdk/cuda_check.h"
#include "zkpipe/sdk/units.h"

namespace zkpipe::cuda_backend {

namespace {

// Bytes held per CUDA device index (a process sees at most a few dozen GPUs).
constexpr int kMaxDevices = 256;
std::array<std::atomic<uint64_t>, kMaxDevices> g_held{};

std::atomic<uint64_t>* meter(int device) {
  return device >= 0 && device < kMaxDevices ? &g_held[static_cast<size_t>(device)] : nullptr;
}

}  // namespace

bool is_sticky(cudaError_t err) {
  switch (err) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorAssert:
    case cudaErrorECCUncorrectable:
    case cudaErrorLaunchTimeout:
    case cudaErrorUnknown:
      return true;
    default:
      return false;
  }
}

Result<DeviceMemory> DeviceMemory::allocate(uint64_t bytes, const std::string& what,
                                            const std::string& device) {
  DeviceMemory m;
  if (bytes == 0) return m;
  const cudaError_t err = cudaMalloc(&m.ptr_, bytes);
  if (err == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();
    size_t free = 0, total = 0;
    (void)cudaMemGetInfo(&free, &total);
    return resource_exhausted(fmt::format("{}: out of device memory: {} needs {} (free {} of {})",
                                          device, what, format_bytes(bytes), format_bytes(free),
                                          format_bytes(total)));
  }
  ZKP_RETURN_IF_ERROR(
      cuda::status(err, "cudaMalloc", ZKP_CUDA_FILE, __LINE__)
          .with_context(fmt::format("{}: {} ({})", device, what, format_bytes(bytes))));
  m.bytes_ = bytes;
  if (cudaGetDevice(&m.device_) != cudaSuccess) m.device_ = -1;
  if (std::atomic<uint64_t>* held = meter(m.device_)) held->fetch_add(bytes);
  return m;
}

DeviceMemory::DeviceMemory(DeviceMemory&& o) noexcept
    : ptr_(std::exchange(o.ptr_, nullptr)),
      bytes_(std::exchange(o.bytes_, 0)),
      device_(std::exchange(o.device_, -1)) {}

DeviceMemory& DeviceMemory::operator=(DeviceMemory&& o) noexcept {
  if (this != &o) {
    release();
    ptr_ = std::exchange(o.ptr_, nullptr);
    bytes_ = std::exchange(o.bytes_, 0);
    device_ = std::exchange(o.device_, -1);
  }
  return *this;
}

DeviceMemory::~DeviceMemory() {
  release();
}

void DeviceMemory::release() {
  if (ptr_ == nullptr) return;
  cudaFree(ptr_);  // a destructor cannot report; the memory is gone either way
  if (std::atomic<uint64_t>* held = meter(device_)) held->fetch_sub(bytes_);
  ptr_ = nullptr;
  bytes_ = 0;
}

uint64_t device_bytes_held(int device) {
  const std::atomic<uint64_t>* held = meter(device);
  return held != nullptr ? held->load() : 0;
}

Status ensure_capacity(DeviceMemory& m, uint64_t bytes, const std::string& what,
                       const std::string& device) {
  if (m.bytes() >= bytes) return ok_status();
  m = DeviceMemory();  // free first: the old and the new need not both fit
  ZKP_ASSIGN_OR_RETURN(m, DeviceMemory::allocate(bytes, what, device));
  return ok_status();
}

}  // namespace zkpipe::cuda_backend
