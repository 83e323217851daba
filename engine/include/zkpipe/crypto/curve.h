// zkpipe/crypto/curve.h: points of a short Weierstrass curve y^2 = x^3 + b (a = 0), generic over
// the coordinate field F and a config giving b: affine points and Jacobian points
// (x = X/Z^2, y = Y/Z^3) with doubling, addition and mixed addition (EFD formulas dbl-2009-l,
// add-2007-bl, madd-2007-bl). ZKP_HD: MSM kernels use the same code. G1/G2 are in curves.h.
// Thread-safety: values and pure functions.
#pragma once

#include <cstddef>
#include <vector>

#include "zkpipe/crypto/bigint.h"
#include "zkpipe/crypto/hd.h"

namespace zkpipe::crypto {

template <typename F>
struct AffinePoint {
  F x, y;
  bool infinity;

  static ZKP_HD AffinePoint identity() { return {F::zero(), F::zero(), true}; }
  ZKP_HD bool operator==(const AffinePoint& o) const {
    if (infinity || o.infinity) return infinity == o.infinity;
    return x == o.x && y == o.y;
  }
  ZKP_HD bool operator!=(const AffinePoint& o) const { return !(*this == o); }
  ZKP_HD AffinePoint operator-() const { return {x, -y, infinity}; }
};

template <typename F, typename Cfg>
struct JacobianPoint {
  using Field = F;
  using Affine = AffinePoint<F>;
  F x, y, z;  // z == 0: the point at infinity

  static ZKP_HD JacobianPoint identity() { return {F::one(), F::one(), F::zero()}; }
  static ZKP_HD JacobianPoint from_affine(const Affine& a) {
    return a.infinity ? identity() : JacobianPoint{a.x, a.y, F::one()};
  }
  ZKP_HD bool is_identity() const { return z.is_zero(); }

  ZKP_HD JacobianPoint operator-() const { return {x, -y, z}; }

  // Projective equality: X1 Z2^2 == X2 Z1^2 and Y1 Z2^3 == Y2 Z1^3.
  ZKP_HD bool operator==(const JacobianPoint& o) const {
    if (is_identity() || o.is_identity()) return is_identity() == o.is_identity();
    F z1z1 = z.sqr(), z2z2 = o.z.sqr();
    if (x * z2z2 != o.x * z1z1) return false;
    return y * z2z2 * o.z == o.y * z1z1 * z;
  }
  ZKP_HD bool operator!=(const JacobianPoint& o) const { return !(*this == o); }

  // dbl-2009-l (a = 0): 2M + 5S.
  ZKP_HD JacobianPoint dbl() const {
    if (is_identity()) return *this;
    F a = x.sqr(), b = y.sqr(), c = b.sqr();
    F d = ((x + b).sqr() - a - c).dbl();
    F e = a.dbl() + a;
    F f = e.sqr();
    F x3 = f - d.dbl();
    F c8 = c.dbl().dbl().dbl();
    return {x3, e * (d - x3) - c8, (y * z).dbl()};
  }

  // add-2007-bl: 11M + 5S; handles equal points and inverses.
  ZKP_HD JacobianPoint operator+(const JacobianPoint& q) const {
    if (is_identity()) return q;
    if (q.is_identity()) return *this;
    F z1z1 = z.sqr(), z2z2 = q.z.sqr();
    F u1 = x * z2z2, u2 = q.x * z1z1;
    F s1 = y * q.z * z2z2, s2 = q.y * z * z1z1;
    F h = u2 - u1;
    F r = (s2 - s1).dbl();
    if (h.is_zero()) return r.is_zero() ? dbl() : identity();
    F i = h.dbl().sqr();
    F j = h * i;
    F v = u1 * i;
    F x3 = r.sqr() - j - v.dbl();
    F y3 = r * (v - x3) - (s1 * j).dbl();
    F z3 = ((z + q.z).sqr() - z1z1 - z2z2) * h;
    return {x3, y3, z3};
  }

  // madd-2007-bl (q affine): 7M + 4S; handles equal points and inverses.
  ZKP_HD JacobianPoint add_mixed(const Affine& q) const {
    if (q.infinity) return *this;
    if (is_identity()) return from_affine(q);
    F z1z1 = z.sqr();
    F u2 = q.x * z1z1;
    F s2 = q.y * z * z1z1;
    F h = u2 - x;
    F r = (s2 - y).dbl();
    if (h.is_zero()) return r.is_zero() ? dbl() : identity();
    F hh = h.sqr();
    F i = hh.dbl().dbl();
    F j = h * i;
    F v = x * i;
    F x3 = r.sqr() - j - v.dbl();
    F y3 = r * (v - x3) - (y * j).dbl();
    F z3 = (z + h).sqr() - z1z1 - hh;
    return {x3, y3, z3};
  }

  ZKP_HD JacobianPoint& operator+=(const JacobianPoint& q) { return *this = *this + q; }
  ZKP_HD JacobianPoint operator-(const JacobianPoint& q) const { return *this + (-q); }

  Affine to_affine() const {
    if (is_identity()) return Affine::identity();
    F zi = z.inverse();
    F zi2 = zi.sqr();
    return {x * zi2, y * zi2 * zi, false};
  }

  // One inversion for the whole batch (Montgomery's trick over the non-zero z; needs only
  // F's product and inverse, so it serves Fp and Fp2 alike).
  static void batch_to_affine(const JacobianPoint* in, Affine* out, size_t n) {
    std::vector<F> prefix(n);
    F acc = F::one();
    for (size_t i = 0; i < n; ++i) {
      prefix[i] = acc;
      if (!in[i].is_identity()) acc = acc * in[i].z;
    }
    F inv = acc.inverse();
    for (size_t i = n; i-- > 0;) {
      if (in[i].is_identity()) {
        out[i] = Affine::identity();
        continue;
      }
      const F zi = inv * prefix[i];
      inv = inv * in[i].z;
      const F zi2 = zi.sqr();
      out[i] = {in[i].x * zi2, in[i].y * zi2 * zi, false};
    }
  }

  // Y^2 == X^3 + b Z^6.
  bool is_on_curve() const {
    if (is_identity()) return true;
    F z2 = z.sqr();
    F z6 = z2.sqr() * z2;
    return y.sqr() == x.sqr() * x + Cfg::b() * z6;
  }

  // k * P for k given as little-endian limbs (double-and-add, most significant bit first).
  template <size_t M>
  JacobianPoint mul(const Limbs<M>& k) const {
    JacobianPoint r = identity();
    for (size_t i = M * 64; i-- > 0;) {
      r = r.dbl();
      if ((k[i / 64] >> (i % 64)) & 1) r = r + *this;
    }
    return r;
  }
};

template <typename F, typename Cfg>
bool is_on_curve(const AffinePoint<F>& p) {
  if (p.infinity) return true;
  return p.y.sqr() == p.x.sqr() * p.x + Cfg::b();
}

}  // namespace zkpipe::crypto
