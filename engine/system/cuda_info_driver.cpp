// engine/system/cuda_info_driver.cpp: read_cuda_info() through the CUDA driver API, loaded at run
// time (dlopen of libcuda.so.1, the library the NVIDIA driver installs): driver version, and per
// device its name, UUID, memory, compute capability, PCI bus id, host-mapping support and
// current PCIe link (from sysfs). Nothing here links CUDA: programs and the engine run on
// machines without it, and the compute plugins bring their own CUDA runtime.
// It queries properties only and creates no context, so it costs no device memory.
// Thread-safety: the driver calls used are thread-safe; the library is opened once
// (never closed) under a function-local static.
#include <dlfcn.h>

#include <string>

#include "system_parse.h"
#include "zkpipe/system.h"

namespace zkpipe {
namespace {

// The few driver API entry points used, with the types of cuda.h (a stable C ABI).
using CUresult = int;
using CUdevice = int;
struct CUuuid {
  unsigned char bytes[16];
};
constexpr int kAttrCanMapHostMemory = 19;  // CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY
constexpr int kAttrCcMajor = 75;           // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
constexpr int kAttrCcMinor = 76;           // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR

struct Driver {
  std::string error;  // why it could not be loaded
  CUresult (*init)(unsigned) = nullptr;
  CUresult (*driver_version)(int*) = nullptr;
  CUresult (*device_count)(int*) = nullptr;
  CUresult (*device_get)(CUdevice*, int) = nullptr;
  CUresult (*device_name)(char*, int, CUdevice) = nullptr;
  CUresult (*device_memory)(size_t*, CUdevice) = nullptr;
  CUresult (*device_uuid)(CUuuid*, CUdevice) = nullptr;
  CUresult (*device_attribute)(int*, int, CUdevice) = nullptr;
  CUresult (*device_pci_bus_id)(char*, int, CUdevice) = nullptr;
  CUresult (*error_name)(CUresult, const char**) = nullptr;
  CUresult (*error_string)(CUresult, const char**) = nullptr;
};

template <typename F>
bool bind(void* lib, const char* symbol, F*& out, std::string& error) {
  out = reinterpret_cast<F*>(dlsym(lib, symbol));
  if (out == nullptr && error.empty()) error = std::string("libcuda.so.1 has no ") + symbol;
  return out != nullptr;
}

const Driver& driver() {
  static const Driver d = [] {
    Driver r;
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) {
      const char* e = dlerror();
      r.error = std::string("the NVIDIA driver's libcuda.so.1 cannot be loaded (") +
                (e != nullptr ? e : "unknown error") + "): no NVIDIA driver on this machine";
      return r;
    }
    bind(lib, "cuInit", r.init, r.error);
    bind(lib, "cuDriverGetVersion", r.driver_version, r.error);
    bind(lib, "cuDeviceGetCount", r.device_count, r.error);
    bind(lib, "cuDeviceGet", r.device_get, r.error);
    bind(lib, "cuDeviceGetName", r.device_name, r.error);
    bind(lib, "cuDeviceTotalMem_v2", r.device_memory, r.error);
    bind(lib, "cuDeviceGetUuid", r.device_uuid, r.error);
    bind(lib, "cuDeviceGetAttribute", r.device_attribute, r.error);
    bind(lib, "cuDeviceGetPCIBusId", r.device_pci_bus_id, r.error);
    bind(lib, "cuGetErrorName", r.error_name, r.error);
    bind(lib, "cuGetErrorString", r.error_string, r.error);
    return r;
  }();
  return d;
}

// "no CUDA-capable device is detected (CUDA_ERROR_NO_DEVICE)"
std::string error_text(const Driver& d, CUresult rc) {
  const char* name = nullptr;
  const char* text = nullptr;
  d.error_name(rc, &name);
  d.error_string(rc, &text);
  return std::string(text != nullptr ? text : "unknown CUDA error") + " (" +
         (name != nullptr ? name : "CUresult " + std::to_string(rc)) + ")";
}

}  // namespace

CudaInfo read_cuda_info() {
  CudaInfo info;
  try {
    const Driver& d = driver();
    if (!d.error.empty()) {
      info.status = unavailable("unavailable: " + d.error);
      return info;
    }
    info.driver_found = true;
    if (d.driver_version(&info.driver_version) != 0) info.driver_version = 0;
    if (CUresult rc = d.init(0); rc != 0) {
      info.status = unavailable("unavailable: cuInit: " + error_text(d, rc));
      return info;
    }
    int count = 0;
    if (CUresult rc = d.device_count(&count); rc != 0) {
      info.status = unavailable("unavailable: " + error_text(d, rc));
      return info;
    }
    if (count == 0) {
      info.status = unavailable("unavailable: the CUDA driver reports no device");
      return info;
    }
    for (int i = 0; i < count; ++i) {
      CUdevice dev = 0;
      char name[256] = {};
      size_t bytes = 0;
      CUuuid uuid{};
      CudaDevice out;
      CUresult rc = d.device_get(&dev, i);
      if (rc == 0) rc = d.device_name(name, sizeof name - 1, dev);
      if (rc == 0) rc = d.device_memory(&bytes, dev);
      if (rc == 0) rc = d.device_uuid(&uuid, dev);
      if (rc == 0) rc = d.device_attribute(&out.cc_major, kAttrCcMajor, dev);
      if (rc == 0) rc = d.device_attribute(&out.cc_minor, kAttrCcMinor, dev);
      int can_map = 0;
      if (rc == 0) rc = d.device_attribute(&can_map, kAttrCanMapHostMemory, dev);
      if (rc != 0) {
        if (info.status.ok()) {
          info.status =
              unavailable("unavailable: device " + std::to_string(i) + ": " + error_text(d, rc));
        }
        continue;
      }
      out.index = i;
      out.name = name;
      out.uuid = system_detail::format_gpu_uuid(uuid.bytes);
      out.total_bytes = bytes;
      out.can_map_host_memory = can_map != 0;
      char bus_id[32] = {};
      if (d.device_pci_bus_id(bus_id, sizeof bus_id, dev) == 0) {
        out.pci_bus_id = system_detail::normalize_pci_bus_id(bus_id);
        system_detail::PcieLink link = system_detail::read_pcie_link("", out.pci_bus_id);
        out.pcie_gen = link.generation;
        out.pcie_width = link.width;
        out.pcie_max_gen = link.max_generation;
        out.pcie_max_width = link.max_width;
      }
      info.devices.push_back(std::move(out));
    }
  } catch (...) {
    // Only an allocation failure can get here; report what was read so far.
    if (info.status.ok()) info.status = internal_error("read_cuda_info: out of host memory");
  }
  return info;
}

std::string cuda_version_text(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

Status check_cuda_driver(int driver_version, int runtime_version) {
  if (driver_version <= 0) {
    return unavailable("no NVIDIA driver: code built with CUDA " +
                       cuda_version_text(runtime_version) + " cannot run here");
  }
  const int major = runtime_version / 1000;
  if (driver_version >= major * 1000) return ok_status();
  // The first driver branch of each CUDA major version (NVIDIA's release notes).
  const char* branch = major >= 13 ? "R580" : major == 12 ? "R525" : major == 11 ? "R450" : "";
  return failed_precondition("driver too old for CUDA " + std::to_string(major) + ": needs " +
                             (*branch != 0 ? std::string(branch) + "+" : "a newer driver") +
                             " (this driver supports CUDA " + cuda_version_text(driver_version) +
                             ")");
}

}  // namespace zkpipe
