// zkpipe/crypto/fp6.h: Fp6 = Fp2[v] / (v^3 - (u + 1)), the middle floor of the BLS12-381 tower
// (the tower of blst, mcl, zkcrypto and noble). One source for host and device (ZKP_HD); on the
// host the larger operations are compiled once, in engine/crypto/fp6.cpp (explicit
// instantiation), instead of in every file. The Frobenius map is host-only and reads
// coefficients derived once from p. Thread-safety: values and pure functions.
#pragma once

#include <cstddef>

#include "zkpipe/crypto/fp2.h"

#if defined(__CUDACC__)
#define ZKP_HD_OUTLINE __host__ __device__
#else
#define ZKP_HD_OUTLINE
#endif

namespace zkpipe::crypto {

// gamma(k, j) = xi^(j (p^k - 1) / 6) for xi = u + 1, k in [0, 12), j in [0, 6): w^(j p^k) =
// gamma(k, j) w^j, where w (w^6 = xi, v = w^2) generates Fp12 over Fp2. Derived at first use
// from p alone (engine/crypto/fp6.cpp); host only.
const Fp2& frobenius_coeff(size_t k, size_t j);

// A template over the coefficient field only so that host code can use one explicit
// instantiation (below); Fp6 is its one instance.
template <typename F2>
struct Fp6T {
  F2 c0, c1, c2;  // c0 + c1 v + c2 v^2

  static ZKP_HD Fp6T zero() { return {F2::zero(), F2::zero(), F2::zero()}; }
  static ZKP_HD Fp6T one() { return {F2::one(), F2::zero(), F2::zero()}; }
  ZKP_HD bool is_zero() const { return c0.is_zero() && c1.is_zero() && c2.is_zero(); }
  ZKP_HD bool is_one() const { return *this == one(); }
  ZKP_HD bool operator==(const Fp6T& o) const { return c0 == o.c0 && c1 == o.c1 && c2 == o.c2; }
  ZKP_HD bool operator!=(const Fp6T& o) const { return !(*this == o); }

  ZKP_HD Fp6T operator+(const Fp6T& b) const { return {c0 + b.c0, c1 + b.c1, c2 + b.c2}; }
  ZKP_HD Fp6T operator-(const Fp6T& b) const { return {c0 - b.c0, c1 - b.c1, c2 - b.c2}; }
  ZKP_HD Fp6T operator-() const { return {-c0, -c1, -c2}; }
  ZKP_HD Fp6T dbl() const { return {c0.dbl(), c1.dbl(), c2.dbl()}; }
  ZKP_HD Fp6T& operator+=(const Fp6T& b) { return *this = *this + b; }
  ZKP_HD Fp6T& operator-=(const Fp6T& b) { return *this = *this - b; }
  ZKP_HD Fp6T& operator*=(const Fp6T& b) { return *this = *this * b; }

  // Multiplication by v: (c0 + c1 v + c2 v^2) v = xi c2 + c0 v + c1 v^2.
  ZKP_HD Fp6T mul_by_nonresidue() const { return {c2.mul_by_nonresidue(), c0, c1}; }

