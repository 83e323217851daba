// engine/crypto/ifma_lanes.h (private to zkpipe_crypto): the AVX-512 IFMA lane arithmetic shared
// by batch_add_ifma.cpp (Fp, 8 limbs) and ntt_ifma.cpp (Fr, 5 limbs): 8 field elements side by
// side, each held as N 52-bit limbs per lane, with carries, conditional subtraction, Montgomery
// products against R' = 2^(52 N) and conversion from and to 64-bit limbs. Everything here is
// ZKP_IFMA (callers check the CPU first) and inlined into its caller. Thread-safety: pure
// functions on values.
#pragma once

#if !defined(ZKP_IFMA_EMULATED)
#include <immintrin.h>
#endif

#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "zkpipe/crypto/bigint.h"

// GCC 12 warns that the intrinsics' own _mm512_undefined_epi32() is uninitialized (GCC bug
// 105593, fixed in 13). (Applies to the including file too, which uses the same intrinsics.)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"

// ZKP_IFMA_EMULATED (tests only): the same kernels over scalar stand-ins for the intrinsics
// (ifma_emulation.h), for any x86-64; ZKP_IFMA_VARIANT names the exported functions' inline
// namespace, so both variants link into one test binary.
#if defined(ZKP_IFMA_EMULATED)
#include "ifma_emulation.h"
#define ZKP_IFMA
#define ZKP_IFMA_INLINE inline
#else
#define ZKP_IFMA __attribute__((target("avx512f,avx512ifma")))
#define ZKP_IFMA_INLINE ZKP_IFMA inline __attribute__((always_inline))
#endif

