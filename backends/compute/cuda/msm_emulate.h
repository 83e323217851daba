// backends/compute/cuda/msm_emulate.h: the GPU G1 MSM of msm.cu run on the host, step by step and
// thread by thread through the same per-thread functions (msm_digits.h), with stable sorts and
// partitions standing in for CUB's. Tests check it against crypto::msm, so the kernels' index
// math, the split of the scalars and the bounded accumulation are verified without a GPU.
// Thread-safety: pure function; single-threaded and slow (test sizes only).
#pragma once

#include <cstddef>
#include <cstdint>

#include "msm_plan.h"
#include "zkpipe/crypto/curves.h"

namespace zkpipe::cuda_backend {

struct MsmEmulation {
  crypto::G1 sum;                    // Jacobian, not normalized
  size_t ones = 0, others = 0;       // the split: scalars 1, and neither 0 nor 1
  MsmGpuPlan plan;                   // the Pippenger plan for the others
  unsigned levels = 0;               // accumulation levels of the deepest pass (0: nothing sorted)
  uint64_t max_thread_elements = 0;  // the most elements one thread added (ones and buckets)
};

// sum_i scalars[i] bases[i] as msm_g1 computes it. options.scratch_bytes == 0: 64 GiB.
MsmEmulation msm_g1_emulate(const crypto::G1Affine* bases, const crypto::Fr* scalars, size_t n,
                            const MsmOptions& options = {});

}  // namespace zkpipe::cuda_backend