  ZKP_HD_OUTLINE Fp6T operator*(const Fp6T& b) const;
  ZKP_HD_OUTLINE Fp6T operator*(const F2& s) const;
  ZKP_HD_OUTLINE Fp6T sqr() const;
  // Multiplication by the sparse b0 + b1 v (five Fp2 multiplications), and by b1 v (three).
  ZKP_HD_OUTLINE Fp6T mul_by_01(const F2& b0, const F2& b1) const;
  ZKP_HD_OUTLINE Fp6T mul_by_1(const F2& b1) const;
  // 0^-1 = 0.
  ZKP_HD_OUTLINE Fp6T inverse() const;
  // a^(p^k) (host only).
  Fp6T frobenius(size_t k) const;
};

// Karatsuba over three coefficients: six Fp2 multiplications.
template <typename F2>
ZKP_HD_OUTLINE Fp6T<F2> Fp6T<F2>::operator*(const Fp6T& b) const {
  F2 v0 = c0 * b.c0, v1 = c1 * b.c1, v2 = c2 * b.c2;
  F2 r0 = ((c1 + c2) * (b.c1 + b.c2) - v1 - v2).mul_by_nonresidue() + v0;
  F2 r1 = (c0 + c1) * (b.c0 + b.c1) - v0 - v1 + v2.mul_by_nonresidue();
  F2 r2 = (c0 + c2) * (b.c0 + b.c2) - v0 - v2 + v1;
  return {r0, r1, r2};
}

template <typename F2>
ZKP_HD_OUTLINE Fp6T<F2> Fp6T<F2>::operator*(const F2& s) const {
  return {c0 * s, c1 * s, c2 * s};
}

// Chung-Hasan SQR2: s0 = a0^2, s1 = 2 a0 a1, s2 = (a0 - a1 + a2)^2, s3 = 2 a1 a2, s4 = a2^2;
// the square is (s0 + xi s3) + (s1 + xi s4) v + (s1 + s2 + s3 - s0 - s4) v^2.
template <typename F2>
ZKP_HD_OUTLINE Fp6T<F2> Fp6T<F2>::sqr() const {
  F2 s0 = c0.sqr(), s1 = (c0 * c1).dbl(), s2 = (c0 - c1 + c2).sqr();
  F2 s3 = (c1 * c2).dbl(), s4 = c2.sqr();
  return {s3.mul_by_nonresidue() + s0, s4.mul_by_nonresidue() + s1, s1 + s2 + s3 - s0 - s4};
}

// (a0 + a1 v + a2 v^2)(b0 + b1 v) = (a0 b0 + xi a2 b1) + (a0 b1 + a1 b0) v + (a1 b1 + a2 b0) v^2,
// with Karatsuba for the first two.
template <typename F2>
ZKP_HD_OUTLINE Fp6T<F2> Fp6T<F2>::mul_by_01(const F2& b0, const F2& b1) const {
  F2 v0 = c0 * b0, v1 = c1 * b1;
  F2 r0 = ((c1 + c2) * b1 - v1).mul_by_nonresidue() + v0;
  F2 r1 = (c0 + c1) * (b0 + b1) - v0 - v1;
  F2 r2 = (c0 + c2) * b0 - v0 + v1;
  return {r0, r1, r2};
}

template <typename F2>
ZKP_HD_OUTLINE Fp6T<F2> Fp6T<F2>::mul_by_1(const F2& b1) const {
  return {(c2 * b1).mul_by_nonresidue(), c0 * b1, c1 * b1};
}

// The adjugate over the norm: with t0 = a0^2 - xi a1 a2, t1 = xi a2^2 - a0 a1,
// t2 = a1^2 - a0 a2, a^-1 = (t0 + t1 v + t2 v^2) / (a0 t0 + xi (a2 t1 + a1 t2)).
template <typename F2>
ZKP_HD_OUTLINE Fp6T<F2> Fp6T<F2>::inverse() const {
  F2 t0 = c0.sqr() - (c1 * c2).mul_by_nonresidue();
  F2 t1 = c2.sqr().mul_by_nonresidue() - c0 * c1;
  F2 t2 = c1.sqr() - c0 * c2;
  F2 ni = (c0 * t0 + (c2 * t1 + c1 * t2).mul_by_nonresidue()).inverse();
  return {t0 * ni, t1 * ni, t2 * ni};
}

// Each coefficient goes through Fp2's Frobenius, and v^(i p^k) = gamma(k, 2i) v^i.
template <typename F2>
Fp6T<F2> Fp6T<F2>::frobenius(size_t k) const {
  k %= 12;
  return {c0.frobenius(k), c1.frobenius(k) * frobenius_coeff(k, 2),
          c2.frobenius(k) * frobenius_coeff(k, 4)};
}

#if !defined(__CUDACC__)
extern template struct Fp6T<Fp2>;  // instantiated in engine/crypto/fp6.cpp
#endif
using Fp6 = Fp6T<Fp2>;
static_assert(sizeof(Fp6) == 3 * sizeof(Fp2));

}  // namespace zkpipe::crypto
