// The AVX-512 IFMA NTT drivers (ntt_kernels.h): 8 butterflies at once, Fr held as five 52-bit
// limbs per lane, Montgomery products with R' = 2^260 against twiddles stored as 16 T (so data
// keeps Fr's 2^256 form), values kept in [0, 2r) inside a pass and reduced below r on store.
// Sweeps put 8 consecutive positions of one block in the lanes; the chunk phase puts 8 chunks in
// the lanes of a private buffer, so no stage shuffles lanes. Only the functions marked
// ZKP_IFMA use AVX-512; they run only when ntt_ifma_available(). Thread-safety: as ntt.h.
#include <algorithm>
#include <bit>
#include <cstdlib>
#include <memory>

#include "ifma_lanes.h"
#include "ntt_kernels.h"
#include "zkpipe/crypto/cpu_kernels.h"
#include "zkpipe/crypto/parallel.h"

namespace zkpipe::crypto {
namespace {

// log2 of the chunk size: 8 chunks of 2^11 in 5 limbs x 8 bytes = 640 KiB of buffer per thread
// (within L2 of the Xeon used; 10 and 11 measured equal on 2^20, 12 slower).
constexpr unsigned kChunkLog = 11;
constexpr size_t kSweepGrain = size_t{1} << 10;  // radix-4 butterflies per sweep task

using ifma::bc;
using ifma::carry;
using ifma::csub;
using ifma::V;
using F5 = ifma::Lanes<5>;
using FrLanes = ifma::Field52<Fr, 5>;
constexpr const ifma::Limbs52<5>& kP = FrLanes::kP;
constexpr const ifma::Limbs52<5>& k2P = FrLanes::k2P;

// a + b, both in [0, 2r): result in [0, 2r).
ZKP_IFMA_INLINE F5 add2(const F5& a, const F5& b) {
  F5 y;
#pragma GCC unroll 8
  for (int k = 0; k < 5; ++k) y.l[k] = _mm512_add_epi64(a.l[k], b.l[k]);
  carry(y);
  return csub(y, k2P);
}

// a - b + 2r for a, b in [0, 2r): result in (0, 4r), normalized, not reduced.
ZKP_IFMA_INLINE F5 sub_lazy(const F5& a, const F5& b) {
  return ifma::add_sub(a, k2P, b);
}

// a b 2^-260 mod r for a < 4r and b < r (b = 16 T): the result is below 1.125 r.
ZKP_IFMA_INLINE F5 mont_mul(const F5& a, const F5& b) {
  return ifma::mont_mul<FrLanes>(a, b);
}

// ---- conversion between 8 Fr (4 x 64-bit limbs, AoS) and F5 ------------------------------------
ZKP_IFMA_INLINE F5 load8(const Fr* p) {
  const auto* q = reinterpret_cast<const uint64_t*>(p);
  V z[4], c[4];
#pragma GCC unroll 8
  for (int i = 0; i < 4; ++i) z[i] = _mm512_loadu_si512(q + 8 * i);
  ifma::from_pairs(z, c);
  return ifma::split<5, 4>(c);
}

// Lane l from p[l] (any addresses).
ZKP_IFMA_INLINE F5 gather8(const Fr* const* p) {
  V v[4];
#pragma GCC unroll 8
  for (int i = 0; i < 4; ++i) {
    const V lo =
        _mm512_castsi256_si512(_mm256_loadu_si256(reinterpret_cast<const ifma::V256*>(p[2 * i])));
    v[i] = _mm512_inserti64x4(
        lo, _mm256_loadu_si256(reinterpret_cast<const ifma::V256*>(p[2 * i + 1])), 1);
  }
  V c[4];
  ifma::from_pairs(v, c);
  return ifma::split<5, 4>(c);
}

ZKP_IFMA_INLINE F5 broadcast(const Fr& x) {
  const auto l = ifma::to52<5>(Fr::L{x.l[0], x.l[1], x.l[2], x.l[3]});
  return {{bc(l[0]), bc(l[1]), bc(l[2]), bc(l[3]), bc(l[4])}};
}

// Reduces x (< 2r) below r and writes the lanes as 4 x 64-bit pairs (0,1), (2,3), (4,5), (6,7).
ZKP_IFMA_INLINE void to_pairs(const F5& in, V out[4]) {
  V c[4];
  ifma::join<4>(csub(in, kP), c);
  ifma::to_pairs(c, out);
}

ZKP_IFMA_INLINE void store8(Fr* p, const F5& x) {
  V v[4];
  to_pairs(x, v);
  auto* q = reinterpret_cast<uint64_t*>(p);
#pragma GCC unroll 8
  for (int i = 0; i < 4; ++i) _mm512_storeu_si512(q + 8 * i, v[i]);
}

ZKP_IFMA_INLINE void scatter8(Fr* const* p, const F5& x) {
  V v[4];
  to_pairs(x, v);
#pragma GCC unroll 8
  for (int i = 0; i < 4; ++i) {
    _mm256_storeu_si256(reinterpret_cast<ifma::V256*>(p[2 * i]), _mm512_castsi512_si256(v[i]));
    _mm256_storeu_si256(reinterpret_cast<ifma::V256*>(p[2 * i + 1]),
                        _mm512_extracti64x4_epi64(v[i], 1));
  }
}

// ---- butterflies (kOne: the twiddles s and s1 are 1) ------------------------------------------
template <bool kGs, bool kOne>
ZKP_IFMA_INLINE void bf2(F5& x0, F5& x1, const F5& s) {
  if constexpr (kGs) {
    const F5 d = sub_lazy(x0, x1);
    x0 = add2(x0, x1);
    x1 = kOne ? csub(d, k2P) : mont_mul(d, s);
  } else {
    const F5 v = kOne ? x1 : mont_mul(x1, s);
    x1 = csub(sub_lazy(x0, v), k2P);
    x0 = add2(x0, v);
  }
}

template <bool kGs, bool kOne>
ZKP_IFMA_INLINE void bf4(F5* x, const F5& s, const F5& s1, const F5& s2) {
  if constexpr (kGs) {
    bf2<true, kOne>(x[0], x[1], s1);
    bf2<true, false>(x[2], x[3], s2);
    bf2<true, kOne>(x[0], x[2], s);
    bf2<true, kOne>(x[1], x[3], s);
  } else {
    bf2<false, kOne>(x[0], x[2], s);
    bf2<false, kOne>(x[1], x[3], s);
    bf2<false, kOne>(x[0], x[1], s1);
    bf2<false, false>(x[2], x[3], s2);
  }
}

// ---- sweeps: lanes = positions j .. j + 7 of one block ----------------------------------------
template <bool kGs, bool kOne>
ZKP_IFMA void sweep_block(Fr* x, size_t m, unsigned radix_log, const Fr* s16, size_t j0,
                          size_t j1) {
  const F5 s = broadcast(s16[0]), s1 = broadcast(s16[1]), s2 = broadcast(s16[2]);
  for (size_t j = j0; j < j1; j += 8) {
    F5 v[4];
    for (unsigned r = 0; r < (1u << radix_log); ++r) v[r] = load8(x + j + r * m);
    radix_log == 2 ? bf4<kGs, kOne>(v, s, s1, s2) : bf2<kGs, kOne>(v[0], v[1], s);
    for (unsigned r = 0; r < (1u << radix_log); ++r) store8(x + j + r * m, v[r]);
  }
}

template <bool kGs>
void sweep(Fr* a, size_t n, unsigned t, unsigned radix_log, const NttTwiddles& tw,
           unsigned threads) {
  const size_t m = n >> (t + radix_log);  // a multiple of 8
  const size_t grain = std::max<size_t>(kSweepGrain, 8);
  parallel_for_ranges((n >> radix_log) / 8, grain / 8, threads, [&](size_t begin, size_t end) {
    for (size_t q = begin * 8; q < end * 8;) {
      const size_t b = q / m, j0 = q % m, j1 = std::min(m, j0 + (end * 8 - q));
      const Fr s16[3] = {tw.get16(b), tw.get16(2 * b), tw.get16(2 * b + 1)};
      Fr* x = a + (b * m << radix_log);
      b == 0 ? sweep_block<kGs, true>(x, m, radix_log, s16, j0, j1)
             : sweep_block<kGs, false>(x, m, radix_log, s16, j0, j1);
      q += j1 - j0;
    }
  });
}

// ---- chunk phase: lanes = chunks c0 .. c0 + 7 (2^l elements each) -----------------------------
ZKP_IFMA F5 lane_twiddles(const NttTwiddles& tw, const size_t* g) {
  const Fr* lo[8];
  bool high = false;
#pragma GCC unroll 8
  for (int i = 0; i < 8; ++i) {
    lo[i] = tw.table16 + (g[i] & NttTwiddles::kLowMask);
    high |= (g[i] >> kNttTableLog) != 0;
  }
  if (!high) return gather8(lo);
  const Fr* hi[8];
#pragma GCC unroll 8
  for (int i = 0; i < 8; ++i) hi[i] = tw.high16.data() + (g[i] >> kNttTableLog);
  return mont_mul(gather8(lo), gather8(hi));
}

template <bool kGs>
ZKP_IFMA void chunk_group(Fr* a, unsigned l, size_t c0, const NttTwiddles& tw, F5* buf) {
  const size_t len = size_t{1} << l;
  const Fr* src[8];
  for (size_t e = 0; e < len; ++e) {
#pragma GCC unroll 8
    for (int i = 0; i < 8; ++i) src[i] = a + ((c0 + i) << l) + e;
    buf[e] = gather8(src);
  }
  auto stage = [&](unsigned u, unsigned radix_log) ZKP_IFMA {
    const size_t m = len >> (u + radix_log);
    for (size_t b = 0; b < (size_t{1} << u); ++b) {
      size_t g[8], g1[8], g2[8];
#pragma GCC unroll 8
      for (int i = 0; i < 8; ++i) {
        g[i] = ((c0 + i) << u) + b;
        g1[i] = 2 * g[i];
        g2[i] = 2 * g[i] + 1;
      }
      const F5 s = lane_twiddles(tw, g);
      F5* x = buf + (b * m << radix_log);
      if (radix_log == 1) {
        for (size_t j = 0; j < m; ++j) bf2<kGs, false>(x[j], x[j + m], s);
        continue;
      }
      const F5 s1 = lane_twiddles(tw, g1), s2 = lane_twiddles(tw, g2);
      for (size_t j = 0; j < m; ++j) {
        F5 v[4] = {x[j], x[j + m], x[j + 2 * m], x[j + 3 * m]};
        bf4<kGs, false>(v, s, s1, s2);
        x[j] = v[0];
        x[j + m] = v[1];
        x[j + 2 * m] = v[2];
        x[j + 3 * m] = v[3];
      }
    }
  };
  if (!kGs) {
    unsigned u = 0;
    for (; u + 1 < l; u += 2) stage(u, 2);
    if (u < l) stage(u, 1);
  } else {
    unsigned u = l;
    if (l % 2 == 1) stage(--u, 1);
    while (u >= 2) stage(u -= 2, 2);
  }
  Fr* dst[8];
  for (size_t e = 0; e < len; ++e) {
#pragma GCC unroll 8
    for (int i = 0; i < 8; ++i) dst[i] = a + ((c0 + i) << l) + e;
    scatter8(dst, buf[e]);
  }
}

struct AlignedFree {
  void operator()(F5* p) const { std::free(p); }
};

template <bool kGs>
void run(Fr* a, size_t n, const NttTwiddles& tw, unsigned threads) {
  const unsigned k = static_cast<unsigned>(std::countr_zero(n));
  const unsigned l = std::min(kChunkLog, k - 3);  // at least 8 chunks of at least 8
  const unsigned top = k - l;
  auto chunks = [&] {
    parallel_for(n >> (l + 3), threads, [&](size_t group) {
      thread_local std::unique_ptr<F5, AlignedFree> buf;
      thread_local size_t buf_len = 0;
      if (buf_len < (size_t{1} << l)) {
        buf.reset(static_cast<F5*>(std::aligned_alloc(64, sizeof(F5) << l)));
        buf_len = size_t{1} << l;
      }
      chunk_group<kGs>(a, l, group * 8, tw, buf.get());
    });
  };
  ntt_run_stages<kGs>(
      top, [&](unsigned t, unsigned stages) { sweep<kGs>(a, n, t, stages, tw, threads); }, chunks);
}

}  // namespace

inline namespace ZKP_IFMA_VARIANT {

bool ntt_ifma_available() {
#if defined(ZKP_IFMA_EMULATED)
  return true;
#else
  return cpu_ifma_active();  // the CPU has IFMA and ZKPIPE_CPU_KERNELS is not `scalar`
#endif
}

void ntt_ifma_run(Fr* data, size_t n, const NttTwiddles& tw, bool gs, unsigned threads) {
  gs ? run<true>(data, n, tw, threads) : run<false>(data, n, tw, threads);
}

}  // namespace ZKP_IFMA_VARIANT
}  // namespace zkpipe::crypto
