// zkpipe/crypto/group_ops.h: the BLS12-381 endomorphisms and what they make fast: subgroup
// membership tests (Scott 2021, eprint 2021/1130), GLV scalar multiplication on G1, wNAF and
// GLS (4-dimensional, through psi) scalar multiplication on G2. Constants are derived from p at
// first use. Host only; variable-time (not for scalars that must stay secret from timing).
// Thread-safety: pure functions; the derived constants are thread-safe statics.
#pragma once

#include <cstdint>

#include "zkpipe/crypto/curves.h"

namespace zkpipe::crypto {

// The curve parameter x = -0xd201000000010000: r = x^4 - x^2 + 1, p = (x-1)^2 r / 3 + x.
inline constexpr uint64_t kBlsXAbs = 0xd201000000010000ull;
inline constexpr bool kBlsXIsNegative = true;

// ---- endomorphisms --------------------------------------------------------------------------
// phi(x, y) = (beta x, y) on G1, beta a primitive cube root of unity in Fp, chosen so that phi
// acts on G1 as multiplication by g1_lambda() = -x^2 mod r.
const Fp& g1_beta();
const Fr& g1_lambda();
G1 g1_phi(const G1& p);

// psi = twist^-1 . Frobenius . twist on G2: psi(x, y) = (conj(x) cx, conj(y) cy) with
// cx = (u+1)^-((p-1)/3), cy = (u+1)^-((p-1)/2). On G2 it acts as multiplication by p = x mod r.
struct PsiCoefficients {
  Fp2 cx, cy;
};
const PsiCoefficients& g2_psi_coefficients();
G2 g2_psi(const G2& p);

// [|x|] P: 63 doublings and 5 additions.
G1 mul_by_x_abs(const G1& p);
G2 mul_by_x_abs(const G2& p);

// ---- subgroup membership (the input must be on the curve) ------------------------------------
// G1: phi(P) == [-x^2] P.  G2: psi(P) == [x] P.  Both exact on the whole curve (Scott 2021).
bool g1_in_subgroup(const G1& p);
bool g2_in_subgroup(const G2& p);
inline bool g1_in_subgroup(const G1Affine& p) {
  return g1_in_subgroup(G1::from_affine(p));
}
inline bool g2_in_subgroup(const G2Affine& p) {
  return g2_in_subgroup(G2::from_affine(p));
}
// The reference: [r] P == O (plain double-and-add).
bool g1_in_subgroup_naive(const G1& p);
bool g2_in_subgroup_naive(const G2& p);

// ---- scalar decompositions ------------------------------------------------------------------
// k = d0 + d1 |x| + d2 |x|^2 + d3 |x|^3 with 0 <= d_i < |x| (exists since k < r < x^4).
struct BaseXDigits {
  uint64_t d[4];
};
BaseXDigits decompose_base_x(const Fr& k);

// GLV on G1: k = k1 + k2 * x^2 with 0 <= k1, k2 < x^2 < 2^128, so, as [x^2] = -phi on G1,
// [k] P = [k1] P + [k2] (-phi(P)). Limbs are little-endian.
struct GlvScalars {
  Limbs<2> k1, k2;
};
GlvScalars glv_decompose(const Fr& k);

// ---- scalar multiplication (all equal to the plain p.mul(k.to_canonical())) -----------------
// G1: GLV with a joint width-5 wNAF (Straus-Shamir) over P and -phi(P): ~128 doublings.
// P must be in G1 (phi acts as [-x^2] only there); elsewhere use mul_wnaf.
G1 mul_glv(const G1& p, const Fr& k);
// Width-5 wNAF, ~255 doublings (the one-dimensional reference for G1 and G2).
G1 mul_wnaf(const G1& p, const Fr& k);
G2 mul_wnaf(const G2& p, const Fr& k);
// G2: GLS with psi, k split into 4 digits of 64 bits, joint width-4 wNAF over (-psi)^i (P):
// ~64 doublings. P must be in G2 (psi acts as [x] only there); elsewhere use mul_wnaf.
G2 mul_gls(const G2& p, const Fr& k);

}  // namespace zkpipe::crypto
