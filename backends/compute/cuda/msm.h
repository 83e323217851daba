// backends/compute/cuda/msm.h: G1 multi-scalar multiplication on the GPU (Pippenger, signed c-bit
// digits, the (window, bucket) entries sorted on the device, one thread per bucket, segmented
// window reductions; msm_plan.h picks c). The result equals crypto::msm as a point (Jacobian,
// not normalized). Thread-safety: msm_g1 calls sharing one MsmScratch must not overlap; use one
// scratch per stream or worker. Calls with different scratches are independent.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "device.h"
#include "msm_plan.h"
#include "zkpipe/crypto/curves.h"
#include "zkpipe/status.h"

namespace zkpipe::cuda_backend {

// Device buffers reused across msm_g1 calls: grown on demand (a buffer too small is freed and
// allocated again at the new size), freed by the destructor. Not thread-safe.
class MsmScratch {
 public:
  // Device bytes held now.
  uint64_t bytes() const;
  // Every buffer at least as large as `need`; RESOURCE_EXHAUSTED (naming the bytes) when the
  // device cannot provide them.
  Status reserve(const MsmScratchBytes& need);
  void release();  // frees every buffer

  // The two halves of the double-buffered keys and values; each holds need.keys / 2 bytes.
  uint32_t* keys(int half) const;
  uint32_t* values(int half) const;
  void* sort_temp() const { return sort_temp_.as<void>(); }
  uint64_t sort_temp_bytes() const { return sort_temp_.bytes(); }
  uint32_t* bounds() const { return bounds_.as<uint32_t>(); }  // begin, then end
  crypto::G1* buckets() const { return buckets_.as<crypto::G1>(); }
  crypto::G1* partials() const { return partials_.as<crypto::G1>(); }

 private:
  DeviceMemory keys_, values_, sort_temp_, bounds_, buckets_, partials_;
};

// sum_i scalars[i] bases[i] for i < n. bases: device (or mapped host) memory, affine, infinity
// allowed; scalars: device memory, Fr in its Montgomery form. Work is queued on `stream`; the call
// returns after synchronizing it. plan: nullptr to plan for the device's free memory (plus what
// `scratch` already holds); otherwise plan->n must be n. n == 0 gives the identity.
Result<crypto::G1> msm_g1(const crypto::G1Affine* bases, const crypto::Fr* scalars, size_t n,
                          MsmScratch& scratch, cudaStream_t stream,
                          const MsmGpuPlan* plan = nullptr);

}  // namespace zkpipe::cuda_backend
