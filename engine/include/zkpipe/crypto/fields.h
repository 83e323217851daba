// zkpipe/crypto/fields.h: the two prime fields of BLS12-381. Only the moduli are written here;
// every Montgomery constant is derived from them (mont_field.h), and tests recompute them.
// Thread-safety: values.
#pragma once

#include "zkpipe/crypto/mont_field.h"

namespace zkpipe::crypto {

// p =
// 0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab
struct FpParams {
  static constexpr size_t kLimbs = 6;
  static constexpr Limbs<6> kModulus = {0xb9feffffffffaaabull, 0x1eabfffeb153ffffull,
                                        0x6730d2a0f6b0f624ull, 0x64774b84f38512bfull,
                                        0x4b1ba7b6434bacd7ull, 0x1a0111ea397fe69aull};
  static constexpr const char* kName = "Fp";
};

// r = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001 (the group order)
struct FrParams {
  static constexpr size_t kLimbs = 4;
  static constexpr Limbs<4> kModulus = {0xffffffff00000001ull, 0x53bda402fffe5bfeull,
                                        0x3339d80809a1d805ull, 0x73eda753299d7d48ull};
  static constexpr const char* kName = "Fr";
};

using Fp = MontField<FpParams>;
using Fr = MontField<FrParams>;

// a^-1 mod p for 0 < a < p as plain integers (not Montgomery form): Bernstein-Yang divsteps,
// variable time (~3 us against ~15 us for binary Euclid); engine/crypto/fp_inverse.cpp. Host only.
Limbs<6> fp_inverse_vartime(const Limbs<6>& a);
// Fp's host inversion uses it (the generic binary Euclid serves Fr).
template <>
Fp Fp::inverse_binary() const;

// Host and device see the same layout: plain limb arrays, no padding.
static_assert(sizeof(Fp) == 48 && alignof(Fp) == 8);
static_assert(sizeof(Fr) == 32 && alignof(Fr) == 8);
static_assert(Fp::kBits == 381 && Fr::kBits == 255);
static_assert(Fr::kTwoAdicity == 32);
static_assert(Fp::kTwoAdicity == 1);  // p = 3 mod 4

}  // namespace zkpipe::crypto
