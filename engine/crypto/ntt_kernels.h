// engine/crypto/ntt_kernels.h (private to zkpipe_crypto): the twiddle tables and the two
// in-place NTT drivers behind ntt.h. T[k] = w_(2^(j+2))^brv_(j+1)(k) for 2^j <= k < 2^(j+1)
// (T[0] = 1) does not depend on n; block k of a stage of any size-n transform uses T[k].
// Thread-safety: tables are immutable once built; the drivers touch only their array.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "ifma_variant.h"
#include "zkpipe/crypto/fields.h"
#include "zkpipe/crypto/ntt.h"

namespace zkpipe::crypto {

// Entries of each stored table: 2^20 (32 MiB per direction) covers n <= 2^21 with plain
// lookups; larger n multiply two lookups once per block.
inline constexpr unsigned kNttTableLog = 20;

inline uint64_t bit_reverse_bits(uint64_t v, unsigned bits) {
  if (bits == 0) return 0;
  v = ((v >> 1) & 0x5555555555555555ull) | ((v & 0x5555555555555555ull) << 1);
  v = ((v >> 2) & 0x3333333333333333ull) | ((v & 0x3333333333333333ull) << 2);
  v = ((v >> 4) & 0x0f0f0f0f0f0f0f0full) | ((v & 0x0f0f0f0f0f0f0f0full) << 4);
  return __builtin_bswap64(v) >> (64 - bits);
}

struct NttTables {
  std::vector<Fr> forward;  // T for omega
  std::vector<Fr> inverse;  // T for omega^-1 (elementwise inverses of forward)
  // 16 T (as field elements): the twiddles in the 2^260-Montgomery form of the AVX-512 IFMA
  // kernel; empty on CPUs without it.
  std::vector<Fr> forward16, inverse16;
};

// The twiddles of one transform of size n: for a block index k = hi 2^L + lo (L =
// kNttTableLog), T[k] = T[lo] * high[hi] with high[hi] = w_n^brv_(log n - 1 - L)(hi).
struct NttTwiddles {
  const Fr* table = nullptr;
  const Fr* table16 = nullptr;  // null without the IFMA tables
  std::vector<Fr> high;         // empty when n <= 2^(L+1)
  std::vector<Fr> high16;       // 16 high (with the IFMA tables)

  static constexpr size_t kLowMask = (size_t{1} << kNttTableLog) - 1;
  Fr get(size_t k) const {
    const size_t hi = k >> kNttTableLog;
    return hi == 0 ? table[k] : table[k & kLowMask] * high[hi];
  }
  Fr get16(size_t k) const {
    const size_t hi = k >> kNttTableLog;
    return hi == 0 ? table16[k] : table16[k & kLowMask] * high[hi];
  }
};

enum class NttKernel { kAuto, kScalar };  // kAuto: AVX-512 IFMA where the CPU has it

// The cached tables with at least min(entries, 2^kNttTableLog) entries (built or grown under
// the cache's mutex; the returned tables are immutable).
std::shared_ptr<const NttTables> ntt_tables(size_t entries, unsigned threads);
NttTwiddles ntt_twiddles(const NttTables& tables, size_t n, NttDirection direction);
// out[k] = 16 t[k] for k >= from (out resized to t's size): a table in the IFMA kernel's form.
// ntt_tables adds these where the CPU has IFMA; tests add them for the emulated kernel.
void ntt_ifma_form(const std::vector<Fr>& t, std::vector<Fr>& out, size_t from, unsigned threads);

// ntt_nr (gs == false: Cooley-Tukey, natural in, bit-reversed out) or ntt_rn (gs == true:
// Gentleman-Sande, bit-reversed in, natural out) for n a power of two; threads 0 = hardware.
void ntt_kernel_run(Fr* data, size_t n, NttDirection direction, bool gs, NttKernel kernel,
                    unsigned threads);

// The scalar drivers (ntt_kernels.cpp) and the AVX-512 IFMA ones (ntt_ifma.cpp).
void ntt_scalar_run(Fr* data, size_t n, const NttTwiddles& tw, bool gs, unsigned threads);
// Below this size the vector kernel does not pay for its conversions.
inline constexpr size_t kNttIfmaMinSize = 64;
inline namespace ZKP_IFMA_VARIANT {  // ifma_variant.h
bool ntt_ifma_available();           // always true, emulated
void ntt_ifma_run(Fr* data, size_t n, const NttTwiddles& tw, bool gs, unsigned threads);
}  // namespace ZKP_IFMA_VARIANT

// The stage order of both drivers for `top` whole-array stages above the chunks: Cooley-Tukey
// sweeps the top stages first (a single stage first when their count is odd, then pairs) and
// then runs the chunks; Gentleman-Sande runs the chunks first and then the pairs downwards,
// ending with the single one. sweep(first_stage, stages) with stages 1 or 2; chunks().
template <bool kGs, typename Sweep, typename Chunks>
void ntt_run_stages(unsigned top, Sweep&& sweep, Chunks&& chunks) {
  if (!kGs) {
    unsigned t = 0;
    if (top % 2 == 1) sweep(t++, 1u);
    for (; t < top; t += 2) sweep(t, 2u);
    chunks();
  } else {
    chunks();
    unsigned t = top;
    while (t >= 2) sweep(t -= 2, 2u);
    if (t == 1) sweep(0u, 1u);
  }
}

}  // namespace zkpipe::crypto
