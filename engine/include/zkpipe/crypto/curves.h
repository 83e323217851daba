// zkpipe/crypto/curves.h: the two groups of BLS12-381: G1 over Fp (y^2 = x^3 + 4) and G2 over
// Fp2 (y^2 = x^3 + 4(u + 1)), their generators, and scalar multiplication by Fr.
// Thread-safety: values; generator() values are computed once, thread-safely.
#pragma once

#include "zkpipe/crypto/curve.h"
#include "zkpipe/crypto/fp2.h"

namespace zkpipe::crypto {

struct G1Config {
  static ZKP_HD Fp b() { return Fp::from_u64(4); }
};
struct G2Config {
  static ZKP_HD Fp2 b() { return {Fp::from_u64(4), Fp::from_u64(4)}; }
};

using G1 = JacobianPoint<Fp, G1Config>;
using G2 = JacobianPoint<Fp2, G2Config>;
using G1Affine = AffinePoint<Fp>;
using G2Affine = AffinePoint<Fp2>;

// The standard generators (zcash / IETF pairing-friendly-curves draft).
const G1Affine& g1_generator();
const G2Affine& g2_generator();

inline G1 operator*(const G1& p, const Fr& k) {
  return p.mul(k.to_canonical());
}
inline G2 operator*(const G2& p, const Fr& k) {
  return p.mul(k.to_canonical());
}

}  // namespace zkpipe::crypto
