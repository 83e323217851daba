// BLS12-381 endomorphisms (phi on G1, psi on G2), the subgroup tests built on them, and
// GLV / wNAF / GLS scalar multiplication (host only, variable-time).
// Thread-safety: pure functions; beta, lambda and psi's coefficients are computed once in
// function-local statics (thread-safe initialisation).
#include "zkpipe/crypto/group_ops.h"

#include <algorithm>
#include <cstdlib>

namespace zkpipe::crypto {
namespace {

// p = 1 mod 6, so (p-1)/3 is exact: the exponent that maps Fp* onto the cube roots of unity.
constexpr Fp::L kPMinus1Third = limbs_div_exact(Fp::kPMinus1, 3);
static_assert(!limbs_is_zero(kPMinus1Third), "p - 1 must be divisible by 3");

// The curve parameter, checked at compile time against both moduli: r = x^4 - x^2 + 1 and
// p = (x - 1)^2 r / 3 + x, with x = -|x|, so (x - 1)^2 = (|x| + 1)^2.
template <size_t A, size_t B>
constexpr Limbs<A + B> mul_wide(const Limbs<A>& a, const Limbs<B>& b) {
  Limbs<A + B> r{};
  for (size_t i = 0; i < A; ++i) {
    uint64_t carry = 0;
    for (size_t j = 0; j < B; ++j) r[i + j] = mac(a[i], b[j], r[i + j], carry, carry);
    r[i + B] = carry;
  }
  return r;
}
constexpr bool x_gives_moduli() {
  const Limbs<2> x2 = mul_wide(Limbs<1>{kBlsXAbs}, Limbs<1>{kBlsXAbs});
  Limbs<4> r = mul_wide(x2, x2);
  limbs_sub(r, Limbs<4>{x2[0], x2[1], 0, 0});
  limbs_add(r, limbs_from_u64<4>(1));
  const Limbs<2> x_plus_1_sq = mul_wide(Limbs<1>{kBlsXAbs + 1}, Limbs<1>{kBlsXAbs + 1});
  Fp::L p = limbs_div_exact(mul_wide(x_plus_1_sq, r), 3);
  limbs_sub(p, limbs_from_u64<6>(kBlsXAbs));
  return kBlsXIsNegative && r == Fr::kModulus && p == Fp::kModulus;
}
static_assert(x_gives_moduli(), "x = -0xd201000000010000 must give BLS12-381's r and p");

// Point arithmetic is ZKP_HD (forced inline, ~100-300 KB of code per G1/G2 addition); here each
// operation is instantiated once per group behind a call, which cuts this file's compile time
// from minutes to about one at no measurable cost (a call is nothing next to an addition).
template <typename P>
[[gnu::noinline]] P add(const P& a, const P& b) {
  return a + b;
}
template <typename P>
[[gnu::noinline]] P dbl(const P& a) {
  return a.dbl();
}
template <typename P>
[[gnu::noinline]] bool equal(const P& a, const P& b) {
  return a == b;
}

// [k] P for a 64-bit k by double-and-add from the top set bit.
template <typename P>
P mul_u64(const P& p, uint64_t k) {
  if (k == 0) return P::identity();
  P r = p;
  for (int i = 62 - __builtin_clzll(k); i >= 0; --i) {
    r = dbl(r);
    if ((k >> i) & 1) r = add(r, p);
  }
  return r;
}

// [k] P by plain double-and-add (JacobianPoint::mul, without instantiating the arithmetic again).
template <typename P, size_t N>
P mul_limbs(const P& p, const Limbs<N>& k) {
  P r = P::identity();
  for (size_t i = limbs_bit_length(k); i-- > 0;) {
    r = dbl(r);
    if (limbs_bit(k, i)) r = add(r, p);
  }
  return r;
}

G1 phi_with(const G1& p, const Fp& beta) {
  return {p.x * beta, p.y, p.z};
}

// ---- wNAF -------------------------------------------------------------------------------------
// Width-w non-adjacent form of k, least significant digit first: every non-zero digit is odd,
// |digit| < 2^(w-1), and any w consecutive digits hold at most one non-zero. Returns the number
// of digits (at most the bit length of k plus one); `out` holds N * 64 + 1 digits.
template <size_t N>
int wnaf_recode(const Limbs<N>& k_in, int w, int8_t* out) {
  Limbs<N + 1> k{};
  std::copy(k_in.begin(), k_in.end(), k.begin());
  const int window = 1 << w;
  int len = 0;
  while (!limbs_is_zero(k)) {
    int digit = 0;
    if (k[0] & 1) {
      digit = static_cast<int>(k[0] & static_cast<uint64_t>(window - 1));
      if (digit >= window / 2) digit -= window;
      // k -= digit makes the low w bits zero.
      if (digit > 0) {
        limbs_sub(k, limbs_from_u64<N + 1>(static_cast<uint64_t>(digit)));
      } else {
        limbs_add(k, limbs_from_u64<N + 1>(static_cast<uint64_t>(-digit)));
      }
    }
    out[len++] = static_cast<int8_t>(digit);
    k = limbs_shr1(k);
  }
  return len;
}

// The odd multiples P, 3P, ..., (2^(W-1) - 1) P used by width-W digits.
template <typename P, int W>
struct OddMultiples {
  static constexpr int kSize = 1 << (W - 2);
  P t[kSize];

