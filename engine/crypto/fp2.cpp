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

// a += b over 2n limbs; returns the carry out.
inline unsigned char add_wide(uint64_t* a, const uint64_t* b, size_t n) {
  unsigned char c = 0;
  for (size_t i = 0; i < n; ++i) {
    unsigned long long r;
    c = _addcarry_u64(c, a[i], b[i], &r);
    a[i] = r;
  }
  return c;
}
// a -= b over n limbs; returns the borrow out.
inline unsigned char sub_wide(uint64_t* a, const uint64_t* b, size_t n) {
  unsigned char c = 0;
  for (size_t i = 0; i < n; ++i) {
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
  add_wide(sa, a.c1.l, kN);
  add_wide(sb, b.c1.l, kN);
  zkp_mul_wide_adx_6(t0, a.c0.l, b.c0.l);
  zkp_mul_wide_adx_6(t1, a.c1.l, b.c1.l);
  zkp_mul_wide_adx_6(t2, sa, sb);
  sub_wide(t2, t0, 2 * kN);
  sub_wide(t2, t1, 2 * kN);
  if (sub_wide(t0, t1, 2 * kN)) add_wide(t0 + kN, Fp::kModulus.data(), kN);
  zkp_redc_adx_6(r.c0.l, t0, Fp::kModulus.data(), Fp::kInv);
  zkp_redc_adx_6(r.c1.l, t2, Fp::kModulus.data(), Fp::kInv);
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
