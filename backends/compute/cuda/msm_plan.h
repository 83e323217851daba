// backends/compute/cuda/msm_plan.h: how the GPU G1 MSM (msm.h) splits its work. The scalars are
// split first (0 skipped, 1 summed directly, the rest through Pippenger), so the Pippenger plan is
// for the count of the rest: the signed window size c (by a cost model of the kernels in msm.cu),
// the reduction segments, the sort's key bits, the span of sorted entries each accumulation thread
// takes, the scratch the kernels need and, when that does not fit, the number of points per pass
// (the passes accumulate into the same buckets). Plain C++, no CUDA headers.
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

namespace zkpipe::cuda_backend {

inline constexpr unsigned kMsmScalarBits = 256;  // r < 2^255, plus one for the digits' carry
inline constexpr unsigned kMsmMinWindowBits = 2;
inline constexpr unsigned kMsmMaxWindowBits = 24;
// Point indices ride in 31 bits of the sort values (bit 31 is the sign), and CUB counts items
// in int: a pass holds at most 2^31 - 1 (window, point) entries, an MSM at most 2^31 - 1 points.
inline constexpr uint64_t kMsmMaxEntries = (uint64_t{1} << 31) - 1;
// Bytes of one XYZZ bucket (4 Fp) and of one sort key or value.
inline constexpr uint64_t kMsmBucketBytes = 192;
// Elements one accumulation thread takes at most (sorted entries or pieces), and at least (a
// level then shrinks its input at least fourfold).
inline constexpr uint32_t kMsmMaxSpan = 1024;
inline constexpr uint32_t kMsmMinSpan = 8;

// What a caller may fix. window_bits: 0 for the cost model, else c itself (clamped to
// [kMsmMinWindowBits, kMsmMaxWindowBits]). scratch_bytes: the device bytes the scratch may use;
// 0 = the device's free memory plus what the scratch already holds.
struct MsmOptions {
  unsigned window_bits = 0;
  uint64_t scratch_bytes = 0;
};

// The scratch of one MSM (bytes, each buffer rounded up to 256 B): the split's buffers, sized for
// all n points, and one Pippenger pass's, sized for `chunk` of the rest.
struct MsmScratchBytes {
  uint64_t indices = 0;     // the ones' and the rest's point indices, n u32 each
  uint64_t split_temp = 0;  // CUB three-way partition temporary storage
  uint64_t ones = 0;        // the ones' per-thread partial sums (XYZZ)
  uint64_t keys = 0;        // two key arrays (CUB double buffer), chunk * windows u32 each
  uint64_t values = 0;      // two value arrays, the same
  uint64_t sort_temp = 0;   // CUB radix-sort temporary storage
  uint64_t piece_keys = 0;  // two arrays of 2 x (level-0 threads) u32
  uint64_t pieces = 0;      // two arrays of 2 x (level-0 threads) XYZZ points
  uint64_t buckets = 0;     // windows 2^(c-1) XYZZ points
  uint64_t partials = 0;    // windows x segments XYZZ points
  uint64_t split() const { return indices + split_temp + ones; }
  uint64_t pippenger() const {
    return keys + values + sort_temp + piece_keys + pieces + buckets + partials;
  }
  uint64_t total() const { return split() + pippenger(); }
};

struct MsmGpuPlan {
  size_t n = 0;                 // points through Pippenger; 0: nothing to sort
  unsigned window_bits = 0;     // c
  unsigned windows = 0;         // ceil(256 / c)
  uint32_t window_buckets = 0;  // 2^(c-1)
  uint64_t buckets = 0;         // windows * window_buckets; also the key of skipped (0) digits
  unsigned key_bits = 0;        // the sort's end bit: keys are <= buckets
  uint32_t segment_len = 0;     // buckets per reduction thread (a power of two)
  uint32_t segments = 0;        // reduction threads per window, window_buckets / segment_len
  size_t chunk = 0;             // points per pass
  size_t passes = 0;            // ceil(n / chunk)
  MsmScratchBytes scratch;      // the Pippenger buffers for one pass of `chunk` points
  bool fits = false;            // scratch.pippenger() <= the bytes given
  double cost = 0;              // the model's estimate, in units of one thread's mixed addition
};

// CUB's temporary storage for a sort of `entries` pairs with `key_bits` key bits; empty: an
// estimate (msm.cu passes CUB's own answer).
using MsmSortTempBytes = std::function<uint64_t(uint64_t entries, unsigned key_bits)>;

// The Pippenger plan for n points (the scalars other than 0 and 1) with device_bytes_free bytes
// for its scratch (bases, scalars and the split's buffers are the caller's). n == 0 gives the
// empty plan (passes = 0, fits = true).
MsmGpuPlan plan_msm_g1(size_t n, uint64_t device_bytes_free, unsigned window_bits_override = 0,
                       const MsmSortTempBytes& sort_temp = {});

// The split's buffers for n points (split_temp: CUB's partition storage, 0 for an estimate).
MsmScratchBytes msm_split_bytes(size_t n, uint64_t split_temp = 0);

// The Pippenger scratch of one pass of `chunk` points under c and segment length.
MsmScratchBytes msm_scratch_bytes(size_t chunk, unsigned window_bits, uint32_t segment_len,
                                  const MsmSortTempBytes& sort_temp = {});

// Elements per accumulation thread for a level of `count` elements: enough threads to fill the
// device (~2^16 running at once), at most kMsmMaxSpan, at least kMsmMinSpan; a power of two.
uint32_t msm_span(uint64_t count);

// The model's estimated time of one pass of `points` points with window size c and reduction
// segments of segment_len buckets (msm_plan.cpp documents it).
double msm_pass_cost(size_t points, unsigned window_bits, uint32_t segment_len);

}  // namespace zkpipe::cuda_backend
