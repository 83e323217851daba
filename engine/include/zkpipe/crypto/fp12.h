// zkpipe/crypto/fp12.h: Fp12 = Fp6[w] / (w^2 - v), the top of the BLS12-381 tower and the
// pairing's target group GT. Besides the ring operations it has what the pairing needs: the
// sparse product with a Miller-loop line (mul_by_014), conjugation (the p^6-power), Frobenius
// maps (host-only) and Granger-Scott squaring in the cyclotomic subgroup. Like Fp6, one source
// for host and device, compiled once for the host (engine/crypto/fp12.cpp).
// Thread-safety: values and pure functions.
#pragma once

#include <string>

#include "zkpipe/crypto/fp6.h"

namespace zkpipe::crypto {

// A template over the base of the tower only for the explicit instantiation; Fp12 is its one
// instance.
template <typename F2>
struct Fp12T {
  using F6 = Fp6T<F2>;
  F6 c0, c1;  // c0 + c1 w

  static ZKP_HD Fp12T zero() { return {F6::zero(), F6::zero()}; }
  static ZKP_HD Fp12T one() { return {F6::one(), F6::zero()}; }
  ZKP_HD bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
  ZKP_HD bool is_one() const { return c0.is_one() && c1.is_zero(); }
  ZKP_HD bool operator==(const Fp12T& o) const { return c0 == o.c0 && c1 == o.c1; }
  ZKP_HD bool operator!=(const Fp12T& o) const { return !(*this == o); }

  ZKP_HD Fp12T operator+(const Fp12T& b) const { return {c0 + b.c0, c1 + b.c1}; }
  ZKP_HD Fp12T operator-(const Fp12T& b) const { return {c0 - b.c0, c1 - b.c1}; }
  ZKP_HD Fp12T operator-() const { return {-c0, -c1}; }
  ZKP_HD Fp12T& operator+=(const Fp12T& b) { return *this = *this + b; }
  ZKP_HD Fp12T& operator-=(const Fp12T& b) { return *this = *this - b; }
  ZKP_HD Fp12T& operator*=(const Fp12T& b) { return *this = *this * b; }

  // a^(p^6): w^(p^6) = -w, so this is the inverse of a unitary (cyclotomic) element.
  ZKP_HD Fp12T conjugate() const { return {c0, -c1}; }

  ZKP_HD_OUTLINE Fp12T operator*(const Fp12T& b) const;
  ZKP_HD_OUTLINE Fp12T sqr() const;
  // Multiplication by the sparse o0 + o1 v + o4 v w (coefficients 0, 1 and 4 in the basis
  // 1, v, v^2, w, vw, v^2 w): the shape of a line of the M-type twist evaluated at a G1 point.
  ZKP_HD_OUTLINE Fp12T mul_by_014(const F2& o0, const F2& o1, const F2& o4) const;
  // 0^-1 = 0.
  ZKP_HD_OUTLINE Fp12T inverse() const;
  // Squaring that is valid only in the cyclotomic subgroup (a^(p^6 + 1) = 1).
  ZKP_HD_OUTLINE Fp12T cyclotomic_sqr() const;

  // this^e for an exponent given as little-endian limbs (square-and-multiply).
  template <size_t M>
  Fp12T pow(const Limbs<M>& e) const {
    Fp12T r = one();
    for (size_t i = M * 64; i-- > 0;) {
      r = r.sqr();
      if ((e[i / 64] >> (i % 64)) & 1) r = r * *this;
    }
    return r;
  }

  // a^(p^k) (host only).
  Fp12T frobenius(size_t k) const;

