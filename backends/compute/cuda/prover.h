// backends/compute/cuda/prover.h: Groth16 prove_start on one GPU. The quotient H (iNTT of a, b,
// c; coset NTT; (a b - c) / Z; coset iNTT) runs on the device without a round trip to the host,
// then the G1 MSMs (H, L, A, B) run on the device over bases kept resident (or streamed when
// they do not fit). The G2 MSM of B stays on the CPU in prove_finish, which the engine's
// finalizers run while the GPU proves the next partition. The result equals the CPU prover's
// (groth16::prove_start) point for point, so prove_finish makes the same proof bit for bit.
// Thread-safety: prove_start may be called from `lanes` threads at once (each call takes a
// lane: its own streams, events and buffers); the resident bases are shared under a mutex.
#pragma once

#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "device.h"
#include "device_select.h"
#include "transfer_plan.h"
#include "zkpipe/groth16/prover.h"

namespace zkpipe::cuda_backend {

struct GpuStartStats {
  TransferPath path = TransferPath::kPageable;
  uint64_t h2d_bytes = 0;    // a/b/c and scalars moved to the device (mapped: read in place)
  uint64_t h2d_ns = 0;       // first copy issued to last copy done (0 when read in place)
  uint64_t bases_bytes = 0;  // bases uploaded by this call (first use of a key, or streamed)
  bool bases_resident = true;
};

struct Lane;
struct ResidentBases;
class NttTwiddles;

struct DeviceOptions {
  unsigned lanes = 1;   // concurrent prove_start calls (compute.workers_per_device)
  bool mapped = false;  // a/b/c are mapped zero-copy buffers: the first NTT pass reads in place
  uint64_t stream_chunk_points = 0;  // > 0: never keep bases resident, stream them (tests)
  uint64_t budget_bytes = 0;         // compute.device_budget: the most the backend holds; 0: no cap
};

// Device memory as status shows it.
struct DeviceMemoryUse {
  uint64_t total = 0;   // the device's memory
  uint64_t free = 0;    // free on the device now (all processes)
  uint64_t held = 0;    // held by this process's backend: bases, a/b/c, scalars, scratch, tables
  uint64_t budget = 0;  // compute.device_budget; 0: none (free memory less a reserve)
};

class DeviceProver {
 public:
  static Result<std::unique_ptr<DeviceProver>> open(const CudaDevice& device,
                                                    const DeviceOptions& options);
  ~DeviceProver();

  Result<groth16::PendingProof> prove_start(const groth16::ProvingKey& pk,
                                            const groth16::ProverInput& input,
                                            GpuStartStats& stats);
  const CudaDevice& info() const { return info_; }
  DeviceMemoryUse memory() const;
  std::string label() const { return "cuda" + std::to_string(info_.index); }

 private:
  DeviceProver(CudaDevice info, const DeviceOptions& options);
  Result<Lane*> checkout();
  void checkin(Lane* lane);
  // The device's one memory planner (under mu_): the key's bases resident or streamed, and the
  // lane's MSM budget (Lane::msm_budget), from the free memory plus what the lanes hold.
  Result<std::shared_ptr<ResidentBases>> bases_for(const groth16::ProvingKey& pk, Lane& lane,
                                                   uint64_t working_set, uint64_t msm_scratch,
                                                   GpuStartStats& stats);
  Result<std::shared_ptr<const NttTwiddles>> twiddles(unsigned log_n, Lane& lane);
  Result<groth16::PendingProof> run(Lane& lane, const groth16::ProvingKey& pk,
                                    const groth16::ProverInput& in, GpuStartStats& stats);

  CudaDevice info_;
  DeviceOptions options_;
  std::mutex mu_;  // lanes_ free list and bases_
  std::vector<std::unique_ptr<Lane>> lanes_;
  std::vector<Lane*> free_;
  std::list<std::shared_ptr<ResidentBases>> bases_;  // most recently used first
  std::shared_ptr<const NttTwiddles> twiddles_;
  unsigned twiddle_log_ = 0;
};

}  // namespace zkpipe::cuda_backend
