// zkpipe/crypto/mont_mul32.h: Montgomery multiplication and squaring over 32-bit words, written
// as chains of carry-flag instructions: the device's field product (mont_field.h). On the GPU each
// step is one PTX instruction (mad.lo.cc, madc.hi.cc, addc, sub.cc, ...), so ptxas sees 32-bit
// multiply-add chains (IMAD with carry) instead of the 64-bit emulation __umul64hi needs. On the
// host, Emulated runs the same sequence with the carry flag in a member: the tests compare it with
// the portable 64-bit product on the CPU tests' edge values, so the algorithm is checked here
// and the device differs only in what each named instruction does.
//
// Multiplication is CIOS (one pass per word of b: a * b_i, then m p with m = t_0 (-p^-1)), each
// pass as rows of adjacent (lo, hi) product pairs, the even and odd words in two accumulators
// that swap roles each pass (mont_pass), so no pass merges them. Sums and differences are one
// carry chain and a masked correction. Squaring (kept for comparison; the device squares with
// the product, which measured fewer instructions) is SOS:
// the off-diagonal products once, doubled, the diagonal added, then N reduction passes. Both need p
// < 2^(32N - 1) (asserted by the caller): then every intermediate fits the words written, the
// result is below 2p, and one branch-free subtraction makes it canonical. Thread-safety: pure
// functions; an Emulated chain belongs to one call.
#pragma once

#include <cstddef>
#include <cstdint>

#include "zkpipe/crypto/hd.h"

#if defined(__CUDACC__)
#define ZKP_UNROLL32 _Pragma("unroll")
#else
#define ZKP_UNROLL32 _Pragma("GCC unroll 32")
#endif

namespace zkpipe::crypto::mul32 {

// The carry flag in a member: each function does what the PTX instruction of its name does.
// Subtractions set the flag to the borrow, as PTX's sub.cc does.
struct Emulated {
  uint32_t cf = 0;

