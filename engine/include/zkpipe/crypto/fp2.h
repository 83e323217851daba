// zkpipe/crypto/fp2.h: Fp2 = Fp[u] / (u^2 + 1), the first floor of the BLS12-381 tower and the
// field of G2's coordinates. Arithmetic is ZKP_HD (shared with CUDA); square root, bytes and
// hex are host-only. Thread-safety: values and pure functions.
#pragma once

#include <string>

#include "zkpipe/crypto/fields.h"

namespace zkpipe::crypto {

struct Fp2;
#if defined(ZKP_HAVE_MONT_MUL_ADX) && !defined(__CUDA_ARCH__)
// r = a b with lazy reduction (three 768-bit products, two Montgomery reductions instead of
// three full multiplications); engine/crypto/fp2.cpp. r may alias a or b. Needs ADX.
void fp2_mul_lazy(Fp2& r, const Fp2& a, const Fp2& b);
// r = a^2 with the additions left unreduced (below 2p) as the multiplication's inputs.
void fp2_sqr_lazy(Fp2& r, const Fp2& a);
#endif

struct Fp2 {
  Fp c0, c1;  // c0 + c1 * u

  static ZKP_HD Fp2 zero() { return {Fp::zero(), Fp::zero()}; }
  static ZKP_HD Fp2 one() { return {Fp::one(), Fp::zero()}; }
  ZKP_HD bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
  ZKP_HD bool operator==(const Fp2& o) const { return c0 == o.c0 && c1 == o.c1; }
  ZKP_HD bool operator!=(const Fp2& o) const { return !(*this == o); }

  ZKP_HD Fp2 operator+(const Fp2& b) const { return {c0 + b.c0, c1 + b.c1}; }
  ZKP_HD Fp2 operator-(const Fp2& b) const { return {c0 - b.c0, c1 - b.c1}; }
  ZKP_HD Fp2 operator-() const { return {-c0, -c1}; }
  ZKP_HD Fp2 dbl() const { return {c0.dbl(), c1.dbl()}; }
  ZKP_HD Fp2& operator+=(const Fp2& b) { return *this = *this + b; }
  ZKP_HD Fp2& operator-=(const Fp2& b) { return *this = *this - b; }
  ZKP_HD Fp2& operator*=(const Fp2& b) {
#if defined(ZKP_HAVE_MONT_MUL_ADX) && !defined(__CUDA_ARCH__)
    if (kCpuHasAdx) [[likely]] {
      fp2_mul_lazy(*this, *this, b);
      return *this;
    }
#endif
    return *this = *this * b;
  }

  // Karatsuba: three Fp multiplications (on x86-64 hosts with ADX, fp2_mul_lazy).
  ZKP_HD Fp2 operator*(const Fp2& b) const {
#if defined(ZKP_HAVE_MONT_MUL_ADX) && !defined(__CUDA_ARCH__)
    if (kCpuHasAdx) [[likely]] {
      Fp2 r;
      fp2_mul_lazy(r, *this, b);
      return r;
    }
#endif
    return mul_karatsuba(b);
  }
  ZKP_HD Fp2 mul_karatsuba(const Fp2& b) const {
    Fp v0 = c0 * b.c0;
    Fp v1 = c1 * b.c1;
    return {v0 - v1, (c0 + c1) * (b.c0 + b.c1) - v0 - v1};
  }
  ZKP_HD Fp2 operator*(const Fp& s) const {
    return {c0 * s, c1 * s};
  }
  // (a0 + a1 u)^2 = (a0 + a1)(a0 - a1) + 2 a0 a1 u: two Fp multiplications.
  ZKP_HD Fp2 sqr() const {
#if defined(ZKP_HAVE_MONT_MUL_ADX) && !defined(__CUDA_ARCH__)
    if (kCpuHasAdx) [[likely]] {
      Fp2 r;
      fp2_sqr_lazy(r, *this);
      return r;
    }
#endif
    return sqr_portable();
  }
  ZKP_HD Fp2 sqr_portable() const {
    return {(c0 + c1) * (c0 - c1), (c0 * c1).dbl()};
  }
  // Multiplication by the sextic non-residue u + 1 (used by Fp6).
  ZKP_HD Fp2 mul_by_nonresidue() const {
    return {c0 - c1, c0 + c1};
  }
  // a^p = conjugate (u^p = -u since p = 3 mod 4).
  ZKP_HD Fp2 conjugate() const {
    return {c0, -c1};
  }
  ZKP_HD Fp2 frobenius(size_t power) const {
    return power % 2 ? conjugate() : *this;
  }
  // Inverse of 0 is 0.
  ZKP_HD Fp2 inverse() const {
    Fp t = (c0.sqr() + c1.sqr()).inverse();
    return {c0 * t, -(c1 * t)};
  }
  template <size_t M>
  ZKP_HD Fp2 pow(const Limbs<M>& e) const {
    Fp2 r = one();
    for (size_t i = M * 64; i-- > 0;) {
      r = r.sqr();
      if ((e[i / 64] >> (i % 64)) & 1) r = r * *this;
    }
    return r;
  }

  // A square root, false when none exists.
  bool sqrt(Fp2& out) const;
  // zcash "sign": c1 > (p-1)/2, or c1 == 0 and c0 > (p-1)/2.
  bool lexicographically_largest() const;
  std::string to_hex() const {
    return c0.to_hex() + "," + c1.to_hex();
  }
};

static_assert(sizeof(Fp2) == 96);

// For Fp: y > (p - 1) / 2 (the zcash sign bit).
bool lexicographically_largest(const Fp& y);

}  // namespace zkpipe::crypto
