// engine/system/cuda_info_cuda.cpp: read_cuda_info() through the CUDA runtime (linked
// statically): driver and runtime versions, and per device its name, UUID, memory, compute
// capability, PCI bus id, host-mapping support and current PCIe link (from sysfs).
// It queries properties only and creates no context, so it costs no device memory.
// Thread-safety: the CUDA runtime calls used are thread-safe; no state is kept here.
#include <cuda_runtime_api.h>

#include <string>

#include "system_parse.h"
#include "zkpipe/cuda_check.h"
#include "zkpipe/system.h"

namespace zkpipe {
namespace {

// "unavailable: <what>: no CUDA-capable device is detected (cudaErrorNoDevice)".
Status cuda_unavailable(const std::string& what, cudaError_t err) {
  std::string message = "unavailable: ";
  if (!what.empty()) message += what + ": ";
  message += cuda::error_text(err);
  return unavailable(std::move(message));
}

}  // namespace

CudaInfo read_cuda_info() {
  CudaInfo info;
  info.built_with_cuda = true;
  try {
    // Both succeed without a driver: the driver version is then 0.
    if (cudaDriverGetVersion(&info.driver_version) != cudaSuccess) info.driver_version = 0;
    if (cudaRuntimeGetVersion(&info.runtime_version) != cudaSuccess) info.runtime_version = 0;

    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess) {
      info.status = cuda_unavailable("", err);
      return info;
    }
    if (count == 0) {
      info.status = unavailable("unavailable: the CUDA driver reports no device");
      return info;
    }

    for (int i = 0; i < count; ++i) {
      cudaDeviceProp prop{};
      err = cudaGetDeviceProperties(&prop, i);
      if (err != cudaSuccess) {
        if (info.status.ok())
          info.status =
              cuda_unavailable("device " + std::to_string(i) + ": cudaGetDeviceProperties", err);
        continue;
      }
      CudaDevice dev;
      dev.index = i;
      dev.name = prop.name;
      dev.uuid =
          system_detail::format_gpu_uuid(reinterpret_cast<const unsigned char*>(prop.uuid.bytes));
      dev.total_bytes = prop.totalGlobalMem;
      dev.cc_major = prop.major;
      dev.cc_minor = prop.minor;
      dev.can_map_host_memory = prop.canMapHostMemory != 0;
      char bus_id[32] = {};
      if (cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, i) == cudaSuccess) {
        dev.pci_bus_id = system_detail::normalize_pci_bus_id(bus_id);
        system_detail::PcieLink link = system_detail::read_pcie_link("", dev.pci_bus_id);
        dev.pcie_gen = link.generation;
        dev.pcie_width = link.width;
        dev.pcie_max_gen = link.max_generation;
        dev.pcie_max_width = link.max_width;
      }
      info.devices.push_back(std::move(dev));
    }
  } catch (...) {
    // Only an allocation failure can get here; report what was read so far.
    if (info.status.ok()) info.status = internal_error("read_cuda_info: out of host memory");
  }
  return info;
}

}  // namespace zkpipe