  static ZKP_HD uint32_t lo(uint32_t a, uint32_t b) { return a * b; }
  static ZKP_HD uint32_t hi(uint32_t a, uint32_t b) {
    return static_cast<uint32_t>((uint64_t{a} * b) >> 32);
  }
  ZKP_HD uint32_t put(uint64_t s) {
    cf = static_cast<uint32_t>(s >> 32);
    return static_cast<uint32_t>(s);
  }
  ZKP_HD uint32_t mad_lo_cc(uint32_t a, uint32_t b, uint32_t c) {
    return put(uint64_t{lo(a, b)} + c);
  }
  ZKP_HD uint32_t madc_lo_cc(uint32_t a, uint32_t b, uint32_t c) {
    return put(uint64_t{lo(a, b)} + c + cf);
  }
  ZKP_HD uint32_t mad_hi_cc(uint32_t a, uint32_t b, uint32_t c) {
    return put(uint64_t{hi(a, b)} + c);
  }
  ZKP_HD uint32_t madc_hi_cc(uint32_t a, uint32_t b, uint32_t c) {
    return put(uint64_t{hi(a, b)} + c + cf);
  }
  ZKP_HD uint32_t madc_hi(uint32_t a, uint32_t b, uint32_t c) const { return hi(a, b) + c + cf; }
  ZKP_HD uint32_t mad_hi(uint32_t a, uint32_t b, uint32_t c) const { return hi(a, b) + c; }
  ZKP_HD uint32_t add_cc(uint32_t a, uint32_t b) { return put(uint64_t{a} + b); }
  ZKP_HD uint32_t addc_cc(uint32_t a, uint32_t b) { return put(uint64_t{a} + b + cf); }
  ZKP_HD uint32_t addc(uint32_t a, uint32_t b) const { return a + b + cf; }
  ZKP_HD uint32_t sub_cc(uint32_t a, uint32_t b) {
    const uint32_t d = a - b;
    cf = a < b ? 1 : 0;
    return d;
  }
  ZKP_HD uint32_t subc_cc(uint32_t a, uint32_t b) {
    const uint64_t need = uint64_t{b} + cf;
    const uint32_t d = static_cast<uint32_t>(uint64_t{a} - need);
    cf = uint64_t{a} < need ? 1 : 0;
    return d;
  }
  ZKP_HD uint32_t subc(uint32_t a, uint32_t b) const { return a - b - cf; }
};

#if defined(__CUDA_ARCH__)
// One PTX instruction each; the carry flag is the hardware's. volatile keeps the chain's order
// (the compiler does not see the flag); ptxas schedules the SASS knowing it.
struct Ptx {
#define ZKP_PTX3(name, op)                                                       \
  __device__ __forceinline__ uint32_t name(uint32_t a, uint32_t b, uint32_t c) { \
    uint32_t d;                                                                  \
    asm volatile(op " %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));      \
    return d;                                                                    \
  }
#define ZKP_PTX2(name, op)                                           \
  __device__ __forceinline__ uint32_t name(uint32_t a, uint32_t b) { \
    uint32_t d;                                                      \
    asm volatile(op " %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));      \
    return d;                                                        \
  }
  ZKP_PTX3(mad_lo_cc, "mad.lo.cc.u32")
  ZKP_PTX3(madc_lo_cc, "madc.lo.cc.u32")
  ZKP_PTX3(mad_hi_cc, "mad.hi.cc.u32")
  ZKP_PTX3(madc_hi_cc, "madc.hi.cc.u32")
  ZKP_PTX3(madc_hi, "madc.hi.u32")
  ZKP_PTX3(mad_hi, "mad.hi.u32")
  ZKP_PTX2(add_cc, "add.cc.u32")
  ZKP_PTX2(addc_cc, "addc.cc.u32")
  ZKP_PTX2(addc, "addc.u32")
  ZKP_PTX2(sub_cc, "sub.cc.u32")
  ZKP_PTX2(subc_cc, "subc.cc.u32")
  ZKP_PTX2(subc, "subc.u32")
#undef ZKP_PTX3
#undef ZKP_PTX2
};
#endif

// r = t - p when t >= p, else t (t < 2p): a borrow chain and a mask, no branch.
template <size_t N, typename Ops>
ZKP_HD void reduce_once(Ops& ops, uint32_t* r, const uint32_t* t, const uint32_t* p) {
  uint32_t d[N];
  d[0] = ops.sub_cc(t[0], p[0]);
  ZKP_UNROLL32 for (size_t j = 1; j < N; ++j) d[j] = ops.subc_cc(t[j], p[j]);
  const uint32_t keep = ops.subc(0, 0);  // all ones when t < p
  ZKP_UNROLL32 for (size_t j = 0; j < N; ++j) r[j] = (t[j] & keep) | (d[j] & ~keep);
}

// r = a + b mod p (a, b < p < 2^(32N - 1)): one carry chain (no carry out: a + b < 2^(32N)), then
// reduce_once.
template <size_t N, typename Ops>
ZKP_HD void add_mod(Ops& ops, uint32_t* r, const uint32_t* a, const uint32_t* b,
                    const uint32_t* p) {
  uint32_t t[N];
  t[0] = ops.add_cc(a[0], b[0]);
  ZKP_UNROLL32 for (size_t j = 1; j < N; ++j) t[j] = ops.addc_cc(a[j], b[j]);
  reduce_once<N>(ops, r, t, p);
}

// r = a - b mod p (a, b < p): a borrow chain, then p added back under the borrow's mask.
template <size_t N, typename Ops>
ZKP_HD void sub_mod(Ops& ops, uint32_t* r, const uint32_t* a, const uint32_t* b,
                    const uint32_t* p) {
  uint32_t t[N];
  t[0] = ops.sub_cc(a[0], b[0]);
  ZKP_UNROLL32 for (size_t j = 1; j < N; ++j) t[j] = ops.subc_cc(a[j], b[j]);
  const uint32_t borrow = ops.subc(0, 0);  // all ones when a < b
  r[0] = ops.add_cc(t[0], p[0] & borrow);
  ZKP_UNROLL32 for (size_t j = 1; j + 1 < N; ++j) r[j] = ops.addc_cc(t[j], p[j] & borrow);
  r[N - 1] = ops.addc(t[N - 1], p[N - 1] & borrow);
}

// acc += x_j y 2^(32 (j - First)) for j = First, First + 2, ... < N (the even or the odd words of
// x): each product's low and high halves go to adjacent words, so one carry chain covers the row
// and ptxas issues each pair as one wide multiply-add. Writes acc[0 .. N - 1 - First + 1]; the
// chain's last carry is left in the flag (the caller adds it on or knows it is zero).
template <size_t N, size_t First, typename Ops>
ZKP_HD void mad_row(Ops& ops, uint32_t* acc, const uint32_t* x, uint32_t y) {
  acc[0] = ops.mad_lo_cc(x[First], y, acc[0]);
  acc[1] = ops.madc_hi_cc(x[First], y, acc[1]);
  ZKP_UNROLL32 for (size_t j = First + 2; j < N; j += 2) {
    acc[j - First] = ops.madc_lo_cc(x[j], y, acc[j - First]);
    acc[j - First + 1] = ops.madc_hi_cc(x[j], y, acc[j - First + 1]);
  }
}

// The odd row of a CIOS pass written one word lower as it goes: out[j] = in[j + 2] + the
// products of x's odd words and y at out[j]'s weight, for j < N (in[N + 1] reads as zero). The
// chain starts with the carry flag as the caller left it (the merge of the word below). Wide:
// its carry out is out[N]; otherwise it has none (the caller's bound) and out[N] is zeroed.
template <size_t N, bool Wide, typename Ops>
ZKP_HD void mad_row_down(Ops& ops, uint32_t* acc, const uint32_t* x, uint32_t y) {
  ZKP_UNROLL32 for (size_t j = 1; j + 1 < N; j += 2) {
    acc[j - 1] = ops.madc_lo_cc(x[j], y, acc[j + 1]);
    acc[j] = ops.madc_hi_cc(x[j], y, acc[j + 2]);
  }
  acc[N - 2] = ops.madc_lo_cc(x[N - 1], y, acc[N]);
  if constexpr (Wide) {
    acc[N - 1] = ops.madc_hi_cc(x[N - 1], y, 0);
    acc[N] = ops.addc(0, 0);
  } else {
    acc[N - 1] = ops.madc_hi(x[N - 1], y, 0);
    acc[N] = 0;
  }
}

// One CIOS pass with b_i = y. On entry the value is ev + (od >> 32): ev (N + 1 words) at word
// weights 0..N, od's words 1..N one weight lower (od[0] is the zero word the last pass cleared).
// The pass adds a y + m p and divides by 2^32 by renaming: the products of the even words of a
// and p go to ev at their own weight, those of the odd words to od moved one word down (first
// od[1] is added into ev[0], its carry running on through that row). Afterwards the value is
// od + (ev >> 32) with od at weights 0..N: the two swap roles for the next pass, and no words are
// copied or merged.
template <size_t N, bool Wide, typename Ops>
ZKP_HD void mont_pass(Ops& ops, uint32_t* ev, uint32_t* od, const uint32_t* a, uint32_t y,
                      const uint32_t* p, uint32_t inv) {
  ev[0] = ops.add_cc(ev[0], od[1]);
  mad_row_down<N, Wide>(ops, od, a, y);
  mad_row<N, 0>(ops, ev, a, y);
  ev[N] = ops.addc(ev[N], 0);
  const uint32_t m = ev[0] * inv;
  mad_row<N, 0>(ops, ev, p, m);
  ev[N] = ops.addc(ev[N], 0);
  mad_row<N, 1>(ops, od, p, m);
  if constexpr (Wide) od[N] = ops.addc(od[N], 0);
}

// r = a b / 2^(32N) mod p for a, b < p < 2^(32N - 1); inv = -p^-1 mod 2^32; N even. r may alias
// a or b. CIOS over 32-bit words with two accumulators (mont_pass): the products of a's and p's
// even words in one, the odd words' in the other, so each product's two halves sit in adjacent
// words and ptxas issues each pair as one wide multiply-add; each pass's division by 2^32 is a
// renaming, not a merge. Bounds: with a < p, the even or odd part of a b_i or of m p is below
// 2^32 p, so the accumulator taking a pass's even products stays below 2^33 p + 4p <
// 2^(32(N + 1)) and the other below 4p + 1. Wide (needed when 4p >= 2^(32N), as for BLS12-381's
// Fr): that one keeps a top word too; otherwise (Fp: p < 2^381) it fits N words and its top
// carries are known zero. The value stays below 2p as in any CIOS: one subtraction ends it.
template <size_t N, bool Wide, typename Ops>
ZKP_HD void mont_mul(Ops& ops, uint32_t* r, const uint32_t* a, const uint32_t* b, const uint32_t* p,
                     uint32_t inv) {
  static_assert(N % 2 == 0, "an even number of 32-bit words");
  uint32_t u[N + 1], v[N + 1];
  ZKP_UNROLL32 for (size_t j = 0; j <= N; ++j) u[j] = v[j] = 0;
  ZKP_UNROLL32 for (size_t i = 0; i < N; i += 2) {
    mont_pass<N, Wide>(ops, u, v, a, b[i], p, inv);
    mont_pass<N, Wide>(ops, v, u, a, b[i + 1], p, inv);
  }
  // The value is u + (v >> 32), below 2p < 2^(32N) (so u[N] is zero).
  uint32_t t[N];
  t[0] = ops.add_cc(u[0], v[1]);
  ZKP_UNROLL32 for (size_t j = 1; j + 1 < N; ++j) t[j] = ops.addc_cc(u[j], v[j + 1]);
  t[N - 1] = ops.addc(u[N - 1], v[N]);
  reduce_once<N>(ops, r, t, p);
}

// r = a^2 / 2^(32N) mod p for a < p. r may alias a.
// The products a_i a_j (i < j) once, in two accumulators by the parity of i + j (x: even, y: odd),
// so each row's pairs are adjacent; x + y doubled, plus the squares a_i^2; then N reduction
// passes over the 2N words, each m p as two rows, with `carry` the pass's carry out of word
// i + N, added at the next pass's top word.
template <size_t N, typename Ops>
ZKP_HD void mont_sqr(Ops& ops, uint32_t* r, const uint32_t* a, const uint32_t* p, uint32_t inv) {
  static_assert(N % 2 == 0, "an even number of 32-bit words");
  uint32_t x[2 * N], y[2 * N];
  ZKP_UNROLL32 for (size_t j = 0; j < 2 * N; ++j) x[j] = y[j] = 0;
  // Row i, j = i + 1, i + 3, ... into y (words 2i + 1 ..) and j = i + 2, i + 4, ... into x
  // (words 2i + 2 ..). A row's carry goes to the word above its last pair, which earlier rows
  // left at most a carry: no overflow.
  ZKP_UNROLL32 for (size_t i = 0; i + 1 < N; ++i) {
    y[2 * i + 1] = ops.mad_lo_cc(a[i], a[i + 1], y[2 * i + 1]);
    y[2 * i + 2] = ops.madc_hi_cc(a[i], a[i + 1], y[2 * i + 2]);
    size_t top = 2 * i + 3;
    ZKP_UNROLL32 for (size_t j = i + 3; j < N; j += 2) {
      y[i + j] = ops.madc_lo_cc(a[i], a[j], y[i + j]);
      y[i + j + 1] = ops.madc_hi_cc(a[i], a[j], y[i + j + 1]);
      top = i + j + 2;
    }
    if (top < 2 * N) y[top] = ops.addc(y[top], 0);
    if (i + 2 < N) {
      x[2 * i + 2] = ops.mad_lo_cc(a[i], a[i + 2], x[2 * i + 2]);
      x[2 * i + 3] = ops.madc_hi_cc(a[i], a[i + 2], x[2 * i + 3]);
      top = 2 * i + 4;
      ZKP_UNROLL32 for (size_t j = i + 4; j < N; j += 2) {
        x[i + j] = ops.madc_lo_cc(a[i], a[j], x[i + j]);
        x[i + j + 1] = ops.madc_hi_cc(a[i], a[j], x[i + j + 1]);
        top = i + j + 2;
      }
      if (top < 2 * N) x[top] = ops.addc(x[top], 0);
    }
  }
  // w = 2 (x + y) + sum a_i^2 2^(64 i), in x (x_0 = y_0 = 0).
  x[1] = ops.add_cc(x[1], y[1]);
  ZKP_UNROLL32 for (size_t j = 2; j < 2 * N; ++j) x[j] = ops.addc_cc(x[j], y[j]);
  x[1] = ops.add_cc(x[1], x[1]);
  ZKP_UNROLL32 for (size_t j = 2; j < 2 * N; ++j) x[j] = ops.addc_cc(x[j], x[j]);
  x[0] = ops.mad_lo_cc(a[0], a[0], x[0]);
  x[1] = ops.madc_hi_cc(a[0], a[0], x[1]);
  ZKP_UNROLL32 for (size_t i = 1; i < N; ++i) {
    x[2 * i] = ops.madc_lo_cc(a[i], a[i], x[2 * i]);
    x[2 * i + 1] = ops.madc_hi_cc(a[i], a[i], x[2 * i + 1]);
  }
  uint32_t carry = 0;
  ZKP_UNROLL32 for (size_t i = 0; i < N; ++i) {
    const uint32_t m = x[i] * inv;
    mad_row<N, 0>(ops, x + i, p, m);
    x[i + N] = ops.addc_cc(x[i + N], carry);
    carry = ops.addc(0, 0);
    mad_row<N, 1>(ops, x + i + 1, p, m);
    carry = ops.addc(carry, 0);
  }
  reduce_once<N>(ops, r, x + N, p);
}

}  // namespace zkpipe::crypto::mul32
