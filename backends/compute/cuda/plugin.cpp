// backends/compute/cuda/plugin.cpp: the `cuda` compute backend plugin: one DeviceProver per
// configured GPU, prove_start there (the engine runs prove_finish, the G2 MSM and the assembly,
// on the CPU). A sticky CUDA error (the context is lost) quarantines the device: its in-flight
// call fails, later calls on it fail at once with the first error, and device_info reports it,
// so the engine stops giving it work.
// Thread-safety: calls for different devices are independent; per device, up to
// workers_per_device prove_start calls run at once (DeviceProver's lanes).
#include <cuda_runtime_api.h>

#include <mutex>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "device.h"
#include "device_select.h"
#include "prover.h"
#include "zkpipe/sdk/compute_glue.h"
#include "zkpipe/sdk/cuda_check.h"
#include "zkpipe/sdk/cuda_info.h"
#include "zkpipe/sdk/sdk.h"
#include "zkpipe/sdk/units.h"

namespace zkpipe::cuda_backend {
namespace {

using compute_plugin::copy_text;
using compute_plugin::Devices;
using compute_plugin::StartCall;
using compute_plugin::Transfer;

constexpr const char* kName = "cuda";

uint32_t abi_path(TransferPath p) {
  switch (p) {
    case TransferPath::kPageable:
      return ZKP_H2D_PAGEABLE;
    case TransferPath::kPinned:
      return ZKP_H2D_PINNED;
    case TransferPath::kMapped:
      return ZKP_H2D_MAPPED;
  }
  return ZKP_H2D_PAGEABLE;
}

class CudaDevices final : public Devices {
 public:
  explicit CudaDevices(std::vector<std::unique_ptr<DeviceProver>> devices)
      : devices_(std::move(devices)), health_(devices_.size()) {}

  uint32_t count() const override { return static_cast<uint32_t>(devices_.size()); }

  void info(uint32_t device, zkp_compute_device& out) const override {
    const DeviceProver& d = *devices_[device];
    copy_text(out.name, d.label());
    copy_text(out.model, d.info().name);
    copy_text(out.uuid, d.info().uuid);
    out.memory_bytes = d.info().total_bytes;
    const DeviceMemoryUse m = d.memory();
    out.memory_used_bytes = m.held;
    out.memory_free_bytes = m.free;
    out.memory_budget_bytes = m.budget;
    const Status health = status(device);
    out.status = static_cast<zkp_status>(health.code());
    copy_text(out.status_message, health.message());
  }

  Result<groth16::PendingProof> prove_start(uint32_t device, const StartCall& call,
                                            Transfer& transfer) override {
    ZKP_RETURN_IF_ERROR(status(device));
    GpuStartStats g;
    Result<groth16::PendingProof> r = devices_[device]->prove_start(call.pk, call.input, g);
    transfer.path = abi_path(g.path);
    transfer.h2d_bytes = g.h2d_bytes;
    transfer.h2d_ns = g.h2d_ns;
    transfer.bases_bytes = g.bases_bytes;
    if (!r.ok()) check_sticky(device, r.status());
    return r;
  }

 private:
  Status status(uint32_t device) const {
    std::lock_guard lock(mu_);
    return health_[device];
  }

  // After a failure: is the device's context still usable? A sticky error shows at the next
  // synchronization; the device is then quarantined with the failure that revealed it.
  void check_sticky(uint32_t device, const Status& failure) {
    cudaSetDevice(devices_[device]->info().index);
    const cudaError_t err = cudaDeviceSynchronize();
    if (!is_sticky(err)) return;
    std::lock_guard lock(mu_);
    if (!health_[device].ok()) return;
    health_[device] = unavailable(fmt::format(
        "{} is quarantined after a sticky CUDA error ({}); restart the process to use it again; "
        "the call that hit it: {}",
        devices_[device]->label(), cuda::error_text(err), failure.message()));
    sdk::log(ZKP_LOG_ERROR, kName, health_[device].message());
  }

  std::vector<std::unique_ptr<DeviceProver>> devices_;
  mutable std::mutex mu_;
  std::vector<Status> health_;  // guarded by mu_
};

Status cuda_usable() {
  const CudaInfo cuda = read_cuda_info();
  if (!cuda.status.ok()) {
    return Status(cuda.status.code(), "cannot list CUDA devices: " + cuda.status.message());
  }
  return ok_status();
}

Result<std::unique_ptr<Devices>> create_devices(const zkp_compute_options& options) {
  const CudaInfo cuda = read_cuda_info();
  if (!cuda.status.ok()) {
    return Status(cuda.status.code(),
                  "compute.backend cuda: cannot list CUDA devices: " + cuda.status.message());
  }
  std::vector<std::string> wanted;
  for (uint32_t i = 0; i < options.device_count; ++i)
    wanted.emplace_back(options.devices[i] != nullptr ? options.devices[i] : "");
  ZKP_ASSIGN_OR_RETURN(const std::vector<CudaDevice> chosen, resolve_devices(wanted, cuda.devices));
  const bool mapped = (options.memory_flags & ZKP_BUFFER_DEVICE_MAPPED) != 0;
  std::vector<std::unique_ptr<DeviceProver>> devices;
  for (const CudaDevice& d : chosen) {
    DeviceOptions device_options;
    device_options.lanes = options.workers_per_device;
    device_options.mapped = mapped;
    device_options.budget_bytes = options.device_budget_bytes;
    if (options.device_budget_bytes > d.total_bytes) {
      return invalid_argument(fmt::format(
          "compute.device_budget {} is more than cuda{} ({}) has: {}",
          format_bytes(options.device_budget_bytes), d.index, d.name, format_bytes(d.total_bytes)));
    }
    ZKP_ASSIGN_OR_RETURN(auto prover, DeviceProver::open(d, device_options));
    sdk::log(ZKP_LOG_INFO, kName,
             fmt::format("cuda{} = {} ({} worker(s); a/b/c by {}; device memory: {})", d.index,
                         describe_device(d), options.workers_per_device,
                         mapped ? "mapped zero-copy reads where they are page-locked"
                                : "copies (pinned: chunked DMA; pageable: staged by the driver)",
                         options.device_budget_bytes > 0
                             ? "at most " + format_bytes(options.device_budget_bytes)
                             : std::string("free memory less a 2 GiB reserve")));
    devices.push_back(std::move(prover));
  }
  return std::unique_ptr<Devices>(std::make_unique<CudaDevices>(std::move(devices)));
}

zkp_status init(const zkp_host* host, zkp_error err) {
  return sdk::guard(err, [&] {
    sdk::set_host(host);
    return cuda_usable();
  });
}

zkp_status self_test(zkp_error err) {
  return sdk::guard(err, []() -> Status {
    zkp_compute_options options{};
    options.struct_size = sizeof options;
    options.workers_per_device = 1;
    ZKP_ASSIGN_OR_RETURN(std::unique_ptr<Devices> devices, create_devices(options));
    return compute_plugin::self_test_devices(*devices);
  });
}

using Entries = compute_plugin::ComputeEntries<create_devices>;

}  // namespace
}  // namespace zkpipe::cuda_backend

ZKP_EXPORT_PLUGIN(zkp_compute_backend) = {
    zkpipe::sdk::header<zkp_compute_backend>(ZKP_KIND_COMPUTE, zkpipe::cuda_backend::kName, "0.1.0",
                                             ZKP_BUILD_TAG, zkpipe::cuda_backend::init,
                                             zkpipe::cuda_backend::self_test),
    ZKP_COMPUTE_ENTRIES(zkpipe::cuda_backend::Entries),
};