namespace zkpipe::crypto::ifma {

#if defined(ZKP_IFMA_EMULATED)
using V = ifma_emu::V512;
using V256 = ifma_emu::V256;
using Mask = ifma_emu::Mask8;
#else
using V = __m512i;
using V256 = __m256i;
using Mask = __mmask8;
#endif

// 8 elements, N 52-bit limbs per lane, least significant first. Normalized: limbs 0..N-2 below
// 2^52; the top limb may carry more (and, after a signed carry, the sign).
template <int N>
struct Lanes {
  V l[N];
};

inline constexpr uint64_t kM52 = (uint64_t{1} << 52) - 1;

template <int N>
using Limbs52 = std::array<uint64_t, N>;

// A W x 64-bit value -> N 52-bit limbs (limb k = bits [52 k, 52 k + 52)).
template <int N, size_t W>
constexpr Limbs52<N> to52(const Limbs<W>& a) {
  Limbs52<N> r{};
#pragma GCC unroll 8
  for (int k = 0; k < N; ++k) {
    const int bit = 52 * k, w = bit / 64, s = bit % 64;
    uint64_t v = a[w] >> s;
    if (s > 12 && static_cast<size_t>(w + 1) < W) v |= a[w + 1] << (64 - s);
    r[k] = v & kM52;
  }
  return r;
}

// The constants of a Montgomery field F (mont_field.h) in N 52-bit limbs; 2p must fit in them.
template <class F, int N>
struct Field52 {
  static constexpr int kLimbs = N;
  static constexpr Limbs52<N> kP = to52<N>(F::kModulus);
  static constexpr Limbs52<N> k2P = [] {
    typename F::L p2 = F::kModulus;
    limbs_add(p2, F::kModulus);  // 2p below 2^(64 W) for both fields here
    return to52<N>(p2);
  }();
  static constexpr uint64_t kInv52 = F::kInv & kM52;  // -p^-1 mod 2^52
};

ZKP_IFMA_INLINE V bc(uint64_t x) {
  return _mm512_set1_epi64(static_cast<long long>(x));
}

// Signed carry propagation to 52-bit limbs (the top limb keeps the rest, and the sign).
template <int N>
ZKP_IFMA_INLINE void carry(Lanes<N>& x) {
  const V m = bc(kM52);
#pragma GCC unroll 8
  for (int k = 0; k < N - 1; ++k) {
    x.l[k + 1] = _mm512_add_epi64(x.l[k + 1], _mm512_srai_epi64(x.l[k], 52));
    x.l[k] = _mm512_and_si512(x.l[k], m);
  }
}

// x - c where x >= c, else x (x normalized and non-negative, c a constant below 2^(52 N)).
template <int N>
ZKP_IFMA_INLINE Lanes<N> csub(const Lanes<N>& x, const std::type_identity_t<Limbs52<N>>& c) {
  Lanes<N> d;
#pragma GCC unroll 8
  for (int k = 0; k < N; ++k) d.l[k] = _mm512_sub_epi64(x.l[k], bc(c[k]));
  carry(d);
  const Mask neg = _mm512_cmplt_epi64_mask(d.l[N - 1], _mm512_setzero_si512());
#pragma GCC unroll 8
  for (int k = 0; k < N; ++k) d.l[k] = _mm512_mask_blend_epi64(neg, d.l[k], x.l[k]);
  return d;
}

// a + c - b limb by limb, then carried (c a constant making the result non-negative).
template <int N>
ZKP_IFMA_INLINE Lanes<N> add_sub(const Lanes<N>& a, const std::type_identity_t<Limbs52<N>>& c,
                                 const Lanes<N>& b) {
  Lanes<N> y;
#pragma GCC unroll 8
  for (int k = 0; k < N; ++k) y.l[k] = _mm512_sub_epi64(_mm512_add_epi64(a.l[k], bc(c[k])), b.l[k]);
  carry(y);
  return y;
}

// r[j] = M(a[j], b[j]) = a b 2^(-52 N) mod p for C independent products of the field M
// (Field52). Operand scanning, one 52-bit reduction step per limb of b; the C products are
// interleaved instruction by instruction, so that one product's latency (a chain of dependent
// steps per limb) hides behind the others'. For normalized a, b the results are normalized and
// below p + a b 2^(-52 N) (the callers state the bounds of their inputs).
template <class M, int C>
ZKP_IFMA_INLINE void mont_mul_n(Lanes<M::kLimbs>* r, const Lanes<M::kLimbs>* a,
                                const Lanes<M::kLimbs>* b) {
  constexpr int N = M::kLimbs;
  const V zero = _mm512_setzero_si512(), inv = bc(M::kInv52);
  V t[C][N + 1];
#pragma GCC unroll 8
  for (int j = 0; j < C; ++j) {
#pragma GCC unroll 9
    for (int k = 0; k < N + 1; ++k) t[j][k] = zero;
  }
#pragma GCC unroll 8
  for (int i = 0; i < N; ++i) {
#pragma GCC unroll 8
    for (int k = 0; k < N; ++k) {
#pragma GCC unroll 8
      for (int j = 0; j < C; ++j) {
        t[j][k] = _mm512_madd52lo_epu64(t[j][k], a[j].l[k], b[j].l[i]);
        t[j][k + 1] = _mm512_madd52hi_epu64(t[j][k + 1], a[j].l[k], b[j].l[i]);
      }
    }
    V m[C];
#pragma GCC unroll 8
    for (int j = 0; j < C; ++j) m[j] = _mm512_madd52lo_epu64(zero, t[j][0], inv);
#pragma GCC unroll 8
    for (int k = 0; k < N; ++k) {
#pragma GCC unroll 8
      for (int j = 0; j < C; ++j) {
        t[j][k] = _mm512_madd52lo_epu64(t[j][k], m[j], bc(M::kP[k]));
        t[j][k + 1] = _mm512_madd52hi_epu64(t[j][k + 1], m[j], bc(M::kP[k]));
      }
    }
#pragma GCC unroll 8
    for (int j = 0; j < C; ++j) {
      // t[0] is now a multiple of 2^52: pass its carry on and shift down one limb.
      t[j][1] = _mm512_add_epi64(t[j][1], _mm512_srli_epi64(t[j][0], 52));
#pragma GCC unroll 8
      for (int k = 0; k < N; ++k) t[j][k] = t[j][k + 1];
      t[j][N] = zero;
    }
  }
#pragma GCC unroll 8
  for (int j = 0; j < C; ++j) {
#pragma GCC unroll 8
    for (int k = 0; k < N; ++k) r[j].l[k] = t[j][k];
    carry(r[j]);
  }
}

template <class M>
ZKP_IFMA_INLINE Lanes<M::kLimbs> mont_mul(const Lanes<M::kLimbs>& a, const Lanes<M::kLimbs>& b) {
  Lanes<M::kLimbs> r;
  mont_mul_n<M, 1>(&r, &a, &b);
  return r;
}

// ---- conversion between W 64-bit limb vectors and N 52-bit limbs ------------------------------
namespace detail {

// Bits [S, S + 64) of hi:lo.
template <int S>
ZKP_IFMA_INLINE V cat(V lo, V hi) {
  return _mm512_or_si512(_mm512_srli_epi64(lo, S), _mm512_slli_epi64(hi, 64 - S));
}

// Limb K (bits [52 K, 52 K + 52)) of the W-limb value a; the top limb unmasked (it holds the
// value's remaining bits).
template <int W, int N, int K>
ZKP_IFMA_INLINE V split_limb(const V* a) {
  constexpr int kBit = 52 * K, kW = kBit / 64, kS = kBit % 64;
  V v;
  if constexpr (kS == 0) {
    v = a[kW];
  } else if constexpr (kS > 12 && kW + 1 < W) {
    v = cat<kS>(a[kW], a[kW + 1]);
  } else {
    v = _mm512_srli_epi64(a[kW], kS);
  }
  if constexpr (K + 1 == N) {
    return v;
  } else {
    return _mm512_and_si512(v, bc(kM52));
  }
}

template <int W, int N, int... K>
ZKP_IFMA_INLINE Lanes<N> split(const V* a, std::integer_sequence<int, K...>) {
  return {{split_limb<W, N, K>(a)...}};
}

// The part of limb K (52-bit, at bit 52 K) inside 64-bit word D, or zero.
template <int D, int K>
ZKP_IFMA_INLINE V join_part(const V* l) {
  constexpr int kShift = 52 * K - 64 * D;  // where limb K starts within word D
  if constexpr (kShift <= -52 || kShift >= 64) {
    return _mm512_setzero_si512();
  } else if constexpr (kShift >= 0) {
    return _mm512_slli_epi64(l[K], kShift);
  } else {
    return _mm512_srli_epi64(l[K], -kShift);
  }
}

template <int D, int... K>
ZKP_IFMA_INLINE V join_word(const V* l, std::integer_sequence<int, K...>) {
  V r = _mm512_setzero_si512();
  ((r = _mm512_or_si512(r, join_part<D, K>(l))), ...);
  return r;
}

template <int N, int... D>
ZKP_IFMA_INLINE void join(const V* l, V* a, std::integer_sequence<int, D...>) {
  ((a[D] = join_word<D>(l, std::make_integer_sequence<int, N>{})), ...);
}

}  // namespace detail

// W 64-bit limb vectors a[0..W-1] (a value below 2^(64 W) per lane) -> N 52-bit limbs.
template <int N, int W>
ZKP_IFMA_INLINE Lanes<N> split(const V* a) {
  static_assert(52 * N >= 64 * W);
  return detail::split<W, N>(a, std::make_integer_sequence<int, N>{});
}

// N 52-bit limbs (normalized, value below 2^(64 W)) -> W 64-bit limb vectors.
template <int W, int N>
ZKP_IFMA_INLINE void join(const Lanes<N>& x, V* a) {
  static_assert(52 * N >= 64 * W);
  detail::join<N>(x.l, a, std::make_integer_sequence<int, W>{});
}

// ---- 4 x 64-bit words of 8 lanes, two lanes per vector <-> one vector per word ----------------
// z[i] holds 4 qwords of lane 2i (low half) and of lane 2i + 1 (high half) -> c[0..3], lane l
// of c[k] = qword k of lane l.
ZKP_IFMA_INLINE void from_pairs(const V* z, V* c) {
  const V t0 = _mm512_unpacklo_epi64(z[0], z[1]), t1 = _mm512_unpackhi_epi64(z[0], z[1]);
  const V t2 = _mm512_unpacklo_epi64(z[2], z[3]), t3 = _mm512_unpackhi_epi64(z[2], z[3]);
  const V ia = _mm512_setr_epi64(0, 4, 1, 5, 8, 12, 9, 13);
  const V ib = _mm512_setr_epi64(2, 6, 3, 7, 10, 14, 11, 15);
  c[0] = _mm512_permutex2var_epi64(t0, ia, t2);
  c[1] = _mm512_permutex2var_epi64(t1, ia, t3);
  c[2] = _mm512_permutex2var_epi64(t0, ib, t2);
  c[3] = _mm512_permutex2var_epi64(t1, ib, t3);
}

// The inverse of from_pairs.
ZKP_IFMA_INLINE void to_pairs(const V* c, V* z) {
  const V ia = _mm512_setr_epi64(0, 2, 8, 10, 1, 3, 9, 11);
  const V ib = _mm512_setr_epi64(4, 6, 12, 14, 5, 7, 13, 15);
  const V t0 = _mm512_permutex2var_epi64(c[0], ia, c[2]);
  const V t1 = _mm512_permutex2var_epi64(c[1], ia, c[3]);
  const V t2 = _mm512_permutex2var_epi64(c[0], ib, c[2]);
  const V t3 = _mm512_permutex2var_epi64(c[1], ib, c[3]);
  z[0] = _mm512_unpacklo_epi64(t0, t1);
  z[1] = _mm512_unpackhi_epi64(t0, t1);
  z[2] = _mm512_unpacklo_epi64(t2, t3);
  z[3] = _mm512_unpackhi_epi64(t2, t3);
}

}  // namespace zkpipe::crypto::ifma