  explicit OddMultiples(const P& p) {
    t[0] = p;
    const P p2 = dbl(p);
    for (int i = 1; i < kSize; ++i) t[i] = add(t[i - 1], p2);
  }
  OddMultiples() = default;
};

// Straus-Shamir: sum over j of [k_j] B_j with one shared chain of doublings, every k_j given as
// width-W wNAF digits and every B_j by its table of odd multiples.
template <typename P, int W, size_t D>
P straus(const OddMultiples<P, W> (&tables)[D], const int8_t* const (&digits)[D],
         const int (&lens)[D]) {
  const int len = *std::max_element(lens, lens + D);
  P r = P::identity();
  for (int i = len - 1; i >= 0; --i) {
    r = dbl(r);
    for (size_t j = 0; j < D; ++j) {
      if (i >= lens[j]) continue;
      const int d = digits[j][i];
      if (d > 0) {
        r = add(r, tables[j].t[d >> 1]);
      } else if (d < 0) {
        r = add(r, -tables[j].t[(-d) >> 1]);
      }
    }
  }
  return r;
}

template <typename P>
P mul_wnaf_generic(const P& p, const Fr& k) {
  constexpr int kW = 5;
  const Limbs<4> kc = k.to_canonical();
  int8_t digits[4 * 64 + 1];
  const OddMultiples<P, kW> tables[1] = {OddMultiples<P, kW>(p)};
  const int8_t* const ds[1] = {digits};
  const int lens[1] = {wnaf_recode(kc, kW, digits)};
  return straus(tables, ds, lens);
}

}  // namespace

// ---- endomorphisms --------------------------------------------------------------------------

const Fp& g1_beta() {
  static const Fp beta = [] {
    // 3 divides p - 1, so c -> c^((p-1)/3) maps Fp* onto the three cube roots of unity, and a c
    // that is not a cube gives a primitive one, w. The two primitive roots w and w^2 give two
    // endomorphisms (x, y) -> (w x, y) of order 3; on G1 they act as the two roots of
    // lambda^2 + lambda + 1 = 0 mod r, which are -x^2 and x^2 - 1 (r = x^4 - x^2 + 1). We keep
    // the root for -x^2, identified on the generator.
    Fp w = Fp::one();
    for (uint64_t c = 2; w.is_one(); ++c) w = Fp::from_u64(c).pow(kPMinus1Third);
    const G1 g = G1::from_affine(g1_generator());
    const G1 minus_x2_g = -mul_by_x_abs(mul_by_x_abs(g));
    if (equal(phi_with(g, w), minus_x2_g)) return w;
    if (equal(phi_with(g, w.sqr()), minus_x2_g)) return w.sqr();
    std::abort();  // unreachable for BLS12-381: a test checks beta independently
  }();
  return beta;
}

const Fr& g1_lambda() {
  static const Fr lambda = -Fr::from_u64(kBlsXAbs).sqr();  // -x^2 mod r
  return lambda;
}

G1 g1_phi(const G1& p) {
  return phi_with(p, g1_beta());
}

const PsiCoefficients& g2_psi_coefficients() {
  static const PsiCoefficients c = [] {
    // G2 lives on the twist E'(Fp2): y^2 = x^3 + 4 xi, xi = u + 1. With Fp12 = Fp2[w]/(w^6 - xi)
    // the untwisting map is (x, y) -> (x / w^2, y / w^3) onto E: y^2 = x^3 + 4. Conjugating the
    // p-power Frobenius by it: x -> (x^p / w^(2p)) w^2 = x^p (w^6)^((1-p)/3) = x^p xi^-((p-1)/3),
    // and likewise y -> y^p xi^-((p-1)/2). On Fp2, x^p is the conjugate.
    const Fp2 xi{Fp::one(), Fp::one()};
    return PsiCoefficients{xi.pow(kPMinus1Third).inverse(), xi.pow(Fp::kPMinus1Half).inverse()};
  }();
  return c;
}

G2 g2_psi(const G2& p) {
  // Jacobian: x = X / Z^2, so conj(X) cx / conj(Z)^2 = psi's x; same for y with Z^3.
  const PsiCoefficients& c = g2_psi_coefficients();
  return {p.x.conjugate() * c.cx, p.y.conjugate() * c.cy, p.z.conjugate()};
}

G1 mul_by_x_abs(const G1& p) {
  return mul_u64(p, kBlsXAbs);
}
G2 mul_by_x_abs(const G2& p) {
  return mul_u64(p, kBlsXAbs);
}

// ---- subgroup membership ----------------------------------------------------------------------

bool g1_in_subgroup(const G1& p) {
  // phi(P) == [-x^2] P, i.e. -phi(P) == [|x|]([|x|] P).
  return equal(-g1_phi(p), mul_by_x_abs(mul_by_x_abs(p)));
}

bool g2_in_subgroup(const G2& p) {
  // psi(P) == [x] P = -[|x|] P (x < 0).
  return equal(-g2_psi(p), mul_by_x_abs(p));
}

bool g1_in_subgroup_naive(const G1& p) {
  return mul_limbs(p, Fr::kModulus).is_identity();
}
bool g2_in_subgroup_naive(const G2& p) {
  return mul_limbs(p, Fr::kModulus).is_identity();
}

// ---- decompositions -------------------------------------------------------------------------

BaseXDigits decompose_base_x(const Fr& k) {
  Limbs<4> v = k.to_canonical();
  BaseXDigits out{};
  for (uint64_t& digit : out.d) {
    u128 rem = 0;
    for (size_t i = 4; i-- > 0;) {
      const u128 cur = (rem << 64) | v[i];
      v[i] = static_cast<uint64_t>(cur / kBlsXAbs);
      rem = cur % kBlsXAbs;
    }
    digit = static_cast<uint64_t>(rem);
  }
  return out;  // v is now 0: k < r < x^4
}

GlvScalars glv_decompose(const Fr& k) {
  const BaseXDigits b = decompose_base_x(k);
  auto join = [](uint64_t lo, uint64_t hi) {
    // lo + hi |x| < |x|^2 < 2^128.
    const u128 v = static_cast<u128>(hi) * kBlsXAbs + lo;
    return Limbs<2>{static_cast<uint64_t>(v), static_cast<uint64_t>(v >> 64)};
  };
  return {join(b.d[0], b.d[1]), join(b.d[2], b.d[3])};
}

// ---- scalar multiplication ------------------------------------------------------------------

G1 mul_glv(const G1& p, const Fr& k) {
  constexpr int kW = 5;
  const GlvScalars s = glv_decompose(k);
  OddMultiples<G1, kW> tables[2];
  tables[0] = OddMultiples<G1, kW>(p);
  // Odd multiples of -phi(P) = [x^2] P, at one multiplication each.
  for (int i = 0; i < OddMultiples<G1, kW>::kSize; ++i) tables[1].t[i] = -g1_phi(tables[0].t[i]);
  int8_t d1[2 * 64 + 1], d2[2 * 64 + 1];
  const int8_t* const ds[2] = {d1, d2};
  const int lens[2] = {wnaf_recode(s.k1, kW, d1), wnaf_recode(s.k2, kW, d2)};
  return straus(tables, ds, lens);
}

G1 mul_wnaf(const G1& p, const Fr& k) {
  return mul_wnaf_generic(p, k);
}
G2 mul_wnaf(const G2& p, const Fr& k) {
  return mul_wnaf_generic(p, k);
}

G2 mul_gls(const G2& p, const Fr& k) {
  constexpr int kW = 4;
  const BaseXDigits b = decompose_base_x(k);
  OddMultiples<G2, kW> tables[4];
  tables[0] = OddMultiples<G2, kW>(p);
  // [|x|^i] P = (-psi)^i (P) on G2; psi is linear, so it maps odd multiples to odd multiples.
  for (int j = 1; j < 4; ++j) {
    for (int i = 0; i < OddMultiples<G2, kW>::kSize; ++i) {
      tables[j].t[i] = -g2_psi(tables[j - 1].t[i]);
    }
  }
  int8_t digits[4][64 + 1];
  const int8_t* const ds[4] = {digits[0], digits[1], digits[2], digits[3]};
  int lens[4];
  for (int j = 0; j < 4; ++j) lens[j] = wnaf_recode(Limbs<1>{b.d[j]}, kW, digits[j]);
  return straus(tables, ds, lens);
}

}  // namespace zkpipe::crypto
