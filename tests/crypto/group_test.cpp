// G1/G2 group operations: endomorphism constants recomputed independently, the fast subgroup
// tests against [r]P == O on subgroup points and on curve points outside the subgroup, GLV /
// wNAF / GLS against the plain double-and-add, and the group law against @noble/curves.
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "crypto/vectors.h"
#include "zkpipe/crypto/group_ops.h"
#include "zkpipe/crypto/serialize.h"

using namespace zkpipe::crypto;
using zkpipe::test::hex;
using zkpipe::test::load_vectors;
using zkpipe::test::unhex;

namespace {

// Point arithmetic is forced inline (ZKP_HD); going through these keeps one copy per group in
// this file, which keeps its compile time short. Points compare by their compressed encoding,
// which also makes failures readable.
template <typename P>
[[gnu::noinline]] P sum(const P& a, const P& b) {
  return a + b;
}
template <typename P>
[[gnu::noinline]] P twice(const P& a) {
  return a.dbl();
}
// [k] P by double-and-add through sum/twice (for multipliers wider than Fr, such as p).
template <typename P, size_t N>
P mul_wide(const P& p, const Limbs<N>& k) {
  P r = P::identity();
  for (size_t i = limbs_bit_length(k); i-- > 0;) {
    r = twice(r);
    if (limbs_bit(k, i)) r = sum(r, p);
  }
  return r;
}
[[gnu::noinline]] std::string hex_of(const G1& p) {
  uint8_t b[kG1CompressedBytes];
  encode_g1_compressed(p.to_affine(), b);
  return hex(b, sizeof b);
}
[[gnu::noinline]] std::string hex_of(const G2& p) {
  uint8_t b[kG2CompressedBytes];
  encode_g2_compressed(p.to_affine(), b);
  return hex(b, sizeof b);
}

G1 g1_point(const nlohmann::json& j) {
  const std::vector<uint8_t> b = unhex(j.get<std::string>());
  auto r = decode_g1(b.data(), b.size());
  if (!r.ok()) throw std::runtime_error(r.status().to_string());
  return G1::from_affine(*r);
}

G2 g2_point(const nlohmann::json& j) {
  const std::vector<uint8_t> b = unhex(j.get<std::string>());
  auto r = decode_g2(b.data(), b.size());
  if (!r.ok()) throw std::runtime_error(r.status().to_string());
  return G2::from_affine(*r);
}

// Curve points from random x (retrying until x^3 + b is a square), cofactor NOT cleared.
G1 random_g1_curve_point(std::mt19937_64& rng) {
  for (;;) {
    Fp x = Fp::random(rng), y;
    if ((x.sqr() * x + G1Config::b()).sqrt(y)) return G1::from_affine({x, y, false});
  }
}
G2 random_g2_curve_point(std::mt19937_64& rng) {
  for (;;) {
    Fp2 x{Fp::random(rng), Fp::random(rng)}, y;
    if ((x.sqr() * x + G2Config::b()).sqrt(y)) return G2::from_affine({x, y, false});
  }
}

// p mod r, by Horner over the limbs of p.
Fr fp_modulus_mod_r() {
  const Fr two64 = Fr::from_u64(1ull << 32).sqr();
  Fr acc = Fr::zero();
  for (size_t i = Fp::kLimbs; i-- > 0;) acc = acc * two64 + Fr::from_u64(Fp::kModulus[i]);
  return acc;
}

// Scalars that stress the decompositions: 0, 1, 2, r-1, r-2, (r-1)/2, powers of |x| and their
// neighbours, lambda, 2^k, then random ones.
std::vector<Fr> test_scalars(std::mt19937_64& rng, int random_count) {
  const Fr x = Fr::from_u64(kBlsXAbs), one = Fr::one();
  std::vector<Fr> s = {Fr::zero(),
                       one,
                       one + one,
                       -one,
                       -(one + one),
                       Fr::from_canonical(Fr::kPMinus1Half),
                       x,
                       x - one,
                       x + one,
                       x.sqr(),
                       x.sqr() - one,
                       x.sqr() + one,
                       x.sqr() * x,
                       x.sqr() * x - one,
                       g1_lambda(),
                       -g1_lambda(),
                       Fr::from_u64(1ull << 32).sqr().sqr(),
                       Fr::from_u64(1ull << 63)};
  for (int i = 0; i < random_count; ++i) s.push_back(Fr::random(rng));
  return s;
}

}  // namespace

