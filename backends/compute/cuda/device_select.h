// backends/compute/cuda/device_select.h: which CUDA devices a config's `compute.devices` names.
// Entries are CUDA indices ("0") or UUIDs as nvidia-smi prints them ("GPU-8a1f0c3e-..."; a
// unique prefix of at least 8 hex digits is enough); no entry means every device. Plain C++ over
// a device list, so it is tested without a GPU.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "zkpipe/status.h"

namespace zkpipe::cuda_backend {

struct DeviceInfo {
  int index = 0;
  std::string name;  // "NVIDIA H200"
  std::string uuid;  // "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  uint64_t total_memory = 0;
};

// "GPU-" + the 16 bytes as 8-4-4-4-12 lower-case hex, as nvidia-smi prints them.
std::string format_uuid(const unsigned char (&bytes)[16]);

// The chosen devices in the order listed (all devices in index order when `wanted` is empty).
// Errors (INVALID_ARGUMENT, naming the entry and what the machine has): an index out of range,
// an unknown or ambiguous UUID, a device named twice (also through index and UUID); no devices
// at all is UNAVAILABLE.
Result<std::vector<DeviceInfo>> resolve_devices(const std::vector<std::string>& wanted,
                                                const std::vector<DeviceInfo>& have);

// "0: NVIDIA H200 GPU-8a1f... (sm_90, 139.8 GiB)"
std::string describe_device(const DeviceInfo& d);

}  // namespace zkpipe::cuda_backend
