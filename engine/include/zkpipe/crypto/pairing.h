// zkpipe/crypto/pairing.h: the optimal ate pairing e: G1 x G2 -> GT (a subgroup of Fp12) of
// BLS12-381, its Miller loop (one or many pairs sharing the Fp12 squarings), the final
// exponentiation, the product check that Groth16 verification uses, and G2Prepared (the line
// coefficients of a fixed G2 point, for verifying many proofs against one key). Inputs must be
// points of G1 and G2 (decoders check this); the identity in either argument gives 1.
// Host only. Thread-safety: values and pure functions.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>

#include "zkpipe/crypto/curves.h"
#include "zkpipe/crypto/fp12.h"

namespace zkpipe::crypto {

// The BLS parameter is x = -kPairingXAbs: p = (x - 1)^2 (x^4 - x^2 + 1) / 3 + x, r = x^4 - x^2 + 1.
inline constexpr uint64_t kPairingXAbs = 0xd201000000010000ull;
inline constexpr bool kPairingXIsNegative = true;

// A line of the Miller loop before evaluation at P = (xP, yP) in G1:
// l(P) = c0 + (c1 xP) v + (c4 yP) v w, up to a factor in a proper subfield that the final
// exponentiation removes.
struct LineCoeffs {
  Fp2 c0, c1, c4;
};

// The lines of the Miller loop of a fixed Q in G2: one per doubling and one per addition, in the
// order the loop consumes them.
class G2Prepared {
 public:
  static constexpr size_t kDoublings = std::bit_width(kPairingXAbs) - 1;
  static constexpr size_t kAdditions = std::popcount(kPairingXAbs) - 1;
  static constexpr size_t kLines = kDoublings + kAdditions;

  G2Prepared() = default;  // the identity: contributes 1 to every product
  explicit G2Prepared(const G2Affine& q);

  bool is_identity() const { return identity_; }
  const std::array<LineCoeffs, kLines>& lines() const { return lines_; }

 private:
  std::array<LineCoeffs, kLines> lines_{};
  bool identity_ = true;
};

using PairingInput = std::pair<G1Affine, G2Affine>;
using PreparedPairingInput = std::pair<G1Affine, const G2Prepared*>;  // pointer not null

// f_{x,Q}(P) of the optimal ate pairing (conjugated since x < 0); 1 when P or Q is the identity.
Fp12 miller_loop(const G1Affine& p, const G2Affine& q);
Fp12 miller_loop(const G1Affine& p, const G2Prepared& q);

// The product of the Miller loops of all pairs, with one squaring chain for all of them.
Fp12 multi_miller_loop(std::span<const PairingInput> pairs);
Fp12 multi_miller_loop(std::span<const PreparedPairingInput> pairs);

// f^(3 (p^12 - 1) / r): the hard part uses 3 (p^4 - p^2 + 1) / r = (x - 1)^2 (x + p)
// (x^2 + p^2 - 1) + 3, as blst, zkcrypto and noble do (same values; cubing is a bijection of GT).
Fp12 final_exponentiation(const Fp12& f);

Fp12 pairing(const G1Affine& p, const G2Affine& q);
// The product of the pairings of all pairs, with one final exponentiation.
Fp12 multi_pairing(std::span<const PairingInput> pairs);
Fp12 multi_pairing(std::span<const PreparedPairingInput> pairs);

// Whether the product of the pairings is 1 (e.g. Groth16: e(A, B) e(-alpha, beta) ... == 1).
bool pairing_product_is_one(std::span<const PairingInput> pairs);
bool pairing_product_is_one(std::span<const PreparedPairingInput> pairs);

}  // namespace zkpipe::crypto