TEST_CASE("G1 endomorphism: beta is a cube root of unity and phi acts as -x^2", "[crypto]") {
  const Fp beta = g1_beta();
  CHECK(beta != Fp::one());
  CHECK(beta.sqr() * beta == Fp::one());
  const Fr lambda = g1_lambda();
  const Fr x = Fr::from_u64(kBlsXAbs);
  CHECK(lambda == -x.sqr());
  CHECK(lambda.sqr() + lambda + Fr::one() == Fr::zero());
  CHECK(x.sqr().sqr() - x.sqr() + Fr::one() == Fr::zero());  // r = x^4 - x^2 + 1
  std::mt19937_64 rng(11);
  const G1 g = G1::from_affine(g1_generator());
  for (int i = 0; i < 8; ++i) {
    const G1 p = g * Fr::random(rng);
    CHECK(hex_of(g1_phi(p)) == hex_of(p * lambda));
    // On the whole curve, phi^2 + phi + 1 = 0: P, phi(P), phi^2(P) share y, so they are the three
    // points of a horizontal line.
    const G1 q = random_g1_curve_point(rng);
    CHECK(sum(sum(g1_phi(g1_phi(q)), g1_phi(q)), q).is_identity());
    CHECK(g1_phi(q).is_on_curve());
  }
}

TEST_CASE("G2 endomorphism: psi acts on G2 as the Frobenius eigenvalue p = x mod r", "[crypto]") {
  CHECK(fp_modulus_mod_r() == -Fr::from_u64(kBlsXAbs));
  std::mt19937_64 rng(12);
  const G2 g = G2::from_affine(g2_generator());
  const PsiCoefficients& c = g2_psi_coefficients();
  const Fp2 xi{Fp::one(), Fp::one()};
  // cx^3 = cy^2 = xi^-(p-1) = xi / xi^p.
  CHECK(c.cx.sqr() * c.cx == xi * xi.conjugate().inverse());
  CHECK(c.cy.sqr() == xi * xi.conjugate().inverse());
  for (int i = 0; i < 8; ++i) {
    const G2 p = g * Fr::random(rng);
    CHECK(hex_of(g2_psi(p)) == hex_of(mul_wide(p, Fp::kModulus)));
    CHECK(hex_of(g2_psi(p)) == hex_of(-mul_by_x_abs(p)));
    // On the whole twist: psi^2 - [t] psi + [p] = 0 with trace t = x + 1 = -(|x| - 1).
    const G2 q = random_g2_curve_point(rng);
    const G2 psi_q = g2_psi(q);
    CHECK(psi_q.is_on_curve());
    const G2 t_psi_q = sum(mul_by_x_abs(psi_q), -psi_q);  // [|x| - 1] psi(q) = [-t] psi(q)
    CHECK(sum(sum(g2_psi(psi_q), t_psi_q), mul_wide(q, Fp::kModulus)).is_identity());
  }
}

TEST_CASE("G1 subgroup check: the fast test agrees with [r]P == O", "[crypto]") {
  std::mt19937_64 rng(13);
  const G1 g = G1::from_affine(g1_generator());
  CHECK(g1_in_subgroup(G1::identity()));
  CHECK(g1_in_subgroup(g1_generator()));
  for (int i = 0; i < 12; ++i) {
    const G1 p = g * Fr::random(rng);
    CHECK(g1_in_subgroup(p));
    CHECK(g1_in_subgroup_naive(p));
    const G1 q = random_g1_curve_point(rng);
    const G1 cofactor_part = q.mul(Fr::kModulus);  // order divides the cofactor
    for (const G1& t : {q, cofactor_part, sum(p, cofactor_part)}) {
      CHECK(g1_in_subgroup(t) == g1_in_subgroup_naive(t));
      CHECK_FALSE(g1_in_subgroup(t));
    }
  }
  const G1 order3 = G1::from_affine({Fp::zero(), Fp::from_u64(2), false});  // (0, 2)
  CHECK(hex_of(twice(order3)) == hex_of(-order3));
  CHECK_FALSE(g1_in_subgroup(order3));
  CHECK_FALSE(g1_in_subgroup(sum(g, order3)));
}

TEST_CASE("G2 subgroup check: the fast test agrees with [r]P == O", "[crypto]") {
  std::mt19937_64 rng(14);
  const G2 g = G2::from_affine(g2_generator());
  CHECK(g2_in_subgroup(G2::identity()));
  CHECK(g2_in_subgroup(g2_generator()));
  for (int i = 0; i < 8; ++i) {
    const G2 p = g * Fr::random(rng);
    CHECK(g2_in_subgroup(p));
    CHECK(g2_in_subgroup_naive(p));
    const G2 q = random_g2_curve_point(rng);
    const G2 cofactor_part = q.mul(Fr::kModulus);
    for (const G2& t : {q, cofactor_part, sum(p, cofactor_part)}) {
      CHECK(g2_in_subgroup(t) == g2_in_subgroup_naive(t));
      CHECK_FALSE(g2_in_subgroup(t));
    }
  }
}

