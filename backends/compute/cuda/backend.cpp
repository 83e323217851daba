// backends/compute/cuda/backend.cpp: the `cuda` compute backend of the pipeline
// (pipeline::ComputeBackend): one DeviceProver per configured device, prove_start there,
// prove_finish (the G2 MSM and the assembly) on the CPU. A sticky CUDA error (the context is
// lost) quarantines the device: its in-flight call fails, later calls on it fail at once with
// the first error, and the engine stops giving it work (device_status).
// Thread-safety: calls for different devices are independent; per device, up to
// workers_per_device prove_start calls run at once.
#include <spdlog/spdlog.h>

#include <mutex>

#include "device.h"
#include "device_select.h"
#include "prover.h"
#include "zkpipe/cuda_check.h"
#include "zkpipe/pipeline/compute.h"

namespace zkpipe::cuda_backend {
namespace {

class CudaBackend final : public pipeline::ComputeBackend {
 public:
  CudaBackend(std::vector<std::unique_ptr<DeviceProver>> devices, unsigned threads)
      : devices_(std::move(devices)), health_(devices_.size()) {
    finish_.threads = threads;
  }
  std::string name() const override { return "cuda"; }
  size_t device_count() const override { return devices_.size(); }
  std::string device_name(size_t device) const override { return devices_[device]->label(); }

  Status device_status(size_t device) const override {
    std::lock_guard lock(mu_);
    return health_[device];
  }

  Result<groth16::PendingProof> prove_start(size_t device, const groth16::ProvingKey& pk,
                                            const groth16::ProverInput& input,
                                            pipeline::StartStats& stats) override {
    stats = {};
    ZKP_RETURN_IF_ERROR(device_status(device));
    DeviceProver& d = *devices_[device];
    GpuStartStats g;
    Result<groth16::PendingProof> r = d.prove_start(pk, input, g);
    stats.h2d_bytes = g.h2d_bytes;
    stats.h2d_ns = g.h2d_ns;
    stats.h2d_path = std::string(transfer_path_name(g.path));
    stats.bases_bytes = g.bases_bytes;
    if (!r.ok()) check_sticky(device, r.status());
    return r;
  }

  Result<groth16::Proof> prove_finish(groth16::PendingProof&& pending,
                                      const groth16::ProverRandomness& randomness) override {
    return groth16::prove_finish(std::move(pending), randomness, finish_);
  }

 private:
  // After a failure: is the device's context still usable? A sticky error shows at the next
  // synchronization; the device is then quarantined with the failure that revealed it.
  void check_sticky(size_t device, const Status& failure) {
    cudaSetDevice(devices_[device]->info().index);
    const cudaError_t err = cudaDeviceSynchronize();
    if (!is_sticky(err)) return;
    std::lock_guard lock(mu_);
    if (!health_[device].ok()) return;
    health_[device] = unavailable(fmt::format(
        "{} is quarantined after a sticky CUDA error ({}); restart the process to use it again; "
        "the call that hit it: {}",
        devices_[device]->label(), cuda::error_text(err), failure.message()));
    spdlog::error("{}", health_[device].message());
  }

  std::vector<std::unique_ptr<DeviceProver>> devices_;
  mutable std::mutex mu_;
  std::vector<Status> health_;  // guarded by mu_
  groth16::ProverOptions finish_;
};

}  // namespace
}  // namespace zkpipe::cuda_backend

namespace zkpipe::pipeline {

Result<std::unique_ptr<ComputeBackend>> make_cuda_backend(const ComputeConfig& config,
                                                          bool mapped_memory) {
  using namespace cuda_backend;
  const CudaInfo cuda = read_cuda_info();
  if (!cuda.status.ok()) {
    return Status(cuda.status.code(),
                  "compute.backend cuda: cannot list CUDA devices: " + cuda.status.message());
  }
  ZKP_ASSIGN_OR_RETURN(const std::vector<CudaDevice> chosen,
                       resolve_devices(config.devices, cuda.devices));
  std::vector<std::unique_ptr<DeviceProver>> devices;
  for (const CudaDevice& d : chosen) {
    DeviceOptions options;
    options.lanes = config.workers_per_device;
    options.mapped = mapped_memory;
    ZKP_ASSIGN_OR_RETURN(auto prover, DeviceProver::open(d, options));
    spdlog::info("compute: cuda{} = {} ({} worker(s); a/b/c by {})", d.index, describe_device(d),
                 config.workers_per_device,
                 mapped_memory ? "mapped zero-copy reads where they are page-locked"
                               : "copies (pinned: chunked DMA; pageable: staged by the driver)");
    devices.push_back(std::move(prover));
  }
  return std::unique_ptr<ComputeBackend>(
      std::make_unique<CudaBackend>(std::move(devices), config.threads));
}

}  // namespace zkpipe::pipeline
