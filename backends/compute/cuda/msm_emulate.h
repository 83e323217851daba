// backends/compute/cuda/msm_emulate.h: the GPU G1 MSM of msm.cu run on the host, step by step and
// thread by thread through the same per-thread functions (msm_digits.h), with a stable sort
// standing in for CUB's radix sort. Tests check it against crypto::msm, so the kernels' index
// math and bucket logic are verified on machines without a GPU.
// Thread-safety: pure function; single-threaded and slow (test sizes only).
#pragma once

#include <cstddef>

#include "msm_plan.h"
#include "zkpipe/crypto/curves.h"

namespace zkpipe::cuda_backend {

// sum_i scalars[i] bases[i] (Jacobian, not normalized) as msm_g1 computes it under `plan`
// (plan.n must be n; the identity for n == 0).
crypto::G1 msm_g1_emulate(const crypto::G1Affine* bases, const crypto::Fr* scalars, size_t n,
                          const MsmGpuPlan& plan);

}  // namespace zkpipe::cuda_backend