  // The six Fp2 coefficients (c0.c0 first), each "c0,c1" in hex, comma-separated.
  std::string to_hex() const {
    return c0.c0.to_hex() + "," + c0.c1.to_hex() + "," + c0.c2.to_hex() + "," + c1.c0.to_hex() +
           "," + c1.c1.to_hex() + "," + c1.c2.to_hex();
  }
};

// Karatsuba: three Fp6 multiplications.
template <typename F2>
ZKP_HD_OUTLINE Fp12T<F2> Fp12T<F2>::operator*(const Fp12T& b) const {
  F6 t0 = c0 * b.c0, t1 = c1 * b.c1;
  return {t1.mul_by_nonresidue() + t0, (c0 + c1) * (b.c0 + b.c1) - t0 - t1};
}

// Complex squaring: with t = a0 a1, (a0 + a1 w)^2 = (a0 + a1)(a0 + v a1) - t - v t + 2 t w.
template <typename F2>
ZKP_HD_OUTLINE Fp12T<F2> Fp12T<F2>::sqr() const {
  F6 t = c0 * c1;
  F6 r0 = (c0 + c1) * (c0 + c1.mul_by_nonresidue()) - t - t.mul_by_nonresidue();
  return {r0, t.dbl()};
}

// (A0 + A1 w)(B0 + B1 w) with B0 = o0 + o1 v, B1 = o4 v, by Karatsuba with the sparse Fp6
// products: 13 Fp2 multiplications instead of 18.
template <typename F2>
ZKP_HD_OUTLINE Fp12T<F2> Fp12T<F2>::mul_by_014(const F2& o0, const F2& o1, const F2& o4) const {
  F6 t0 = c0.mul_by_01(o0, o1);
  F6 t1 = c1.mul_by_1(o4);
  F6 r1 = (c0 + c1).mul_by_01(o0, o1 + o4) - t0 - t1;
  return {t1.mul_by_nonresidue() + t0, r1};
}

// (a0 - a1 w) / (a0^2 - v a1^2).
template <typename F2>
ZKP_HD_OUTLINE Fp12T<F2> Fp12T<F2>::inverse() const {
  F6 t = (c0.sqr() - c1.sqr().mul_by_nonresidue()).inverse();
  return {c0 * t, -(c1 * t)};
}

// Granger-Scott. Over Fp4 = Fp2[s] / (s^2 - xi), s = w^3, write a = g0 + g1 v + g2 v^2 +
// (h0 + h1 v + h2 v^2) w as A + B w + C w^2 with A = g0 + h1 s, B = h0 + g2 s, C = g1 + h2 s.
// For a^(p^6 + 1) = 1: a^2 = (3 A^2 - 2 A') + (3 s C^2 + 2 B') w + (3 B^2 - 2 C') w^2, where ' is
// Fp4 conjugation (s -> -s). Nine Fp2 squarings instead of twelve multiplications.
template <typename F2>
ZKP_HD_OUTLINE Fp12T<F2> Fp12T<F2>::cyclotomic_sqr() const {
  // (x + y s)^2 = (x^2 + xi y^2) + ((x + y)^2 - x^2 - y^2) s.
  auto fp4_sqr = [](const F2& x, const F2& y, F2& r0, F2& r1) {
    F2 t0 = x.sqr(), t1 = y.sqr();
    r0 = t1.mul_by_nonresidue() + t0;
    r1 = (x + y).sqr() - t0 - t1;
  };
  F2 a0, a1, b0, b1, d0, d1;
  fp4_sqr(c0.c0, c1.c1, a0, a1);    // A^2
  fp4_sqr(c1.c0, c0.c2, b0, b1);    // B^2
  fp4_sqr(c0.c1, c1.c2, d0, d1);    // C^2
  F2 sd0 = d1.mul_by_nonresidue();  // s C^2 = xi d1 + d0 s
  Fp12T r;
  r.c0.c0 = (a0 - c0.c0).dbl() + a0;
  r.c1.c1 = (a1 + c1.c1).dbl() + a1;
  r.c1.c0 = (sd0 + c1.c0).dbl() + sd0;
  r.c0.c2 = (d0 - c0.c2).dbl() + d0;
  r.c0.c1 = (b0 - c0.c1).dbl() + b0;
  r.c1.c2 = (b1 + c1.c2).dbl() + b1;
  return r;
}

// The coefficient of w^j goes through Fp2's Frobenius and picks up gamma(k, j).
template <typename F2>
Fp12T<F2> Fp12T<F2>::frobenius(size_t k) const {
  k %= 12;
  auto f = [k](const F2& x, size_t j) { return x.frobenius(k) * frobenius_coeff(k, j); };
  return {{c0.c0.frobenius(k), f(c0.c1, 2), f(c0.c2, 4)}, {f(c1.c0, 1), f(c1.c1, 3), f(c1.c2, 5)}};
}

#if !defined(__CUDACC__)
extern template struct Fp12T<Fp2>;  // instantiated in engine/crypto/fp12.cpp
#endif
using Fp12 = Fp12T<Fp2>;
static_assert(sizeof(Fp12) == 2 * sizeof(Fp6));

}  // namespace zkpipe::crypto
