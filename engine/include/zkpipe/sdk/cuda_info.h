// zkpipe/sdk/cuda_info.h: the CUDA driver and its devices, read through the driver API loaded
// at run time (libcuda.so.1; nothing links CUDA), and whether that driver runs a given CUDA
// runtime. In the SDK (library zkpipe::cuda_info) because a CUDA backend plugin reads the same
// facts the engine reports (`compute.devices`, check-system).
// Thread-safety: the functions read the driver each call; safe from any thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "zkpipe/sdk/status.h"

namespace zkpipe {

struct CudaDevice {
  int index = 0;
  std::string name;
  std::string uuid;  // "GPU-xxxxxxxx-..."
  uint64_t total_bytes = 0;
  int cc_major = 0, cc_minor = 0;
  std::string pci_bus_id;  // "0000:17:00.0"
  int pcie_gen = 0;        // current link generation, 0 when unknown
  int pcie_width = 0;      // current link width, 0 when unknown
  int pcie_max_gen = 0;    // what the link can do: idle GPUs train down (an H200 may show Gen1)
  int pcie_max_width = 0;
  bool can_map_host_memory = false;
};

struct CudaInfo {
  bool driver_found = false;  // the NVIDIA driver's libcuda.so.1 was loaded
  Status status;              // UNAVAILABLE with the CUDA error string when no driver/device
  int driver_version = 0;     // e.g. 13000 (0 when no driver)
  std::vector<CudaDevice> devices;
};

// Through the CUDA driver API, loaded at run time (nothing links CUDA): works in every build,
// and says why when there is no driver or no device.
CudaInfo read_cuda_info();

// Whether a driver that supports CUDA `driver_version` (CudaInfo::driver_version, e.g. 12040;
// 0: no driver) runs code built with the CUDA runtime `runtime_version` (cudaRuntimeGetVersion,
// e.g. 13000): a runtime of major M needs a driver of CUDA M.0 or newer (minor-version
// compatibility), whose branch is R580 for 13, R525 for 12, R450 for 11. OK; FAILED_PRECONDITION
// "driver too old for CUDA 13: needs R580+ (this driver supports CUDA 12.4)"; UNAVAILABLE "no
// NVIDIA driver" for 0.
Status check_cuda_driver(int driver_version, int runtime_version);
// "13.0" for 13000.
std::string cuda_version_text(int version);

}  // namespace zkpipe
