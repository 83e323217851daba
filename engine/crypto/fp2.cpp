// Fp2 square root and the zcash sign convention (host only).
#include "zkpipe/crypto/fp2.h"

namespace zkpipe::crypto {
namespace {

constexpr Fp::L shr2(Fp::L v) {
  return limbs_shr1(limbs_shr1(v));
}
// (p - 3) / 4 and (p - 1) / 2 as exponents.
constexpr Fp::L kPMinus3Quarter = shr2(Fp::sub_small(Fp::kModulus, 3));
constexpr Fp::L kPMinus1Half = Fp::kPMinus1Half;

}  // namespace

#if defined(ZKP_HAVE_MONT_MUL_ADX)
namespace {

constexpr size_t kN = Fp::kLimbs;

// a += b over N limbs; returns the carry out. (Unrolled: a loop keeps the carry in a byte
// register, SETB and ADD per limb.)
template <size_t N>
inline unsigned char add_wide(uint64_t* a, const uint64_t* b) {
  unsigned char c = 0;
#pragma GCC unroll 16
  for (size_t i = 0; i < N; ++i) {
    unsigned long long r;
    c = _addcarry_u64(c, a[i], b[i], &r);
    a[i] = r;
  }
  return c;
}
// a -= b over N limbs; returns the borrow out.
template <size_t N>
inline unsigned char sub_wide(uint64_t* a, const uint64_t* b) {
  unsigned char c = 0;
#pragma GCC unroll 16
  for (size_t i = 0; i < N; ++i) {
    unsigned long long r;
    c = _subborrow_u64(c, a[i], b[i], &r);
    a[i] = r;
  }
  return c;
}

}  // namespace

// c0 = a0 b0 - a1 b1, c1 = (a0 + a1)(b0 + b1) - a0 b0 - a1 b1, each reduced once. Bounds (p <
// 2^381, R = 2^384): a0 + a1 < 2p needs no reduction; c1 < 2p^2 < pR; a negative c0 gets p R
// added, so 0 <= c0 < pR; REDC of a value below pR is fully reduced by zkp_redc_adx_6.
void fp2_mul_lazy(Fp2& r, const Fp2& a, const Fp2& b) {
  uint64_t sa[kN], sb[kN], t0[2 * kN], t1[2 * kN], t2[2 * kN];
  for (size_t i = 0; i < kN; ++i) {
    sa[i] = a.c0.l[i];
    sb[i] = b.c0.l[i];
  }
  add_wide<kN>(sa, a.c1.l);
  add_wide<kN>(sb, b.c1.l);
  zkp_mul_wide_adx_6(t0, a.c0.l, b.c0.l);
  zkp_mul_wide_adx_6(t1, a.c1.l, b.c1.l);
  zkp_mul_wide_adx_6(t2, sa, sb);
  sub_wide<2 * kN>(t2, t0);
  sub_wide<2 * kN>(t2, t1);
  if (sub_wide<2 * kN>(t0, t1)) add_wide<kN>(t0 + kN, Fp::kModulus.data());
  zkp_redc_adx_6(r.c0.l, t0, Fp::kModulus.data(), Fp::kInv);
  zkp_redc_adx_6(r.c1.l, t2, Fp::kModulus.data(), Fp::kInv);
}
// c0 = (a0 + a1)(a0 - a1 + p), c1 = (2 a0) a1, the three sums left below 2p: the ADX product
// accepts inputs below 2p when 4p < 2^384 (the CIOS bound (4p^2 + p R) / R < 2p) and still
// returns a fully reduced result.
void fp2_sqr_lazy(Fp2& r, const Fp2& a) {
  static_assert(Fp::kModulus[kN - 1] < (uint64_t{1} << 62), "needs 4p < 2^384");
  uint64_t s[kN], d[kN], a2[kN], c0[kN], c1[kN];
  for (size_t i = 0; i < kN; ++i) {
    s[i] = a.c0.l[i];
    d[i] = a.c0.l[i];
    a2[i] = a.c0.l[i];
  }
  add_wide<kN>(s, a.c1.l);
  add_wide<kN>(d, Fp::kModulus.data());
  sub_wide<kN>(d, a.c1.l);
  add_wide<kN>(a2, a.c0.l);
  zkp_mont_mul_adx_6(c0, s, d, Fp::kModulus.data(), Fp::kInv);
  zkp_mont_mul_adx_6(c1, a2, a.c1.l, Fp::kModulus.data(), Fp::kInv);
  for (size_t i = 0; i < kN; ++i) {
    r.c0.l[i] = c0[i];
    r.c1.l[i] = c1[i];
  }
}
#endif

bool lexicographically_largest(const Fp& y) {
  return limbs_less(kPMinus1Half, y.to_canonical());
}

bool Fp2::lexicographically_largest() const {
  if (!c1.is_zero()) return crypto::lexicographically_largest(c1);
  return crypto::lexicographically_largest(c0);
}

// Adj and Rodriguez-Henriquez, "Square root computation over even extension fields",
// algorithm 9 (p = 3 mod 4). The result is checked by squaring.
bool Fp2::sqrt(Fp2& out) const {
  if (is_zero()) {
    out = zero();
    return true;
  }
  Fp2 a1 = pow(kPMinus3Quarter);
  Fp2 alpha = a1.sqr() * *this;
  Fp2 a0 = alpha.conjugate() * alpha;  // alpha^(p+1), in Fp
  if (a0 == -one()) return false;
  Fp2 x0 = a1 * *this;
  Fp2 x;
  if (alpha == -one()) {
    x = {-x0.c1, x0.c0};  // u * x0
  } else {
    Fp2 b = (one() + alpha).pow(kPMinus1Half);
    x = b * x0;
  }
  if (x.sqr() != *this) return false;
  out = x;
  return true;
}

}  // namespace zkpipe::crypto
