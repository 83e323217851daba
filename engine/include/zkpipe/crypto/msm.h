// zkpipe/crypto/msm.h: multi-scalar multiplication sum_i k_i P_i over G1 and G2 (Pippenger
// with signed Booth digits; buckets in batch-affine form with Montgomery's batch inversion, or
// Jacobian for small inputs), multithreaded over (window, point chunk) tasks. Bases are
// affine, scalars Fr; zero scalars and infinity bases are skipped. Storage-proof witnesses are
// mostly 0 and 1 (every SHA-256 bit is a wire): when at most half the scalars are neither (and
// GLV is on), the ones are summed directly (batch-affine, no digits, no windows) and Pippenger
// runs, planned for their count, over a compact copy of the rest. The result is normalized
// (z = 1 or the identity), so it is bit-identical whatever the thread count.
// Thread-safety: pure functions; concurrent calls are independent. Host only, variable-time.
#pragma once

#include <cstddef>

#include "zkpipe/crypto/curves.h"

namespace zkpipe::crypto {

enum class MsmBuckets {
  kAuto,         // chosen per task by the cost model below
  kJacobian,     // mixed Jacobian + affine additions into Jacobian buckets
  kBatchAffine,  // affine buckets, additions batched around one inversion
};

struct MsmOptions {
  unsigned threads = 0;  // 0: all hardware threads
  MsmBuckets buckets = MsmBuckets::kAuto;
  unsigned window_bits = 0;  // 0: from the cost model; otherwise 1..22
  // GLV: k P = k1 P + k2 [x^2] P with 128-bit k1, k2, where [x^2] is -phi on G1 and psi^2 on
  // G2 (both one coordinate-wise multiplication per point). Halves the windows, hence the
  // bucket reductions, at the price of a second copy of the bases (n affine points).
  bool endomorphism = true;
  // The 0/1 split above (zkpipe-bench-ops g1_msm/g2_msm --scalars porep times both ways).
  bool split_ones = true;
};

// How an MSM is split: c-bit signed windows (ceil(129 / c) of them with GLV, ceil(256 / c)
// without; 2^(c-1) buckets each), the points (2n with GLV) cut into `chunks` contiguous
// ranges, one task per (window, chunk).
struct MsmPlan {
  unsigned window_bits = 1;
  unsigned windows = 256;
  size_t chunks = 1;
  bool batch_affine = false;
};

// The plan the cost model picks for n bases with GLV on `threads` threads (0 = hardware): the
// least estimated time, with per-task cost = points x addition + 2^(c-1) x bucket reduction
// (+ one inversion per batch in batch-affine form) and tasks spread evenly over the threads.
MsmPlan msm_plan_g1(size_t n, unsigned threads);
MsmPlan msm_plan_g2(size_t n, unsigned threads);

G1 msm(const G1Affine* bases, const Fr* scalars, size_t n, const MsmOptions& options);
G2 msm(const G2Affine* bases, const Fr* scalars, size_t n, const MsmOptions& options);

// The most heap memory msm() of n bases allocates while it runs, in bytes: the GLV copy of the
// bases and the split scalars (or the canonical scalars), one sum per task, the buckets and
// batch vectors of the tasks that run at once (and on G1 with IFMA their per-thread scratch).
// An upper bound by construction of the same plan msm() picks; what memory budgets reserve.
uint64_t msm_scratch_bytes_g1(size_t n, const MsmOptions& options = {});
uint64_t msm_scratch_bytes_g2(size_t n, const MsmOptions& options = {});

inline G1 msm(const G1Affine* bases, const Fr* scalars, size_t n, unsigned threads = 0) {
  MsmOptions o;
  o.threads = threads;
  return msm(bases, scalars, n, o);
}
inline G2 msm(const G2Affine* bases, const Fr* scalars, size_t n, unsigned threads = 0) {
  MsmOptions o;
  o.threads = threads;
  return msm(bases, scalars, n, o);
}

}  // namespace zkpipe::crypto
