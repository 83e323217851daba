// backends/compute/cuda/msm.h: G1 multi-scalar multiplication on the GPU for storage-proof
// witnesses (mostly 0 and 1): the scalars split three ways on the device (0 skipped, 1 summed
// in parallel, the rest through Pippenger: signed c-bit digits, the (window, bucket) entries
// sorted on the device and cut into fixed spans per thread whatever the bucket sizes, XYZZ
// buckets, segmented window reductions); msm_digits.h has the per-thread code and msm_plan.h
// picks c. The result equals crypto::msm as a point (Jacobian, not normalized). Thread-safety:
// msm_g1 calls sharing one MsmScratch must not overlap; use one scratch per stream or worker. Calls
// with different scratches are independent.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "device.h"
#include "msm_plan.h"
#include "zkpipe/crypto/curves.h"
#include "zkpipe/crypto/xyzz.h"
#include "zkpipe/sdk/status.h"

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
  // The ones' indices, then the rest's (need.indices / 2 bytes each).
  uint32_t* indices(int half) const;
  void* split_temp() const { return split_temp_.as<void>(); }
  uint64_t split_temp_bytes() const { return split_temp_.bytes(); }
  int* counts() const { return counts_.as<int>(); }  // ones, then the rest
  crypto::G1Xyzz* ones() const { return ones_.as<crypto::G1Xyzz>(); }
  uint32_t* keys(int half) const;
  uint32_t* values(int half) const;
  void* sort_temp() const { return sort_temp_.as<void>(); }
  uint64_t sort_temp_bytes() const { return sort_temp_.bytes(); }
  uint32_t* piece_keys(int half) const;
  crypto::G1Xyzz* pieces(int half) const;
  crypto::G1Xyzz* buckets() const { return buckets_.as<crypto::G1Xyzz>(); }
  crypto::G1Xyzz* partials() const { return partials_.as<crypto::G1Xyzz>(); }

 private:
  DeviceMemory indices_, split_temp_, counts_, ones_, keys_, values_, sort_temp_, piece_keys_,
      pieces_, buckets_, partials_;
};

// The most device scratch msm_g1 takes for n points in one pass (every scalar neither 0 nor 1),
// with CUB's own temporary sizes: what a caller plans memory with before it calls.
Result<uint64_t> msm_g1_scratch_bytes(size_t n, cudaStream_t stream);

// sum_i scalars[i] bases[i] for i < n (n <= 2^31 - 1). bases: device (or mapped host) memory,
// affine, infinity allowed; scalars: device memory, Fr in its Montgomery form. Work is queued on
// `stream`; the call synchronizes it twice (the split's counts, then the window sums). options:
// the window size and the scratch budget (msm_plan.h); RESOURCE_EXHAUSTED naming the bytes when
// even passes of the smallest chunk do not fit. n == 0 gives the identity.
Result<crypto::G1> msm_g1(const crypto::G1Affine* bases, const crypto::Fr* scalars, size_t n,
                          MsmScratch& scratch, cudaStream_t stream, const MsmOptions& options = {});

}  // namespace zkpipe::cuda_backend
