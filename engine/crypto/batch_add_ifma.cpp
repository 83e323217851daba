// Batched affine G1 additions with AVX-512 IFMA (batch_add_ifma.h): 8 additions side by side,
// Fp held as eight 52-bit limbs per lane (416 bits), one field inversion per batch.
//
// Products are Montgomery products with R' = 2^416: M(a, b) = a b 2^-416 mod p. Values stay in
// Fp's own form (x 2^384) without any conversion by tracking the power of two each value carries
// ("form" e: stored = value 2^e mod p), since M maps forms (e, f) to e + f - 416:
//   - dx, dy, x, y are in form 384 (as loaded);
//   - the prefix products pre_g = dx_0 .. dx_(g-1) drift by -32 per factor (form 416 - 32 g), and
//     so do the suffix inverses, so the inverse of each dx comes out in a form independent of its
//     position: the inversion step (invert_totals) makes that form 448;
//   - lambda = M(dy, 1/dx) is then in form 416, M(lambda, lambda) too, and one 32-bit Montgomery
//     halving step (div32) brings lambda^2 to form 384 for x3; y3 = M(lambda, x1 - x3) is in form
//     384 directly.
// So an addition costs the scalar code's 6 products plus one div32 (about a fifth of a product).
//
// Lane l of group g is addition 8 g + l. Three passes: forward (load the points with whole-point
// loads and a transpose, dx, dy, the 8 lanes' prefix chains), backward (the suffix inverses: two
// independent products per group), and the additions (two groups interleaved). The 8 lane totals
// are inverted together by a product tree across the lanes and one scalar inversion (Bernstein-
// Yang divsteps, variable time). Bounds: M(a, b) < p (1 + 2^-29) < 2p for a, b < 8p (as 2^416 >
// 2^35 p); every multiplication input here is below 2p; outputs are reduced below p before they
// are stored. Batches above kMaxBatch run in parts (scratch stays within L2).
//
// Only the functions marked ZKP_IFMA use AVX-512; they run only when
// batch_add_g1_ifma_available(). Thread-safety: per-thread scratch, so calls may run concurrently.
#include "batch_add_ifma.h"

#include <algorithm>
#include <cstddef>
#include <vector>

#include "ifma_lanes.h"
#include "zkpipe/crypto/bigint.h"
#include "zkpipe/crypto/cpu_kernels.h"

