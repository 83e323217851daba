// The Fr NTT (ntt.h). Both kernels use one twiddle per block: Cooley-Tukey (natural in,
// bit-reversed out) with butterfly (a, b) -> (a + s b, a - s b) and Gentleman-Sande
// (bit-reversed in, natural out) with (a, b) -> (a + b, (a - b) s), where block k of its stage
// uses s = T[k] = w_(2^(j+2))^brv_(j+1)(k) for 2^j <= k < 2^(j+1): the same table for every n.
// Stages run as radix-4 pairs; the top stages sweep the whole array, the rest run inside
// cache-sized chunks, in parallel. Thread-safety: see ntt.h.
#include "zkpipe/crypto/ntt.h"

#include <bit>
#include <string>
#include <vector>

#include "ntt_kernels.h"
#include "zkpipe/crypto/parallel.h"

namespace zkpipe::crypto {
namespace {

// (r - 1) / 2^32 as an exponent.
constexpr Fr::L kOddPart = Fr::kOddPart;

Status check_size(size_t n) {
  if (n == 0 || !std::has_single_bit(n) || std::countr_zero(n) > static_cast<int>(kNttMaxLog)) {
    return invalid_argument("NTT: size " + std::to_string(n) +
                            " is not a power of two in [1, 2^32]");
  }
  return ok_status();
}

}  // namespace

Fr ntt_root_of_unity(unsigned log_n) {
  static const Fr root = Fr::from_u64(kNttGenerator).pow(kOddPart);  // order exactly 2^32
  Fr w = root;
  for (unsigned i = log_n; i < kNttMaxLog; ++i) w = w.sqr();
  return w;
}

Fr ntt_coset_shift() {
  return Fr::from_u64(kNttGenerator);
}

Status ntt_nr(Fr* data, size_t n, NttDirection direction, unsigned threads) {
  ZKP_RETURN_IF_ERROR(check_size(n));
  ntt_kernel_run(data, n, direction, false, NttKernel::kAuto, threads);
  return ok_status();
}

Status ntt_rn(Fr* data, size_t n, NttDirection direction, unsigned threads) {
  ZKP_RETURN_IF_ERROR(check_size(n));
  ntt_kernel_run(data, n, direction, true, NttKernel::kAuto, threads);
  return ok_status();
}

Status bit_reverse_permute(Fr* data, size_t n, unsigned threads) {
  ZKP_RETURN_IF_ERROR(check_size(n));
  const unsigned k = static_cast<unsigned>(std::countr_zero(n));
  constexpr unsigned kTile = 4;  // 16-element runs: whole cache lines on both sides
  if (k < 2 * kTile + 2) {
    for (size_t i = 0; i < n; ++i) {
      size_t j = bit_reverse_bits(i, k);
      if (i < j) std::swap(data[i], data[j]);
    }
    return ok_status();
  }
  // i = (hi, mid, lo) with kTile-bit hi and lo maps to (brv lo, brv mid, brv hi): the tile of
  // `mid` swaps with the tile of brv(mid), a 16 x 16 transpose.
  const unsigned mid_bits = k - 2 * kTile;
  const size_t tile = size_t{1} << kTile;
  parallel_for_ranges(size_t{1} << mid_bits, 64, threads, [&](size_t b, size_t e) {
    for (size_t mid = b; mid < e; ++mid) {
      const size_t mid_r = bit_reverse_bits(mid, mid_bits);
      if (mid_r < mid) continue;
      for (size_t hi = 0; hi < tile; ++hi) {
        for (size_t lo = 0; lo < tile; ++lo) {
          const size_t i = (hi << (k - kTile)) | (mid << kTile) | lo;
          const size_t j = (bit_reverse_bits(lo, kTile) << (k - kTile)) | (mid_r << kTile) |
                           bit_reverse_bits(hi, kTile);
          if (mid != mid_r || i < j) std::swap(data[i], data[j]);
        }
      }
    }
  });
  return ok_status();
}

Status ntt_scale_powers(Fr* data, size_t n, const Fr& c, const Fr& g, bool bit_reversed,
                        unsigned threads) {
  ZKP_RETURN_IF_ERROR(check_size(n));
  const unsigned k = static_cast<unsigned>(std::countr_zero(n));
  constexpr unsigned kGrainLog = 12;
  if (!bit_reversed) {
    parallel_for_ranges(n, size_t{1} << kGrainLog, threads, [&](size_t b, size_t e) {
      Fr p = c * g.pow_u64(b);
      for (size_t i = b; i < e; ++i) {
        data[i] *= p;
        p *= g;
      }
    });
    return ok_status();
  }
  // i = hi 2^s + lo: brv(i) = brv_s(lo) 2^(k-s) + brv_(k-s)(hi), so
  // g^brv(i) = g^brv_(k-s)(hi) * low[lo] with low[lo] = (g^(2^(k-s)))^brv_s(lo).
  const unsigned s = std::min(k, kGrainLog);
  std::vector<Fr> low(size_t{1} << s);
  const Fr h = g.pow_u64(uint64_t{1} << (k - s));
  low[0] = Fr::one();
  for (size_t bit = 1; bit < low.size(); bit *= 2) {  // brv_s(lo + bit) = brv_s(lo) + 2^s/2bit
    const Fr step = h.pow_u64(low.size() / (2 * bit));
    for (size_t lo = 0; lo < bit; ++lo) low[lo + bit] = low[lo] * step;
  }
  parallel_for(n >> s, threads, [&](size_t hi) {
    const Fr p = c * g.pow_u64(bit_reverse_bits(hi, k - s));
    Fr* row = data + (hi << s);
    for (size_t lo = 0; lo < low.size(); ++lo) row[lo] *= p * low[lo];
  });
  return ok_status();
}

Status ntt_forward(Fr* data, size_t n, unsigned threads) {
  ZKP_RETURN_IF_ERROR(ntt_nr(data, n, NttDirection::kForward, threads));
  return bit_reverse_permute(data, n, threads);
}

Status ntt_inverse(Fr* data, size_t n, unsigned threads) {
  ZKP_RETURN_IF_ERROR(ntt_nr(data, n, NttDirection::kInverse, threads));
  ZKP_RETURN_IF_ERROR(bit_reverse_permute(data, n, threads));
  const Fr n_inv = Fr::from_u64(n).inverse();
  return ntt_scale_powers(data, n, n_inv, Fr::one(), false, threads);
}

Status ntt_coset_forward(Fr* data, size_t n, unsigned threads) {
  ZKP_RETURN_IF_ERROR(ntt_scale_powers(data, n, Fr::one(), ntt_coset_shift(), false, threads));
  return ntt_forward(data, n, threads);
}

Status ntt_coset_inverse(Fr* data, size_t n, unsigned threads) {
  ZKP_RETURN_IF_ERROR(ntt_nr(data, n, NttDirection::kInverse, threads));
  ZKP_RETURN_IF_ERROR(bit_reverse_permute(data, n, threads));
  const Fr n_inv = Fr::from_u64(n).inverse();
  return ntt_scale_powers(data, n, n_inv, ntt_coset_shift().inverse(), false, threads);
}

Status ntt_radix2(Fr* data, size_t n, NttDirection direction) {
  ZKP_RETURN_IF_ERROR(check_size(n));
  const unsigned k = static_cast<unsigned>(std::countr_zero(n));
  for (size_t i = 0; i < n; ++i) {
    size_t j = bit_reverse_bits(i, k);
    if (i < j) std::swap(data[i], data[j]);
  }
  const bool inv = direction == NttDirection::kInverse;
  for (size_t half = 1; half < n; half *= 2) {
    Fr w = ntt_root_of_unity(static_cast<unsigned>(std::countr_zero(2 * half)));
    if (inv) w = w.inverse();
    for (size_t start = 0; start < n; start += 2 * half) {
      Fr s = Fr::one();
      for (size_t j = start; j < start + half; ++j) {
        Fr v = data[j + half] * s;
        data[j + half] = data[j] - v;
        data[j] += v;
        s *= w;
      }
    }
  }
  if (inv) {
    const Fr n_inv = Fr::from_u64(n).inverse();
    for (size_t i = 0; i < n; ++i) data[i] *= n_inv;
  }
  return ok_status();
}

}  // namespace zkpipe::crypto
