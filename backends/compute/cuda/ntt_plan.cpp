// backends/compute/cuda/ntt_plan.cpp: pass splitting, launch geometry, twiddle tables and the
// scale_powers geometry of the GPU NTT (ntt_plan.h). Thread-safety: see the header.
#include "ntt_plan.h"

#include <algorithm>
#include <bit>
#include <string>

namespace zkpipe::cuda_backend {

using crypto::NttDirection;

NttPassParams NttPlan::params(unsigned i, const NttTwiddleView& tw) const {
  NttPassParams p;
  p.log_n = log_n;
  p.lo_bit = passes[i].lo_bit;
  p.tile_log = passes[i].tile_log;
  p.block_tiles_log = passes[i].block_tiles_log;
  p.dif = order == NttOrder::kNaturalToReversed;
  p.tw = tw;
  return p;
}

Result<NttPlan> make_ntt_plan(unsigned log_n, NttOrder order, unsigned max_tile_log) {
  if (log_n < 1 || log_n > crypto::kNttMaxLog) {
    return invalid_argument("GPU NTT plan: log_n " + std::to_string(log_n) + " is outside [1, 32]");
  }
  if (max_tile_log < 1 || max_tile_log > kNttMaxTileLog) {
    return invalid_argument("GPU NTT plan: max_tile_log " + std::to_string(max_tile_log) +
                            " is outside [1, " + std::to_string(kNttMaxTileLog) + "]");
  }
  NttPlan plan;
  plan.log_n = log_n;
  plan.order = order;
  plan.num_passes = (log_n + max_tile_log - 1) / max_tile_log;
  const unsigned base = log_n / plan.num_passes;
  const unsigned extra = log_n % plan.num_passes;  // the first `extra` passes get one more
  // Stage counts of the passes from bit 0 up, then placed in execution order.
  unsigned lo = 0;
  for (unsigned k = 0; k < plan.num_passes; ++k) {
    NttPass pass;
    pass.lo_bit = lo;
    pass.tile_log = base + (k < extra ? 1 : 0);
    lo += pass.tile_log;
    const unsigned tiles_log = log_n - pass.tile_log;  // tiles per vector = 2^tiles_log
    const unsigned want = pass.tile_log - 1 >= kNttMinBlockThreadsLog
                              ? 0
                              : kNttMinBlockThreadsLog - (pass.tile_log - 1);
    pass.block_tiles_log = std::min(want, tiles_log);
    pass.threads = uint32_t{1} << (pass.tile_log - 1 + pass.block_tiles_log);
    pass.blocks = uint64_t{1} << (tiles_log - pass.block_tiles_log);
    // The tiles, then a twiddle row per tile (ntt_tile.h).
    pass.shared_bytes = 2 * (size_t{1} << (pass.tile_log + pass.block_tiles_log)) * sizeof(Fr);
    const unsigned slot = order == NttOrder::kReversedToNatural ? k : plan.num_passes - 1 - k;
    plan.passes[slot] = pass;
  }
  return plan;
}

Result<NttTwiddleLayout> make_twiddle_layout(unsigned max_log_n) {
  if (max_log_n < 1 || max_log_n > crypto::kNttMaxLog) {
    return invalid_argument("GPU NTT twiddles: max_log_n " + std::to_string(max_log_n) +
                            " is outside [1, 32]");
  }
  NttTwiddleLayout t;
  t.max_log_n = max_log_n;
  t.lo_log = max_log_n / 2;  // ceil((max_log_n - 1) / 2)
  t.lo_count = size_t{1} << t.lo_log;
  t.hi_count = size_t{1} << (max_log_n - 1 - t.lo_log);
  return t;
}

std::vector<Fr> compute_twiddles(const NttTwiddleLayout& layout) {
  std::vector<Fr> out(layout.elements());
  const Fr w_fwd = crypto::ntt_root_of_unity(layout.max_log_n);
  for (NttDirection d : {NttDirection::kForward, NttDirection::kInverse}) {
    const Fr w = d == NttDirection::kForward ? w_fwd : w_fwd.inverse();
    Fr* lo = out.data() + layout.lo_offset(d);
    Fr* hi = out.data() + layout.hi_offset(d);
    Fr p = Fr::one();
    for (size_t i = 0; i < layout.lo_count; ++i, p *= w) lo[i] = p;
    const Fr step = p;  // w^(2^lo_log)
    p = Fr::one();
    for (size_t i = 0; i < layout.hi_count; ++i, p *= step) hi[i] = p;
  }
  return out;
}

ScalePlan make_scale_plan(unsigned log_n, const Fr& c, const Fr& g, bool bit_reversed) {
  ScalePlan plan;
  ScaleParams& p = plan.params;
  p.log_n = log_n;
  p.threads_log = std::min(log_n, kScaleThreadsLog);
  p.run_log = std::min(log_n - p.threads_log, kScaleRunLog);
  p.bit_reversed = bit_reversed;
  p.c = c;
  Fr x = g;
  for (unsigned b = 0; b < 32; ++b, x = x.sqr()) p.g_pow2[b] = x;
  const unsigned step_log = bit_reversed ? log_n - p.threads_log - p.run_log : p.threads_log;
  p.step = g.pow_u64(uint64_t{1} << step_log);
  plan.threads = uint32_t{1} << p.threads_log;
  plan.blocks = uint64_t{1} << (log_n - p.threads_log - p.run_log);
  return plan;
}

Result<unsigned> ntt_log_size(size_t n, const char* what) {
  if (n == 0 || !std::has_single_bit(n) ||
      std::countr_zero(n) > static_cast<int>(crypto::kNttMaxLog)) {
    return invalid_argument(std::string(what) + ": size " + std::to_string(n) +
                            " is not a power of two in [1, 2^32]");
  }
  return static_cast<unsigned>(std::countr_zero(n));
}

}  // namespace zkpipe::cuda_backend
