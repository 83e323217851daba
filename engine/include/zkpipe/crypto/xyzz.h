// zkpipe/crypto/xyzz.h: points of a short Weierstrass curve y^2 = x^3 + b (a = 0) in XYZZ
// coordinates (x = X/ZZ, y = Y/ZZZ, ZZ^3 = ZZZ^2; EFD "xyzz": madd-2008-s, add-2008-s,
// dbl-2008-s-1, mdbl-2008-s-1), the bucket accumulators of the GPU MSM: a mixed addition is
// 8M + 2S with no doubling inside it. The equal-x case of an addition (doubling or cancelling)
// is ZKP_HD_COLD, so the hot path compiles to one straight copy. The all-zero value is the
// identity (ZZ = 0), so zeroed memory is a row of identities.
// Thread-safety: values and pure functions.
#pragma once

#include "zkpipe/crypto/curve.h"
#include "zkpipe/crypto/curves.h"
#include "zkpipe/crypto/hd.h"

namespace zkpipe::crypto {

template <typename F, typename Cfg>
struct XyzzPoint {
  using Affine = AffinePoint<F>;
  using Jacobian = JacobianPoint<F, Cfg>;
  F x, y, zz, zzz;

  static ZKP_HD XyzzPoint identity() { return {F::zero(), F::zero(), F::zero(), F::zero()}; }
  ZKP_HD bool is_identity() const { return zz.is_zero(); }
  static ZKP_HD XyzzPoint from_affine(const Affine& a) {
    return a.infinity ? identity() : XyzzPoint{a.x, a.y, F::one(), F::one()};
  }

  // X' = X ZZ^2, Y' = Y ZZZ^2, Z' = ZZZ: X'/Z'^2 = X ZZ^2 / ZZ^3 and Y'/Z'^3 = Y / ZZZ.
  ZKP_HD Jacobian to_jacobian() const {
    if (is_identity()) return Jacobian::identity();
    return {x * zz.sqr(), y * zzz.sqr(), zzz};
  }

  // dbl-2008-s-1 (a = 0): 6M + 3S (a point with y = 0 doubles to ZZ = 0, the identity).
  ZKP_HD XyzzPoint dbl() const {
    const F u = y.dbl(), v = u.sqr(), w = u * v, s = x * v;
    const F xx = x.sqr(), m = xx.dbl() + xx;
    const F x3 = m.sqr() - s.dbl();
    return {x3, m * (s - x3) - w * y, v * zz, w * zzz};
  }

  // this + (x2, y2), an affine point that is not the identity. madd-2008-s: 8M + 2S.
  ZKP_HD XyzzPoint add_affine(const F& x2, const F& y2) const {
    if (is_identity()) return {x2, y2, F::one(), F::one()};
    const F p = x2 * zz - x, r = y2 * zzz - y;
    if (p.is_zero()) return equal_x_affine(x2, y2, r);
    const F pp = p.sqr(), ppp = p * pp, q = x * pp;
    const F x3 = r.sqr() - ppp - q.dbl();
    return {x3, r * (q - x3) - y * ppp, zz * pp, zzz * ppp};
  }
  ZKP_HD XyzzPoint add_affine(const Affine& q) const {
    return q.infinity ? *this : add_affine(q.x, q.y);
  }

  // add-2008-s: 12M + 2S.
  ZKP_HD XyzzPoint operator+(const XyzzPoint& q) const {
    if (is_identity()) return q;
    if (q.is_identity()) return *this;
    const F u1 = x * q.zz, s1 = y * q.zzz;
    const F p = q.x * zz - u1, r = q.y * zzz - s1;
    if (p.is_zero()) return equal_x(r);
    const F pp = p.sqr(), ppp = p * pp, v = u1 * pp;
    const F x3 = r.sqr() - ppp - v.dbl();
    return {x3, r * (v - x3) - s1 * ppp, zz * q.zz * pp, zzz * q.zzz * ppp};
  }
  ZKP_HD XyzzPoint& operator+=(const XyzzPoint& q) { return *this = *this + q; }

  ZKP_HD XyzzPoint operator-() const { return {x, -y, zz, zzz}; }

 private:
  // The sum when both points have the same x: r == 0 means equal points (double), else
  // opposite points (the identity).
  ZKP_HD_COLD XyzzPoint equal_x(const F& r) const { return r.is_zero() ? dbl() : identity(); }
  // mdbl-2008-s-1 (a = 0) of (x2, y2) when this equals it, else the identity.
  ZKP_HD_COLD XyzzPoint equal_x_affine(const F& x2, const F& y2, const F& r) const {
    if (!r.is_zero()) return identity();
    const F u = y2.dbl(), v = u.sqr(), w = u * v, s = x2 * v;
    const F xx = x2.sqr(), m = xx.dbl() + xx;
    const F x3 = m.sqr() - s.dbl();
    return {x3, m * (s - x3) - w * y2, v, w};
  }
};

using G1Xyzz = XyzzPoint<Fp, G1Config>;

// y or -y, chosen without a branch (the MSM's signed digits: one copy of the addition).
template <typename F>
ZKP_HD F negate_if(const F& y, bool negate) {
  const F n = -y;
  const uint64_t mask = 0 - static_cast<uint64_t>(negate);
  F r;
  ZKP_UNROLL for (size_t i = 0; i < F::kLimbs; ++i) r.l[i] = (n.l[i] & mask) | (y.l[i] & ~mask);
  return r;
}

}  // namespace zkpipe::crypto
