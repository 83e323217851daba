// backends/compute/cuda/device_plan.h: the device memory of proving one circuit on a GPU, from
// the circuit's prover shape alone (no GPU needed), composed as DeviceProver composes it per call
// (prover.cpp, prover_run.cpp) from the same pieces (transfer_plan.h, msm_plan.h, ntt_plan.h):
// the NTT twiddle tables, the proving key's G1 bases (resident when they fit beside every lane's
// working set, else streamed through a staging buffer per lane), and each lane's working set
// (a/b/c, the L/A/B scalars, the MSM scratch). CUB's temporary storage is msm_plan.h's estimate.
// `zkpipe plan --device-memory` prints it for a GPU this machine need not have.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>

namespace zkpipe::cuda_backend {

// What the CUDA prover leaves the device free of in its planning: the context, kernels' stacks
// and fragmentation (DeviceProver plans with the device's free memory less this).
inline constexpr uint64_t kDeviceReserveBytes = 2ull << 30;

struct DeviceCircuit {
  uint64_t domain = 0;  // the NTT size: a power of two
  uint64_t num_aux = 0;
  uint64_t h_points = 0, l_points = 0, a_points = 0, b_points = 0;  // the G1 queries
};

struct DevicePlan {
  uint64_t device_bytes = 0;  // the GPU's memory
  uint64_t plannable = 0;     // what the planner may hand out (less the reserve, under a budget)
  unsigned lanes = 1;         // compute workers on the device (compute.workers_per_device)
  uint64_t twiddles = 0;      // the NTT tables
  uint64_t bases = 0;         // every G1 base of the key
  bool bases_resident = true;
  uint64_t chunk_points = 0;  // streamed: bases per chunk
  uint64_t staging = 0;       // streamed: one lane's staging buffers (two chunks)
  uint64_t working_set = 0;   // one lane: a/b/c, scalars and its planned MSM scratch
  uint64_t msm_scratch = 0;   // of which the MSM scratch (planned; cut to the lane's share)
  uint64_t peak = 0;          // twiddles + bases or staging + the lanes' working sets
  bool fits = true;           // every lane's a/b/c and scalars fit (the MSM may run in passes)
  std::string problem;        // when not: what is missing and the config key to change
};

// `budget_bytes`: compute.device_budget (0: none).
DevicePlan plan_device(const DeviceCircuit& c, uint64_t device_bytes, unsigned lanes,
                       uint64_t budget_bytes);

}  // namespace zkpipe::cuda_backend
