// backends/compute/cuda/ntt_emulate.h: host emulation of the GPU NTT kernels (ntt.cu), for tests
// on machines without a GPU: the same plans (ntt_plan.h) and the same per-thread ZKP_HD code
// (ntt_tile.h), run sequentially block by block, thread by thread, stage by stage (a loop over
// threads stands for each __syncthreads), over host arrays.
// Thread-safety: each call works on its caller's arrays only.
#pragma once

#include <cstddef>

#include "ntt_plan.h"

namespace zkpipe::cuda_backend {

// Host twiddle tables up to 2^max_log_n (the device NttTwiddles' contents).
struct HostNttTwiddles {
  NttTwiddleLayout layout;
  std::vector<Fr> table;
  static Result<HostNttTwiddles> create(unsigned max_log_n);
  NttTwiddleView view(crypto::NttDirection d) const { return layout.view(table.data(), d); }
};

// As cuda_backend::ntt_nr / ntt_rn: batch vectors of 2^log_n at data + k n; src == nullptr: in
// place, else the first pass reads src and later passes work on data.
Status emulate_ntt_nr(Fr* data, const Fr* src, unsigned log_n, crypto::NttDirection direction,
                      const HostNttTwiddles& tw, unsigned batch = 1,
                      unsigned max_tile_log = kNttMaxTileLog);
Status emulate_ntt_rn(Fr* data, const Fr* src, unsigned log_n, crypto::NttDirection direction,
                      const HostNttTwiddles& tw, unsigned batch = 1,
                      unsigned max_tile_log = kNttMaxTileLog);
// As cuda_backend::scale_powers.
Status emulate_scale_powers(Fr* data, size_t n, const Fr& c, const Fr& g, bool bit_reversed,
                            unsigned batch = 1);
// As cuda_backend::bit_reverse.
Status emulate_bit_reverse(Fr* data, size_t n);
// As cuda_backend::quotient (the same launch sequence).
Status emulate_quotient(Fr* a, Fr* b, Fr* c, size_t n, const HostNttTwiddles& tw,
                        unsigned max_tile_log = kNttMaxTileLog);

}  // namespace zkpipe::cuda_backend
