// The host's one copy of the larger Fp6 operations (explicit instantiation of the template in
// zkpipe/crypto/fp6.h), and the Frobenius coefficients of the Fp2 < Fp6 < Fp12 tower, derived
// from p at first use: nothing here is a typed-in constant (tests/crypto/tower_test.cpp
// recomputes each one with an independent big-integer exponent). Thread-safety: the table is a
// function-local static (initialised once, thread-safely) and read-only afterwards.
#include "zkpipe/crypto/fp6.h"

#include <array>

namespace zkpipe::crypto {
namespace {

// (p - 1) / 6: p = 1 mod 6 (p is odd and p = 1 mod 3 for a BLS12 curve), so this is exact.
constexpr Fp::L kPMinus1Over6 = limbs_div_exact(Fp::kPMinus1, 6);
constexpr bool six_times_is(const Fp::L& q, const Fp::L& want) {
  Fp::L acc{};
  for (int i = 0; i < 6; ++i) limbs_add(acc, q);
  return acc == want;
}
static_assert(six_times_is(kPMinus1Over6, Fp::kPMinus1), "p - 1 must be divisible by 6");

using Table = std::array<std::array<Fp2, 6>, 12>;

// Derivation. Let xi = u + 1 (w^6 = v^3 = xi) and gamma_k = xi^((p^k - 1) / 6). Then
//   w^(p^k) = w * w^(p^k - 1) = w * (w^6)^((p^k - 1) / 6) = gamma_k w,
// so the coefficient of w^j is multiplied by gamma_k^j = gamma(k, j). Since
//   (p^k - 1) / 6 = (p - 1) / 6 + p (p^(k-1) - 1) / 6,
// gamma_k = gamma_1 * gamma_(k-1)^p, and the p-th power in Fp2 is conjugation. Only gamma_1 needs
// an exponentiation, by (p - 1) / 6.
Table build_table() {
  const Fp2 xi = Fp2::one().mul_by_nonresidue();
  const Fp2 gamma1 = xi.pow(kPMinus1Over6);
  Table t;
  Fp2 gamma = Fp2::one();  // gamma_0 = xi^0
  for (size_t k = 0; k < 12; ++k) {
    if (k > 0) gamma = gamma1 * gamma.conjugate();
    Fp2 g = Fp2::one();
    for (size_t j = 0; j < 6; ++j) {
      t[k][j] = g;
      g = g * gamma;
    }
  }
  return t;
}

}  // namespace

template struct Fp6T<Fp2>;

const Fp2& frobenius_coeff(size_t k, size_t j) {
  static const Table table = build_table();
  return table[k][j];
}

}  // namespace zkpipe::crypto
