// tools/bench/gpu/static_model.h: `zkpipe-bench-gpu --static FILE`: the SASS instruction counts,
// registers and spills that static_report.py read off the sm_90 cubins (FILE = its static.json),
// and a cost model that turns them into a predicted time of the backend's 2^k G1 MSM and NTT on
// one H200. A prediction, labelled as one: no GPU ran. The model (static_model.cpp documents each
// constant): the hot loops are issue-bound integer code, the sort and the transforms' passes
// bandwidth-bound, and the MSM's plan (window size, windows, segments) is the backend's own
// (plan_msm_g1), as is the NTT's (make_ntt_plan).
// Thread-safety: main thread only.
#pragma once

#include <cstddef>
#include <string>

namespace zkpipe::cuda_backend {

// SASS instructions per operation (static.json "ops").
struct OpCosts {
  double fp_mul = 0, fr_mul = 0, fr_add = 0;
  double xyzz_madd = 0, xyzz_add = 0, xyzz_dbl = 0;  // the MSM's bucket operations
};

// The MSM's scalars by kind: shares of 0 and 1 (the rest uniform in [2, r)).
struct ScalarShares {
  double zeros = 0, ones = 0;
};

struct MsmPrediction {
  unsigned window_bits = 0, windows = 0;  // of the Pippenger part (0: nothing left to sort)
  double split_s = 0;                     // the three-way partition of the scalars (bandwidth)
  double ones_s = 0;                      // the ones' sum: spans per thread, then the fold
  double sort_s = 0;                      // digits and radix sort of the rest's entries (bandwidth)
  double accumulate_s = 0;                // the bucket additions and their pieces
  double reduce_s = 0;                    // the windows' weighted bucket sums
  double total_s = 0;
};

struct NttPrediction {
  unsigned passes = 0;
  double compute_s = 0, memory_s = 0, total_s = 0;
};

MsmPrediction predict_msm_g1(size_t n, const OpCosts& ops, const ScalarShares& shares);
NttPrediction predict_ntt(unsigned log_n, const OpCosts& ops);

// Prints the table and the predictions; 0, or 1 naming what is wrong with the file.
int run_static_report(const std::string& path);

}  // namespace zkpipe::cuda_backend