TEST_CASE("Scalar decomposition: base-|x| digits and GLV halves recompose to k", "[crypto]") {
  std::mt19937_64 rng(15);
  const Fr x = Fr::from_u64(kBlsXAbs);
  auto from_limbs2 = [](const Limbs<2>& v) { return Fr::from_canonical({v[0], v[1], 0, 0}); };
  for (const Fr& k : test_scalars(rng, 64)) {
    const BaseXDigits b = decompose_base_x(k);
    Fr acc = Fr::zero();
    for (int i = 3; i >= 0; --i) {
      CHECK(b.d[i] < kBlsXAbs);
      acc = acc * x + Fr::from_u64(b.d[i]);
    }
    CHECK(acc == k);
    const GlvScalars s = glv_decompose(k);
    CHECK(from_limbs2(s.k1) + from_limbs2(s.k2) * x.sqr() == k);
    // k1 + k2 * x^2 = k1 - k2 * lambda: the GLV split.
    CHECK(from_limbs2(s.k1) - from_limbs2(s.k2) * g1_lambda() == k);
    CHECK(limbs_bit_length(s.k1) <= 128);
    CHECK(limbs_bit_length(s.k2) <= 128);
  }
}

TEST_CASE("G1 scalar multiplication: GLV and wNAF equal double-and-add", "[crypto]") {
  std::mt19937_64 rng(16);
  const G1 g = G1::from_affine(g1_generator());
  const std::vector<G1> points = {g, g * Fr::random(rng), g * Fr::random(rng), G1::identity()};
  for (const G1& p : points) {
    for (const Fr& k : test_scalars(rng, 8)) {
      const std::string expected = hex_of(p * k);
      CHECK(hex_of(mul_glv(p, k)) == expected);
      CHECK(hex_of(mul_wnaf(p, k)) == expected);
    }
  }
  // wNAF needs no endomorphism, so it also holds off the subgroup.
  const G1 q = random_g1_curve_point(rng);
  for (const Fr& k : test_scalars(rng, 2)) CHECK(hex_of(mul_wnaf(q, k)) == hex_of(q * k));
}

TEST_CASE("G2 scalar multiplication: wNAF and GLS equal double-and-add", "[crypto]") {
  std::mt19937_64 rng(17);
  const G2 g = G2::from_affine(g2_generator());
  const std::vector<G2> points = {g, g * Fr::random(rng), G2::identity()};
  for (const G2& p : points) {
    for (const Fr& k : test_scalars(rng, 6)) {
      const std::string expected = hex_of(p * k);
      CHECK(hex_of(mul_gls(p, k)) == expected);
      CHECK(hex_of(mul_wnaf(p, k)) == expected);
    }
  }
  const G2 q = random_g2_curve_point(rng);
  for (const Fr& k : test_scalars(rng, 1)) CHECK(hex_of(mul_wnaf(q, k)) == hex_of(q * k));
}

TEST_CASE("G1 group law: add, dbl, neg and k*P match @noble/curves", "[crypto]") {
  auto v = load_vectors("g1.json");
  REQUIRE(v["cases"].size() >= 16);
  for (const auto& c : v["cases"]) {
    INFO(c.dump());
    const G1 p = g1_point(c["p"]), q = g1_point(c["q"]);
    const Fr k = zkpipe::test::field_from_hex<Fr>(c["k"]);
    CHECK(hex_of(sum(p, q)) == c["add"].get<std::string>());
    CHECK(hex_of(twice(p)) == c["dbl"].get<std::string>());
    CHECK(hex_of(-p) == c["neg_p"].get<std::string>());
    const std::string kp = c["k_p"];
    CHECK(hex_of(p * k) == kp);
    CHECK(hex_of(mul_glv(p, k)) == kp);
    CHECK(hex_of(mul_wnaf(p, k)) == kp);
    CHECK(hex_of(g1_point(c["p_uncompressed"])) == c["p"].get<std::string>());
  }
}

TEST_CASE("G2 group law: add, dbl, neg and k*P match @noble/curves", "[crypto]") {
  auto v = load_vectors("g2.json");
  REQUIRE(v["cases"].size() >= 8);
  for (const auto& c : v["cases"]) {
    INFO(c.dump());
    const G2 p = g2_point(c["p"]), q = g2_point(c["q"]);
    const Fr k = zkpipe::test::field_from_hex<Fr>(c["k"]);
    CHECK(hex_of(sum(p, q)) == c["add"].get<std::string>());
    CHECK(hex_of(twice(p)) == c["dbl"].get<std::string>());
    CHECK(hex_of(-p) == c["neg_p"].get<std::string>());
    const std::string kp = c["k_p"];
    CHECK(hex_of(p * k) == kp);
    CHECK(hex_of(mul_gls(p, k)) == kp);
    CHECK(hex_of(mul_wnaf(p, k)) == kp);
    CHECK(hex_of(g2_point(c["p_uncompressed"])) == c["p"].get<std::string>());
  }
}
