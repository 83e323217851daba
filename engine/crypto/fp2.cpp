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
