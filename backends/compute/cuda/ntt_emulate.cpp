// backends/compute/cuda/ntt_emulate.cpp: the GPU NTT kernels run sequentially on the host
// (ntt_emulate.h). Each loop nest below mirrors one kernel of ntt.cu: grid.y (vector), grid.x
// (block), then threads, with a full sweep over the threads wherever the kernel has a
// __syncthreads. Thread-safety: see the header.
#include "ntt_emulate.h"

#include <string>
#include <vector>

namespace zkpipe::cuda_backend {

using crypto::NttDirection;

Result<HostNttTwiddles> HostNttTwiddles::create(unsigned max_log_n) {
  HostNttTwiddles t;
  ZKP_ASSIGN_OR_RETURN(t.layout, make_twiddle_layout(max_log_n));
  t.table = compute_twiddles(t.layout);
  return t;
}

namespace {

// One launch of the pass kernel: grid (plan.blocks, batch), plan.threads threads per block.
void emulate_pass(const NttPass& pass, const NttPassParams& p, Fr* dst, const Fr* src,
                  unsigned batch) {
  const size_t n = size_t{1} << p.log_n;
  std::vector<Fr> shared(pass.shared_bytes / sizeof(Fr));
  for (unsigned v = 0; v < batch; ++v) {
    const Fr* in = src + v * n;
    Fr* out = dst + v * n;
    for (uint64_t block = 0; block < pass.blocks; ++block) {
      for (uint32_t t = 0; t < pass.threads; ++t) {
        ntt_tile_twiddles(p, block, t, shared.data());
        ntt_tile_load(p, block, t, in, shared.data());
      }
      for (unsigned s = 0; s < p.tile_log; ++s) {
        for (uint32_t t = 0; t < pass.threads; ++t) ntt_tile_butterfly(p, t, s, shared.data());
      }
      for (uint32_t t = 0; t < pass.threads; ++t) ntt_tile_store(p, block, t, shared.data(), out);
    }
  }
}

Status emulate_ntt(Fr* data, const Fr* src, unsigned log_n, NttDirection direction, NttOrder order,
                   const HostNttTwiddles& tw, unsigned batch, unsigned max_tile_log) {
  if (log_n > tw.layout.max_log_n) {
    return invalid_argument("emulated GPU NTT: log_n " + std::to_string(log_n) +
                            " exceeds the twiddle tables' " + std::to_string(tw.layout.max_log_n));
  }
  ZKP_ASSIGN_OR_RETURN(const NttPlan plan, make_ntt_plan(log_n, order, max_tile_log));
  const NttTwiddleView view = tw.view(direction);
  for (unsigned i = 0; i < plan.num_passes; ++i) {
    const Fr* in = i == 0 && src != nullptr ? src : data;
    emulate_pass(plan.passes[i], plan.params(i, view), data, in, batch);
  }
  return ok_status();
}

}  // namespace

Status emulate_ntt_nr(Fr* data, const Fr* src, unsigned log_n, NttDirection direction,
                      const HostNttTwiddles& tw, unsigned batch, unsigned max_tile_log) {
  return emulate_ntt(data, src, log_n, direction, NttOrder::kNaturalToReversed, tw, batch,
                     max_tile_log);
}

Status emulate_ntt_rn(Fr* data, const Fr* src, unsigned log_n, NttDirection direction,
                      const HostNttTwiddles& tw, unsigned batch, unsigned max_tile_log) {
  return emulate_ntt(data, src, log_n, direction, NttOrder::kReversedToNatural, tw, batch,
                     max_tile_log);
}

Status emulate_scale_powers(Fr* data, size_t n, const Fr& c, const Fr& g, bool bit_reversed,
                            unsigned batch) {
  ZKP_ASSIGN_OR_RETURN(const unsigned log_n, ntt_log_size(n, "emulated GPU scale_powers"));
  const ScalePlan plan = make_scale_plan(log_n, c, g, bit_reversed);
  for (unsigned v = 0; v < batch; ++v) {
    for (uint64_t block = 0; block < plan.blocks; ++block) {
      for (uint32_t t = 0; t < plan.threads; ++t) scale_thread(plan.params, block, t, data + v * n);
    }
  }
  return ok_status();
}

Status emulate_bit_reverse(Fr* data, size_t n) {
  ZKP_ASSIGN_OR_RETURN(const unsigned log_n, ntt_log_size(n, "emulated GPU bit_reverse"));
  for (uint64_t i = 0; i < n; ++i) bit_reverse_thread(data, log_n, i);
  return ok_status();
}

Status emulate_quotient(Fr* a, Fr* b, Fr* c, size_t n, const HostNttTwiddles& tw,
                        unsigned max_tile_log) {
  ZKP_ASSIGN_OR_RETURN(const unsigned log_n, ntt_log_size(n, "emulated GPU quotient"));
  const Fr n_inv = Fr::from_u64(n).inverse();
  const Fr g = crypto::ntt_coset_shift();
  for (Fr* v : {a, b, c}) {  // evaluations -> coset evaluations (prover.cpp's to_coset)
    ZKP_RETURN_IF_ERROR(
        emulate_ntt_nr(v, nullptr, log_n, NttDirection::kInverse, tw, 1, max_tile_log));
    ZKP_RETURN_IF_ERROR(emulate_scale_powers(v, n, n_inv, g, true));
    ZKP_RETURN_IF_ERROR(
        emulate_ntt_rn(v, nullptr, log_n, NttDirection::kForward, tw, 1, max_tile_log));
  }
  const Fr z_inv = (g.pow_u64(n) - Fr::one()).inverse();
  for (uint64_t i = 0; i < n; ++i) quotient_pointwise_thread(a, b, c, z_inv, i);
  ZKP_RETURN_IF_ERROR(
      emulate_ntt_nr(a, nullptr, log_n, NttDirection::kInverse, tw, 1, max_tile_log));
  ZKP_RETURN_IF_ERROR(emulate_scale_powers(a, n, n_inv, g.inverse(), true));
  return emulate_bit_reverse(a, n);
}

}  // namespace zkpipe::cuda_backend
