// backends/compute/cuda/ntt_plan.h: the host side of the GPU NTT (plain C++, no CUDA headers):
// how the log_n radix-2 stages of a size-2^log_n transform split into tiled passes (one kernel
// launch, one global read and write each), the launch geometry of every pass, the layout and
// host computation of the two-level twiddle tables (ntt_tile.h), and the scale_powers geometry.
// Plans are small values with no heap storage, made per call.
// Thread-safety: pure functions; the table builder allocates and returns its own vector.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "ntt_tile.h"
#include "zkpipe/crypto/ntt.h"
#include "zkpipe/sdk/status.h"

namespace zkpipe::cuda_backend {

// Largest tile: 2^10 Fr = 32 KiB of shared memory, as much again for its twiddle row, and 512
// threads per block. Above the default 48 KiB of dynamic shared memory the launch opts in
// (cudaFuncAttributeMaxDynamicSharedMemorySize; sm_70 and later allow 64 KiB or more). Not yet
// tuned on hardware.
inline constexpr size_t kNttDefaultSharedBytes = 48 * 1024;
inline constexpr unsigned kNttMaxTileLog = 10;
// Blocks of small tiles hold several tiles so that a block has at least 2^8 threads.
inline constexpr unsigned kNttMinBlockThreadsLog = 8;
inline constexpr unsigned kNttMaxPasses = crypto::kNttMaxLog;  // tile_log 1, log_n 32

enum class NttOrder {
  kNaturalToReversed,  // ntt_nr: Gentleman-Sande, top bit first
  kReversedToNatural,  // ntt_rn: Cooley-Tukey, bottom bit first
};

// One kernel launch: stages of index bits [lo_bit, lo_bit + tile_log).
struct NttPass {
  unsigned lo_bit = 0;
  unsigned tile_log = 0;         // stages in this pass
  unsigned block_tiles_log = 0;  // tiles per block = 2^block_tiles_log
  uint32_t threads = 0;          // per block: 2^(tile_log - 1 + block_tiles_log)
  uint64_t blocks = 0;           // per vector (grid.x); grid.y = batch
  size_t shared_bytes = 0;       // dynamic shared memory per block
};

struct NttPlan {
  unsigned log_n = 0;
  NttOrder order = NttOrder::kNaturalToReversed;
  unsigned num_passes = 0;
  std::array<NttPass, kNttMaxPasses> passes{};  // in execution order

  // The kernel parameters of pass `i` with the given twiddle tables.
  NttPassParams params(unsigned i, const NttTwiddleView& tw) const;
};

// log_n in [1, 32] and max_tile_log in [1, kNttMaxTileLog], else INVALID_ARGUMENT naming them.
// The stages split into ceil(log_n / max_tile_log) passes whose stage counts differ by at most
// one (2^24: 8 + 8 + 8; 2^27: 9 + 9 + 9). Passes run in the order the butterflies need:
// kNaturalToReversed from the top bits down, kReversedToNatural from bit 0 up.
Result<NttPlan> make_ntt_plan(unsigned log_n, NttOrder order,
                              unsigned max_tile_log = kNttMaxTileLog);

// ---- twiddle tables ----------------------------------------------------------------------------
// One contiguous array of Fr: [forward lo | forward hi | inverse lo | inverse hi], the tables of
// ntt_tile.h for w = omega_M and w = omega_M^-1, M = 2^max_log_n.
struct NttTwiddleLayout {
  unsigned max_log_n = 0;
  unsigned lo_log = 0;
  size_t lo_count = 0;  // 2^lo_log
  size_t hi_count = 0;  // 2^(max_log_n - 1 - lo_log)
  size_t elements() const { return 2 * (lo_count + hi_count); }
  size_t bytes() const { return elements() * sizeof(Fr); }
  // Offsets (in Fr) of the tables of one direction inside the array.
  size_t lo_offset(crypto::NttDirection d) const {
    return d == crypto::NttDirection::kForward ? 0 : lo_count + hi_count;
  }
  size_t hi_offset(crypto::NttDirection d) const { return lo_offset(d) + lo_count; }
  // The view over an array `base` laid out as above (host or device memory).
  NttTwiddleView view(const Fr* base, crypto::NttDirection d) const {
    return {base + lo_offset(d), base + hi_offset(d), lo_log, max_log_n};
  }
};

// max_log_n in [1, 32], else INVALID_ARGUMENT. At 27: 2 x (2^13 + 2^13) Fr = 1 MiB.
Result<NttTwiddleLayout> make_twiddle_layout(unsigned max_log_n);
// The table contents (layout.elements() values), from crypto::ntt_root_of_unity.
std::vector<Fr> compute_twiddles(const NttTwiddleLayout& layout);

// ---- scale_powers ------------------------------------------------------------------------------
// 2^8 threads per block, runs of 2^4 elements per thread (fewer for small n).
inline constexpr unsigned kScaleThreadsLog = 8;
inline constexpr unsigned kScaleRunLog = 4;

// The kernel parameters and grid (blocks per vector) of data[i] *= c g^e(i) over n = 2^log_n
// (log_n <= 32; 0 allowed: n = 1).
struct ScalePlan {
  ScaleParams params;
  uint64_t blocks = 0;
  uint32_t threads = 0;
};
ScalePlan make_scale_plan(unsigned log_n, const Fr& c, const Fr& g, bool bit_reversed);

// log2(n) when n is a power of two in [1, 2^32], else INVALID_ARGUMENT naming `what` and n.
Result<unsigned> ntt_log_size(size_t n, const char* what);

}  // namespace zkpipe::cuda_backend
