// compute_cpu.cpp: the CPU compute backend (the reference prover of engine/crypto/groth16 behind
// the pipeline's ComputeBackend) and open_compute_backend.
// Thread-safety: stateless apart from the thread count; calls may run concurrently.
#include "zkpipe/pipeline/compute.h"

namespace zkpipe::pipeline {
namespace {

class CpuBackend final : public ComputeBackend {
 public:
  explicit CpuBackend(unsigned threads) { options_.threads = threads; }
  std::string name() const override { return "cpu"; }
  size_t device_count() const override { return 1; }
  std::string device_name(size_t device) const override { return "cpu" + std::to_string(device); }
  Result<groth16::PendingProof> prove_start(size_t, const groth16::ProvingKey& pk,
                                            const groth16::ProverInput& input,
                                            StartStats& stats) override {
    stats = {};
    return groth16::prove_start(pk, input, options_);
  }
  Result<groth16::Proof> prove_finish(groth16::PendingProof&& pending,
                                      const groth16::ProverRandomness& randomness) override {
    return groth16::prove_finish(std::move(pending), randomness, options_);
  }

 private:
  groth16::ProverOptions options_;
};

}  // namespace

std::unique_ptr<ComputeBackend> make_cpu_backend(unsigned threads) {
  return std::make_unique<CpuBackend>(threads);
}

Result<std::unique_ptr<ComputeBackend>> open_compute_backend(const ComputeConfig& config,
                                                             const std::string& memory_backend) {
  if (config.backend == "cpu") return make_cpu_backend(config.threads);
#if defined(ZKPIPE_HAVE_CUDA_BACKEND)
  if (config.backend == "cuda") return make_cuda_backend(config, memory_backend == "zero_copy");
  return invalid_argument("compute.backend: unknown backend '" + config.backend +
                          "' (this build has: cpu, cuda)");
#else
  (void)memory_backend;
  if (config.backend == "cuda") {
    return unavailable(
        "compute.backend: cuda: this build has no CUDA backend (built without nvcc; "
        "configure with -DZKPIPE_CUDA=ON on a machine with the CUDA toolkit)");
  }
  return invalid_argument("compute.backend: unknown backend '" + config.backend +
                          "' (this build has: cpu)");
#endif
}

}  // namespace zkpipe::pipeline
