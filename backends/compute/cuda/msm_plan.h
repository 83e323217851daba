// backends/compute/cuda/msm_plan.h: how the GPU G1 MSM (msm.h) splits its work: the signed
// window size c (by a cost model of the kernels in msm.cu), the reduction segments, the sort's
// key bits, the scratch the kernels need and, when that does not fit the device, the number of
// points per pass (the passes accumulate into the same buckets). Plain C++, no CUDA headers.
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>

namespace zkpipe::cuda_backend {

inline constexpr unsigned kMsmScalarBits = 256;  // r < 2^255, plus one for the digits' carry
inline constexpr unsigned kMsmMinWindowBits = 2;
inline constexpr unsigned kMsmMaxWindowBits = 24;
// Point indices ride in 31 bits of the sort values (bit 31 is the sign), and CUB counts items
// in int: a pass holds at most 2^31 - 1 (window, point) entries.
inline constexpr uint64_t kMsmMaxEntries = (uint64_t{1} << 31) - 1;

// The scratch of one pass over `chunk` points (bytes, each buffer rounded up to 256 B).
struct MsmScratchBytes {
  uint64_t keys = 0;       // two key arrays (CUB double buffer), chunk * windows u32 each
  uint64_t values = 0;     // two value arrays, the same
  uint64_t sort_temp = 0;  // CUB radix-sort temporary storage (an estimate in the plan)
  uint64_t bounds = 0;     // bucket run begin/end, 2 x windows 2^(c-1) u32
  uint64_t buckets = 0;    // windows 2^(c-1) Jacobian points (144 B)
  uint64_t partials = 0;   // windows x segments Jacobian points
  uint64_t total() const { return keys + values + sort_temp + bounds + buckets + partials; }
};

struct MsmGpuPlan {
  size_t n = 0;                 // points in the MSM; 0: the empty plan (the result is identity)
  unsigned window_bits = 0;     // c
  unsigned windows = 0;         // ceil(256 / c)
  uint32_t window_buckets = 0;  // 2^(c-1)
  uint64_t buckets = 0;         // windows * window_buckets; also the key of skipped (0) digits
  unsigned key_bits = 0;        // the sort's end bit: keys are <= buckets
  uint32_t segment_len = 0;     // buckets per reduction thread (a power of two)
  uint32_t segments = 0;        // reduction threads per window, window_buckets / segment_len
  size_t chunk = 0;             // points per pass
  size_t passes = 0;            // ceil(n / chunk)
  MsmScratchBytes scratch;      // for one pass of `chunk` points
  bool fits = false;            // scratch.total() <= the device_bytes_free given
  double cost = 0;              // the model's estimate, in units of one thread's G1 addition
};

// The plan for n points with device_bytes_free bytes of device memory for scratch (the bases
// and scalars are not counted: the caller holds them). window_bits_override: 0 for the cost
// model, else c itself (clamped to [kMsmMinWindowBits, kMsmMaxWindowBits]). n == 0 gives the
// empty plan (n = 0, passes = 0, fits = true).
MsmGpuPlan plan_msm_g1(size_t n, uint64_t device_bytes_free, unsigned window_bits_override = 0);

// The scratch of one pass of `chunk` points under c, segment length and CUB temp estimate.
MsmScratchBytes msm_scratch_bytes(size_t chunk, unsigned window_bits, uint32_t segment_len);

// The model's estimated time of one pass of `points` points with window size c and reduction
// segments of segment_len buckets (msm_plan.cpp documents it).
double msm_pass_cost(size_t points, unsigned window_bits, uint32_t segment_len);

}  // namespace zkpipe::cuda_backend
