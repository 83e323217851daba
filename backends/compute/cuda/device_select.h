// backends/compute/cuda/device_select.h: which CUDA devices a config's `compute.devices` names.
// Entries are CUDA indices ("0") or UUIDs as nvidia-smi prints them ("GPU-8a1f0c3e-..."; a
// unique prefix of at least 8 hex digits is enough); no entry means every device. Plain C++ over
// the device list of zkpipe/sdk/cuda_info.h (read_cuda_info), so it is tested without a GPU.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "zkpipe/sdk/cuda_info.h"
#include "zkpipe/sdk/status.h"

namespace zkpipe::cuda_backend {

// The chosen devices in the order listed (all devices in index order when `wanted` is empty).
// Errors (INVALID_ARGUMENT, naming the entry and what the machine has): an index out of range,
// an unknown or ambiguous UUID, a device named twice (also through index and UUID); no devices
// at all is UNAVAILABLE.
Result<std::vector<CudaDevice>> resolve_devices(const std::vector<std::string>& wanted,
                                                const std::vector<CudaDevice>& have);

// "0: NVIDIA H200 GPU-8a1f... (sm_90, 139.8 GiB)"
std::string describe_device(const CudaDevice& d);

}  // namespace zkpipe::cuda_backend
