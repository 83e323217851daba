// backends/compute/cuda/prover_lane.h: what DeviceProver's files share (private to the
// backend): a lane (the streams, events and device buffers of one concurrent prove_start) and
// the resident bases of one proving key.
// Thread-safety: a lane is used by one call at a time; ResidentBases is immutable once built.
#pragma once

#include <cuda_runtime_api.h>

#include <memory>

#include "device.h"
#include "msm.h"
#include "ntt.h"
#include "prover.h"
#include "transfer_plan.h"

namespace zkpipe::cuda_backend {

using crypto::Fr;
using crypto::G1;
using crypto::G1Affine;
using crypto::NttDirection;

struct Lane {
  cudaStream_t compute = nullptr;
  cudaStream_t copy[kCopyStreams] = {};
  cudaEvent_t h2d_begin = nullptr, ntt_begin = nullptr, ntt_end = nullptr;
  cudaEvent_t arrived[kCopyStreams] = {};  // a, b, c on the device
  cudaEvent_t scalars[kCopyStreams] = {};  // aux, A scalars, B scalars on the device
  cudaEvent_t staged[2] = {};              // streamed bases: a staging half filled
  DeviceMemory abc, aux, a_scalars, b_scalars, staging;
  MsmScratch msm;
  uint64_t stream_chunk_points = 1ull << 16;  // streamed bases: points per staging half
  uint64_t msm_budget = 0;  // the MSM scratch this lane may take (the device's planner sets it)

  // Device bytes the lane holds now.
  uint64_t bytes() const {
    return abc.bytes() + aux.bytes() + a_scalars.bytes() + b_scalars.bytes() + staging.bytes() +
           msm.bytes();
  }

  ~Lane() {
    for (cudaEvent_t* e : {&h2d_begin, &ntt_begin, &ntt_end, &staged[0], &staged[1]}) {
      if (*e != nullptr) cudaEventDestroy(*e);
    }
    for (unsigned i = 0; i < kCopyStreams; ++i) {
      if (arrived[i] != nullptr) cudaEventDestroy(arrived[i]);
      if (scalars[i] != nullptr) cudaEventDestroy(scalars[i]);
      if (copy[i] != nullptr) cudaStreamDestroy(copy[i]);
    }
    if (compute != nullptr) cudaStreamDestroy(compute);
  }
};

// The four G1 query vectors of one proving key, contiguous on the device.
struct ResidentBases {
  std::weak_ptr<const void> owner;  // the key's storage: identity, and expiry when it is freed
  const G1Affine* host_h = nullptr;
  size_t h = 0, l = 0, a = 0, b = 0;
  DeviceMemory mem;
  const G1Affine* at(size_t offset) const { return mem.as<const G1Affine>() + offset; }
  bool same_key(const groth16::ProvingKey& pk) const {
    return !owner.expired() && !owner.owner_before(pk.storage) && !pk.storage.owner_before(owner) &&
           host_h == pk.h_query.data() && h == pk.h_query.size() && l == pk.l_query.size() &&
           a == pk.a_query.size() && b == pk.b_g1_query.size();
  }
};

// `bytes` from host to device on `stream`, in chunks of `chunk` bytes (0: one copy).
Status copy_vector(void* dst, const void* src, uint64_t bytes, uint64_t chunk, cudaStream_t stream);

}  // namespace zkpipe::cuda_backend
