// zkpipe/crypto/bigint.h: fixed-size unsigned integers as little-endian 64-bit limbs, with the
// constexpr operations used to DERIVE field constants from a modulus at compile time (R mod p,
// R^2 mod p, -p^-1 mod 2^64, (p-1)/2, ...), so no constant is typed in by hand but the modulus.
// Thread-safety: values and pure functions.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "zkpipe/crypto/hd.h"

namespace zkpipe::crypto {

template <size_t N>
using Limbs = std::array<uint64_t, N>;

template <size_t N>
constexpr bool limbs_less(const Limbs<N>& a, const Limbs<N>& b) {
  for (size_t i = N; i-- > 0;) {
    if (a[i] != b[i]) return a[i] < b[i];
  }
  return false;
}

template <size_t N>
constexpr bool limbs_is_zero(const Limbs<N>& a) {
  for (uint64_t x : a) {
    if (x != 0) return false;
  }
  return true;
}

// a + b, returning the carry.
template <size_t N>
constexpr uint64_t limbs_add(Limbs<N>& a, const Limbs<N>& b) {
  uint64_t c = 0;
  for (size_t i = 0; i < N; ++i) a[i] = adc(a[i], b[i], c, c);
  return c;
}

// a - b, returning the borrow.
template <size_t N>
constexpr uint64_t limbs_sub(Limbs<N>& a, const Limbs<N>& b) {
  uint64_t br = 0;
  for (size_t i = 0; i < N; ++i) a[i] = sbb(a[i], b[i], br, br);
  return br;
}

template <size_t N>
constexpr Limbs<N> limbs_shr1(Limbs<N> a) {
  for (size_t i = 0; i < N; ++i) a[i] = (a[i] >> 1) | (i + 1 < N ? a[i + 1] << 63 : 0);
  return a;
}

template <size_t N>
constexpr Limbs<N> limbs_from_u64(uint64_t v) {
  Limbs<N> r{};
  r[0] = v;
  return r;
}

template <size_t N>
constexpr bool limbs_bit(const Limbs<N>& a, size_t i) {
  return ((a[i / 64] >> (i % 64)) & 1) != 0;
}

template <size_t N>
constexpr size_t limbs_bit_length(const Limbs<N>& a) {
  for (size_t i = N; i-- > 0;) {
    if (a[i] != 0) return i * 64 + 64 - static_cast<size_t>(__builtin_clzll(a[i]));
  }
  return 0;
}

// (2 * a) mod m for a < m.
template <size_t N>
constexpr Limbs<N> limbs_double_mod(Limbs<N> a, const Limbs<N>& m) {
  uint64_t top = a[N - 1] >> 63;
  Limbs<N> d = a;
  limbs_add(d, a);
  if (top != 0 || !limbs_less(d, m)) limbs_sub(d, m);
  return d;
}

// 2^k mod m, by k doublings of 1 (m > 1).
template <size_t N>
constexpr Limbs<N> limbs_pow2_mod(size_t k, const Limbs<N>& m) {
  Limbs<N> r = limbs_from_u64<N>(1);
  for (size_t i = 0; i < k; ++i) r = limbs_double_mod(r, m);
  return r;
}

// a / d for d < 2^32 dividing a exactly (long division over 32-bit halves, most significant
// first). For constants: a remainder throws, which makes the constant evaluation fail.
template <size_t N>
constexpr Limbs<N> limbs_div_exact(Limbs<N> a, uint64_t d) {
  if (d == 0 || d >> 32) throw "limbs_div_exact: the divisor must be in [1, 2^32)";
  uint64_t rem = 0;
  for (size_t i = N; i-- > 0;) {
    const uint64_t hi = (rem << 32) | (a[i] >> 32);
    const uint64_t lo = ((hi % d) << 32) | (a[i] & 0xffffffffull);
    a[i] = ((hi / d) << 32) | (lo / d);
    rem = lo % d;
  }
  if (rem != 0) throw "limbs_div_exact: not divisible";
  return a;
}

// -m^-1 mod 2^64 for odd m, by Newton's iteration x <- x (2 - m x) (doubles correct bits).
constexpr uint64_t neg_inverse_mod_2_64(uint64_t m0) {
  uint64_t x = 1;
  for (int i = 0; i < 7; ++i) x *= 2 - m0 * x;
  return ~x + 1;
}

}  // namespace zkpipe::crypto