namespace zkpipe::crypto::msm_detail {
namespace {

using ifma::add_sub;
using ifma::bc;
using ifma::carry;
using ifma::csub;
using ifma::kM52;
using ifma::Mask;
using ifma::V;
using ifma::V256;
using F8 = ifma::Lanes<8>;  // l[7] may carry more after a signed carry
using FpLanes = ifma::Field52<Fp, 8>;
using L52 = ifma::Limbs52<8>;
constexpr const L52& kP = FpLanes::kP;
constexpr const L52& k2P = FpLanes::k2P;

constexpr Fp fp_raw(const Fp::L& v) {
  return {{v[0], v[1], v[2], v[3], v[4], v[5]}};
}
// Stored 2^1216 mod p: for a value C in form e, the Montgomery product of the integer C^-1 mod p
// and this is its inverse in form 832 - e (invert_totals).
constexpr Fp kInvScale = fp_raw(limbs_pow2_mod(1216, Fp::kModulus));

// Padding lanes of the last group read these (never written): dx = 1 + p != 0 mod p.
const G1Affine kDummyDst = {Fp::zero(), Fp::zero(), false};
const G1Affine kDummySrc = {{{1, 0, 0, 0, 0, 0}}, Fp::zero(), false};

// Per-group scratch of the forward pass, kept for the later ones (SoA, 8 limbs x 8 lanes); the
// backward pass replaces pre by the inverses of dx.
struct alignas(64) Group {
  uint64_t dx[64], pre[64], x1[64], x2[64], y1[64], dy[64];
};

ZKP_IFMA_INLINE F8 load(const uint64_t* p) {
  F8 x;
#pragma GCC unroll 8
  for (int k = 0; k < 8; ++k) x.l[k] = _mm512_load_si512(p + 8 * k);
  return x;
}
ZKP_IFMA_INLINE void store(uint64_t* p, const F8& x) {
#pragma GCC unroll 8
  for (int k = 0; k < 8; ++k) _mm512_store_si512(p + 8 * k, x.l[k]);
}

// M(a, b) = a b 2^-416 mod p for N independent pairs (interleaved): for normalized a, b < 8p the
// results are normalized and below p (1 + 2^-29).
template <int N>
ZKP_IFMA_INLINE void mont_mul_n(F8* r, const F8* a, const F8* b) {
  ifma::mont_mul_n<FpLanes, N>(r, a, b);
}

ZKP_IFMA_INLINE F8 mont_mul(const F8& a, const F8& b) {
  return ifma::mont_mul<FpLanes>(a, b);
}

// s 2^-32 mod p for normalized s < 2p: one 32-bit Montgomery step, s + m p with the low 32 bits
// cleared, shifted down. The result is normalized and below 2p.
ZKP_IFMA_INLINE F8 div32(const F8& s) {
  const V m = _mm512_and_si512(
      _mm512_madd52lo_epu64(_mm512_setzero_si512(), s.l[0], bc(FpLanes::kInv52)), bc(0xffffffffu));
  F8 t = s;
#pragma GCC unroll 8
  for (int k = 0; k < 8; ++k) {
    t.l[k] = _mm512_madd52lo_epu64(t.l[k], m, bc(kP[k]));
    // m p_7 < 2^32 2^17: its high half is zero.
    if (k < 7) t.l[k + 1] = _mm512_madd52hi_epu64(t.l[k + 1], m, bc(kP[k]));
  }
  carry(t);
  F8 r;
  const V mask = bc(kM52);
#pragma GCC unroll 8
  for (int k = 0; k < 7; ++k) {
    r.l[k] = _mm512_or_si512(_mm512_srli_epi64(t.l[k], 32),
                             _mm512_and_si512(_mm512_slli_epi64(t.l[k + 1], 20), mask));
  }
  r.l[7] = _mm512_srli_epi64(t.l[7], 32);
  return r;
}

// ---- conversion between 64-bit limbs (AoS, in the points) and F8 ------------------------------
// Six 64-bit limb vectors a[0..5] (a value below 2^384 per lane) -> F8.
ZKP_IFMA_INLINE F8 split(const V* a) {
  return ifma::split<8, 6>(a);
}

// F8 (normalized, below 2^384) -> six 64-bit limb vectors.
ZKP_IFMA_INLINE void join(const F8& x, V* a) {
  ifma::join<6>(x, a);
}

// ---- moving 8 points' coordinates in and out (x and y: 12 qwords at the start of a point) ------
static_assert(offsetof(G1Affine, x) == 0 && offsetof(G1Affine, y) == 48);

// 8 x 8 transpose of 64-bit elements: element l of c[k] = element k of r[l] (its own inverse).
ZKP_IFMA_INLINE void transpose8(const V* r, V* c) {
  V t[8], u[8];
#pragma GCC unroll 8
  for (int i = 0; i < 4; ++i) {
    t[2 * i] = _mm512_unpacklo_epi64(r[2 * i], r[2 * i + 1]);      // columns 0 2 4 6 of 2 rows
    t[2 * i + 1] = _mm512_unpackhi_epi64(r[2 * i], r[2 * i + 1]);  // columns 1 3 5 7
  }
#pragma GCC unroll 8
  for (int h = 0; h < 2; ++h) {  // rows 0-3, rows 4-7
    V* w = u + 4 * h;
    const V* s = t + 4 * h;
    w[0] = _mm512_shuffle_i64x2(s[0], s[2], 0x88);  // columns 0 4 of 4 rows
    w[1] = _mm512_shuffle_i64x2(s[0], s[2], 0xdd);  // columns 2 6
    w[2] = _mm512_shuffle_i64x2(s[1], s[3], 0x88);  // columns 1 5
    w[3] = _mm512_shuffle_i64x2(s[1], s[3], 0xdd);  // columns 3 7
  }
  c[0] = _mm512_shuffle_i64x2(u[0], u[4], 0x88);
  c[4] = _mm512_shuffle_i64x2(u[0], u[4], 0xdd);
  c[2] = _mm512_shuffle_i64x2(u[1], u[5], 0x88);
  c[6] = _mm512_shuffle_i64x2(u[1], u[5], 0xdd);
  c[1] = _mm512_shuffle_i64x2(u[2], u[6], 0x88);
  c[5] = _mm512_shuffle_i64x2(u[2], u[6], 0xdd);
  c[3] = _mm512_shuffle_i64x2(u[3], u[7], 0x88);
  c[7] = _mm512_shuffle_i64x2(u[3], u[7], 0xdd);
}

// x and y of 8 points (one per lane), as F8. Whole-point loads and a transpose (12 vectors from
// 16 loads and 36 shuffles) measured a few percent faster overall than 12 gathers.
ZKP_IFMA_INLINE void load_points(const G1Affine* const* p, F8& x, F8& y) {
  V r[8], z[4], c[12];
#pragma GCC unroll 8
  for (int l = 0; l < 8; ++l) r[l] = _mm512_loadu_si512(p[l]->x.l);  // qwords 0..7
#pragma GCC unroll 8
  for (int i = 0; i < 4; ++i) {  // qwords 8..11
    const V lo = _mm512_castsi256_si512(
        _mm256_loadu_si256(reinterpret_cast<const V256*>(p[2 * i]->y.l + 2)));
    z[i] = _mm512_inserti64x4(
        lo, _mm256_loadu_si256(reinterpret_cast<const V256*>(p[2 * i + 1]->y.l + 2)), 1);
  }
  transpose8(r, c);
  ifma::from_pairs(z, c + 8);
  x = split(c);
  y = split(c + 6);
}

// Writes x and y (normalized, below p) to the points of lanes [0, count).
ZKP_IFMA_INLINE void store_points(G1Affine* const* p, size_t count, const F8& x, const F8& y) {
  V c[12], r[8], z[4];
  join(x, c);
  join(y, c + 6);
  transpose8(c, r);
  ifma::to_pairs(c + 8, z);
#pragma GCC unroll 8
  for (int l = 0; l < 8; ++l) {
    if (static_cast<size_t>(l) >= count) break;
    _mm512_storeu_si512(p[l]->x.l, r[l]);
    const V256 hi =
        l % 2 == 0 ? _mm512_castsi512_si256(z[l / 2]) : _mm512_extracti64x4_epi64(z[l / 2], 1);
    _mm256_storeu_si256(reinterpret_cast<V256*>(p[l]->y.l + 2), hi);
  }
}

// Lane l of the result = lane l ^ S of x (S = 1, 2, 4).
template <int S>
ZKP_IFMA_INLINE F8 swap_lanes(const F8& x) {
  F8 r;
#pragma GCC unroll 8
  for (int k = 0; k < 8; ++k) {
    if constexpr (S == 1) {
      r.l[k] = _mm512_permutex_epi64(x.l[k], 0xb1);
    } else if constexpr (S == 2) {
      r.l[k] = _mm512_permutex_epi64(x.l[k], 0x4e);
    } else {
      r.l[k] = _mm512_shuffle_i64x2(x.l[k], x.l[k], 0x4e);
    }
  }
  return r;
}

// The 8 lane totals t_l (each below 2p, all in one form f) -> their inverses in form 832 - f,
// by Montgomery's trick across the lanes as a product tree (pairs, quads, all 8: 6 products
// instead of 22 scalar ones) and one scalar inversion. With a ~ b = M(a, b): the pair
// products are in form 2f - 416, the quads 4f - 1248, the total 8f - 2912; the scalar step
// gives the total's inverse in form 2912 - 8f + 832, and each step down, M(inverse of the
// parent, sibling), keeps "inverse of x in form 832 - form(x)".
ZKP_IFMA F8 invert_totals(const F8& total) {
  const F8 pairs = mont_mul(total, swap_lanes<1>(total));
  const F8 quads = mont_mul(pairs, swap_lanes<2>(pairs));
  const F8 all = csub(mont_mul(quads, swap_lanes<4>(quads)), kP);  // one residue in every lane
  V w[6];
  join(all, w);
  Fp::L c;
#pragma GCC unroll 8
  for (int k = 0; k < 6; ++k)
    c[k] = static_cast<uint64_t>(_mm_cvtsi128_si64(_mm512_castsi512_si128(w[k])));
  // Non-zero: a product of non-zero dx.
  const Fp ci = fp_raw(fp_inverse_vartime(c)) * kInvScale;
#pragma GCC unroll 8
  for (int k = 0; k < 6; ++k) w[k] = bc(ci.l[k]);
  const F8 inv_quads = mont_mul(split(w), swap_lanes<4>(quads));
  const F8 inv_pairs = mont_mul(inv_quads, swap_lanes<2>(pairs));
  return mont_mul(inv_pairs, swap_lanes<1>(total));
}

// The group's 8 dst and src pointers (dummies in lanes past the end).
ZKP_IFMA_INLINE void lane_points(G1Affine* const* dst, const G1Affine* const* src, size_t count,
                                 G1Affine** d, const G1Affine** s) {
#pragma GCC unroll 8
  for (size_t l = 0; l < 8; ++l) {
    d[l] = l < count ? dst[l] : const_cast<G1Affine*>(&kDummyDst);  // never written
    s[l] = l < count ? src[l] : &kDummySrc;
  }
}

// Groups gr[0 .. N) (pre slots holding 1 / dx, form 448; count: the additions left from the
// first): x3 and y3 into the dst points. The N groups' products are interleaved.
template <int N>
ZKP_IFMA_INLINE void add_groups(G1Affine* const* dst, size_t count, const Group* gr) {
  F8 dy[N], inv[N], lambda[N], sq[N], x3[N], t[N];
#pragma GCC unroll 8
  for (int j = 0; j < N; ++j) {
    dy[j] = load(gr[j].dy);
    inv[j] = load(gr[j].pre);
  }
  mont_mul_n<N>(lambda, dy, inv);     // form 416
  mont_mul_n<N>(sq, lambda, lambda);  // form 416 (a dedicated square measured no faster)
#pragma GCC unroll 8
  for (int j = 0; j < N; ++j) {
    // x3 = lambda^2 + 2p - x1 - x2 in (0, 4p) (lambda^2 in form 384, below 2p), reduced below p.
    const F8 lambda2 = div32(sq[j]);
    const F8 x1 = load(gr[j].x1), x2 = load(gr[j].x2);
#pragma GCC unroll 8
    for (int k = 0; k < 8; ++k) {
      x3[j].l[k] = _mm512_sub_epi64(_mm512_add_epi64(lambda2.l[k], bc(k2P[k])),
                                    _mm512_add_epi64(x1.l[k], x2.l[k]));
    }
    carry(x3[j]);
    x3[j] = csub(csub(x3[j], k2P), kP);
    t[j] = add_sub(x1, kP, x3[j]);  // in (0, 2p)
  }
  mont_mul_n<N>(sq, lambda, t);
#pragma GCC unroll 8
  for (int j = 0; j < N; ++j) {
    // y3 = lambda (x1 + p - x3) + p - y1 in (0, 3p), reduced below p.
    const F8 y3 = csub(csub(add_sub(sq[j], kP, load(gr[j].y1)), k2P), kP);
    store_points(dst + 8 * j, count - 8 * j, x3[j], y3);
  }
}

ZKP_IFMA void run(G1Affine* const* dst, const G1Affine* const* src, const uint8_t* neg, size_t m,
                  Group* groups) {
  const size_t n = (m + 7) / 8;

  // Forward: dx, dy per lane and the prefix products pre_g = dx_0 .. dx_(g-1) (form 416 - 32 g).
  F8 acc;
  for (size_t g = 0; g < n; ++g) {
    const size_t count = m - 8 * g;
    G1Affine* d[8];
    const G1Affine* s[8];
    lane_points(dst + 8 * g, src + 8 * g, count, d, s);
    Mask flip = 0;
    for (size_t l = 0; l < 8 && l < count; ++l) {
      flip |= static_cast<Mask>((neg[8 * g + l] != 0) << l);
    }
    F8 x1, y1, x2, y2;
    load_points(d, x1, y1);
    load_points(s, x2, y2);
    const F8 dx = add_sub(x2, kP, x1);  // in (0, 2p)
    // dy = (neg ? p - y2 : y2) + p - y1, in (0, 2p].
    F8 dy;
#pragma GCC unroll 8
    for (int k = 0; k < 8; ++k) {
      const V p = bc(kP[k]);
      const V t = _mm512_mask_sub_epi64(y2.l[k], flip, p, y2.l[k]);
      dy.l[k] = _mm512_sub_epi64(_mm512_add_epi64(t, p), y1.l[k]);
    }
    carry(dy);
    Group& gr = groups[g];
    store(gr.x1, x1);
    store(gr.x2, x2);
    store(gr.y1, y1);
    store(gr.dy, dy);
    store(gr.dx, dx);
    if (g == 0) {
      acc = dx;
    } else {
      store(gr.pre, acc);
      acc = mont_mul(acc, dx);
    }
  }

  // inv_acc: the inverse of pre_(g+1), in form 416 + 32 (g + 1), so that M(inv_acc, pre_g),
  // the inverse of dx_g, is in form 448 for every g. The two products per step are
  // independent (interleaved); inv_g replaces pre_g.
  F8 inv_acc = invert_totals(acc);
  for (size_t g = n; g-- > 1;) {
    Group& gr = groups[g];
    const F8 a[2] = {inv_acc, inv_acc}, b[2] = {load(gr.pre), load(gr.dx)};
    F8 r[2];
    mont_mul_n<2>(r, a, b);
    store(gr.pre, r[0]);
    inv_acc = r[1];
  }
  store(groups[0].pre, inv_acc);  // pre_0 would be 1 in form 416: M(inv_acc, pre_0) = inv_acc

  // The additions themselves, two groups at a time.
  size_t g = 0;
  for (; g + 2 <= n; g += 2) add_groups<2>(dst + 8 * g, m - 8 * g, groups + g);
  if (g < n) add_groups<1>(dst + 8 * g, m - 8 * g, groups + g);
}

struct Scratch {
  std::vector<Group> groups;
};

// Additions per inversion at most: 256 groups of scratch (768 KiB); an inversion per 2048
// additions costs under 2 ns per addition.
constexpr size_t kMaxBatch = 2048;

}  // namespace

inline namespace ZKP_IFMA_VARIANT {

bool batch_add_g1_ifma_available() {
#if defined(ZKP_IFMA_EMULATED)
  return true;
#else
  return cpu_ifma_active();  // the CPU has IFMA and ZKPIPE_CPU_KERNELS is not `scalar`
#endif
}

uint64_t batch_add_g1_ifma_scratch_bytes(size_t m) {
  return (std::min(m, kMaxBatch) + 7) / 8 * sizeof(Group);
}

void batch_add_g1_ifma(G1Affine* const* dst, const G1Affine* const* src, const uint8_t* neg,
                       size_t m) {
  thread_local Scratch scratch;
  for (size_t i = 0; i < m; i += kMaxBatch) {
    const size_t part = std::min(kMaxBatch, m - i), n = (part + 7) / 8;
    if (scratch.groups.size() < n) scratch.groups.resize(n);
    run(dst + i, src + i, neg + i, part, scratch.groups.data());
  }
}

}  // namespace ZKP_IFMA_VARIANT
}  // namespace zkpipe::crypto::msm_detail
