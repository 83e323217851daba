// zkpipe/pipeline/compute.h: what computes the two halves of a Groth16 proof for the pipeline. A
// backend has devices; each compute worker is bound to one device and calls prove_start there,
// a finalizer calls prove_finish. Every backend is a compute plugin (zkpipe/sdk/abi/compute.h:
// `cpu`, `cuda`, or one built out of tree) behind PluginCompute; prove_finish (the G2 MSM and
// the assembly) runs in the engine on the CPU. Tests wrap a backend to inject faults
// (tests/pipeline).
// Thread-safety: prove_start and prove_finish may run concurrently, on any devices.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "zkpipe/config.h"
#include "zkpipe/groth16/prover.h"
#include "zkpipe/plugin.h"
#include "zkpipe/sdk/status.h"

namespace zkpipe::pipeline {

// What prove_start measured, beyond groth16::ProverTimings.
struct StartStats {
  uint64_t h2d_bytes = 0;  // host-to-device bytes (0 on the CPU; mapped: read in place)
  uint64_t h2d_ns = 0;
  std::string h2d_path;      // "pageable", "pinned" or "mapped" (empty on the CPU)
  uint64_t bases_bytes = 0;  // params bases uploaded by this call (first use, or streamed)
};

// One partition for prove_start: a, b, c back to back in one buffer of the memory backend
// (prover.b == prover.a + n, prover.c == prover.b + n), with that buffer's properties.
struct StartInput {
  const groth16::ProvingKey& pk;
  groth16::ProverInput prover;
  uint32_t abc_flags = 0;      // ZKP_BUFFER_* of the a/b/c buffer
  void* abc_device = nullptr;  // its device pointer when DEVICE_MAPPED
};

// A device's memory now, as its backend reports it (zeros: the backend has no device memory).
struct DeviceMemoryStatus {
  uint64_t total_bytes = 0;
  uint64_t used_bytes = 0;    // held by the backend (bases, buffers, scratch, tables)
  uint64_t free_bytes = 0;    // free on the device (every process)
  uint64_t budget_bytes = 0;  // compute.device_budget; 0: none
};

class ComputeBackend {
 public:
  virtual ~ComputeBackend() = default;
  virtual std::string name() const = 0;
  virtual size_t device_count() const = 0;
  virtual std::string device_name(size_t device) const = 0;  // "cpu0", "cuda0", ...
  // OK while the device can take work; an error (e.g. quarantined after a sticky CUDA error)
  // makes the engine stop its workers and say why.
  virtual Status device_status(size_t) const { return ok_status(); }
  virtual DeviceMemoryStatus device_memory(size_t) const { return {}; }

  // a/b/c are not read after this returns; the pending proof needs the key alive.
  virtual Result<groth16::PendingProof> prove_start(size_t device, const StartInput& input,
                                                    StartStats& stats) = 0;
  virtual Result<groth16::Proof> prove_finish(groth16::PendingProof&& pending,
                                              const groth16::ProverRandomness& randomness) = 0;
};

// The compute plugin config.backend names (loaded through `registry`, kind compute), created
// with the config's devices, workers_per_device and threads. `memory_flags`: the ZKP_BUFFER_*
// flags of the memory backend's pool (its buffer_flags). A plugin that is unavailable here is
// UNAVAILABLE naming compute.backend and the plugin's reason; there is no fallback.
Result<std::unique_ptr<ComputeBackend>> open_compute_backend(const ComputeConfig& config,
                                                             PluginRegistry& registry,
                                                             uint32_t memory_flags);

}  // namespace zkpipe::pipeline
