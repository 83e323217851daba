// zkpipe/pipeline/compute.h: what computes the two halves of a Groth16 proof for the pipeline. A
// backend has devices; each compute worker is bound to one device and calls prove_start there,
// a finalizer calls prove_finish. `cpu` (the reference, one device) is built in; the CUDA backend
// implements the same interface. Tests wrap a backend to inject faults (tests/pipeline).
// Thread-safety: prove_start and prove_finish may run concurrently, on any devices.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "zkpipe/config.h"
#include "zkpipe/groth16/prover.h"
#include "zkpipe/status.h"

namespace zkpipe::pipeline {

// What prove_start measured, beyond groth16::ProverTimings.
struct StartStats {
  uint64_t h2d_bytes = 0;  // host-to-device bytes (0 on the CPU; mapped: read in place)
  uint64_t h2d_ns = 0;
  std::string h2d_path;      // "pageable", "pinned" or "mapped" (empty on the CPU)
  uint64_t bases_bytes = 0;  // params bases uploaded by this call (first use, or streamed)
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

  // a/b/c are not read after this returns; the pending proof needs the key alive.
  virtual Result<groth16::PendingProof> prove_start(size_t device, const groth16::ProvingKey& pk,
                                                    const groth16::ProverInput& input,
                                                    StartStats& stats) = 0;
  virtual Result<groth16::Proof> prove_finish(groth16::PendingProof&& pending,
                                              const groth16::ProverRandomness& randomness) = 0;
};

// The CPU reference: one device "cpu0"; `threads` per call (0: all hardware threads).
std::unique_ptr<ComputeBackend> make_cpu_backend(unsigned threads);

// The CUDA backend (builds with CUDA only): the devices of config.devices (all when empty), each
// with workers_per_device lanes. `mapped_memory`: the memory backend's buffers are mapped
// zero-copy memory (zero_copy), read in place by the first NTT pass.
Result<std::unique_ptr<ComputeBackend>> make_cuda_backend(const ComputeConfig& config,
                                                          bool mapped_memory);

// The backend a config names (compute.backend); `memory_backend` is the memory backend in use.
Result<std::unique_ptr<ComputeBackend>> open_compute_backend(const ComputeConfig& config,
                                                             const std::string& memory_backend);

}  // namespace zkpipe::pipeline
