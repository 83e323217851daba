// The optimal ate pairing: known answers from @noble/curves (tests/vectors/pairing.json),
// bilinearity, non-degeneracy, order r, products with one final exponentiation, the Groth16-style
// product check (accepting a built identity, rejecting a tampered one), G2Prepared against the
// plain Miller loop, and identity inputs.
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "crypto/vectors.h"
#include "zkpipe/crypto/pairing.h"

using namespace zkpipe::crypto;
using zkpipe::test::load_vectors;

namespace {

std::mt19937_64& rng() {
  static std::mt19937_64 r(0x70616972696e67ull);
  return r;
}
Fr random_fr() {
  return Fr::random(rng());
}

G1Affine g1_mul(const G1Affine& p, const Fr& k) {
  return (G1::from_affine(p) * k).to_affine();
}
G2Affine g2_mul(const G2Affine& q, const Fr& k) {
  return (G2::from_affine(q) * k).to_affine();
}

// ---- zcash-compressed points, decoded here (x, then y from the curve equation and the sign
// bit) so these tests depend on nothing but the field code. Inputs are noble's valid points.
std::vector<uint8_t> hex_bytes(const std::string& hex) {
  std::vector<uint8_t> out(hex.size() / 2);
  for (size_t i = 0; i < out.size(); ++i) out[i] = std::stoi(hex.substr(2 * i, 2), nullptr, 16);
  return out;
}
Fp fp_from_bytes(const uint8_t* b) {
  auto r = Fp::from_bytes_be(b);
  if (!r.ok()) throw std::runtime_error(r.status().to_string());
  return *r;
}
G1Affine g1_from_hex(const std::string& hex) {
  std::vector<uint8_t> b = hex_bytes(hex);
  REQUIRE(b.size() == 48);
  REQUIRE((b[0] & 0x80) != 0);
  if (b[0] & 0x40) return G1Affine::identity();
  const bool sign = (b[0] & 0x20) != 0;
  b[0] &= 0x1f;
  Fp x = fp_from_bytes(b.data()), y;
  REQUIRE((x.sqr() * x + Fp::from_u64(4)).sqrt(y));
  if (lexicographically_largest(y) != sign) y = -y;
  return {x, y, false};
}
G2Affine g2_from_hex(const std::string& hex) {
  std::vector<uint8_t> b = hex_bytes(hex);
  REQUIRE(b.size() == 96);
  REQUIRE((b[0] & 0x80) != 0);
  if (b[0] & 0x40) return G2Affine::identity();
  const bool sign = (b[0] & 0x20) != 0;
  b[0] &= 0x1f;
  Fp2 x{fp_from_bytes(b.data() + 48), fp_from_bytes(b.data())}, y;  // x.c1 || x.c0
  REQUIRE((x.sqr() * x + G2Config::b()).sqrt(y));
  if (y.lexicographically_largest() != sign) y = -y;
  return {x, y, false};
}
Fp12 fp12_from_json(const nlohmann::json& j) {
  auto f6 = [](const nlohmann::json& k) {
    using zkpipe::test::fp2_from_json;
    return Fp6{fp2_from_json(k[0]), fp2_from_json(k[1]), fp2_from_json(k[2])};
  };
  return {f6(j[0]), f6(j[1])};
}

Fp12 gt_pow(const Fp12& a, const Fr& k) {
  return a.pow(k.to_canonical());
}

}  // namespace

TEST_CASE("Pairing: the loop parameter x gives r and p of BLS12-381", "[crypto]") {
  // x = -kPairingXAbs: r = x^4 - x^2 + 1 (so x^4 - x^2 + 1 = 0 in Fr), and
  // p = (x - 1)^2 r / 3 + x, i.e. (x - 1)^2 r + 3 x = 0 in Fp (3 p = (x - 1)^2 r + 3 x).
  REQUIRE(kPairingXIsNegative);
  const Fr xr = -Fr::from_u64(kPairingXAbs);
  CHECK((xr.sqr().sqr() - xr.sqr() + Fr::one()).is_zero());
  Limbs<6> r_wide{};
  for (size_t i = 0; i < 4; ++i) r_wide[i] = Fr::kModulus[i];
  const Fp xp = -Fp::from_u64(kPairingXAbs);
  const Fp three = Fp::from_u64(3);
  CHECK(((xp - Fp::one()).sqr() * Fp::from_canonical(r_wide) + three * xp).is_zero());
  CHECK(G2Prepared::kLines == 68);  // 63 doublings, 5 additions
}

TEST_CASE("Pairing: known answers from noble", "[crypto]") {
  auto v = load_vectors("pairing.json");
  REQUIRE(v["cases"].size() >= 3);
  for (const auto& c : v["cases"]) {
    G1Affine p = g1_from_hex(c["p"].get<std::string>());
    G2Affine q = g2_from_hex(c["q"].get<std::string>());
    Fp12 e = fp12_from_json(c["e"]);
    Fp12 got = pairing(p, q);
    INFO("got " << got.to_hex());
    CHECK(got == e);
    CHECK(final_exponentiation(miller_loop(p, G2Prepared(q))) == e);
  }
  CHECK(pairing(g1_generator(), g2_generator()) == fp12_from_json(v["cases"][0]["e"]));
  REQUIRE(v["products"].size() >= 6);
  for (const auto& c : v["products"]) {
    std::vector<PairingInput> pairs;
    for (const auto& pq : c["pairs"]) {
      pairs.emplace_back(g1_from_hex(pq[0].get<std::string>()),
                         g2_from_hex(pq[1].get<std::string>()));
    }
    std::vector<G2Prepared> prepared;
    for (const auto& pq : pairs) prepared.emplace_back(pq.second);
    std::vector<PreparedPairingInput> prepared_pairs;
    for (size_t i = 0; i < pairs.size(); ++i)
      prepared_pairs.emplace_back(pairs[i].first, &prepared[i]);
    const bool want = c["product_is_one"].get<bool>();
    CHECK(pairing_product_is_one(pairs) == want);
    CHECK(pairing_product_is_one(prepared_pairs) == want);
  }
}

TEST_CASE("Pairing: bilinear", "[crypto]") {
  const G1Affine& p = g1_generator();
  const G2Affine& q = g2_generator();
  const Fp12 e = pairing(p, q);
  for (int i = 0; i < 2; ++i) {
    Fr a = random_fr(), b = random_fr();
    Fp12 eab = pairing(g1_mul(p, a), g2_mul(q, b));
    CHECK(eab == gt_pow(e, a * b));
    CHECK(eab == pairing(g1_mul(p, a * b), q));
    CHECK(eab == pairing(p, g2_mul(q, a * b)));
  }
  // Linear in each argument: e(P1 + P2, Q) = e(P1, Q) e(P2, Q).
  G1Affine p1 = g1_mul(p, random_fr()), p2 = g1_mul(p, random_fr());
  G1Affine p12 = (G1::from_affine(p1) + G1::from_affine(p2)).to_affine();
  CHECK(pairing(p12, q) == pairing(p1, q) * pairing(p2, q));
  CHECK(pairing(-p1, q) == pairing(p1, q).conjugate());
}

TEST_CASE("Pairing: non-degenerate, of order r, values in the cyclotomic subgroup", "[crypto]") {
  const Fp12 e = pairing(g1_generator(), g2_generator());
  CHECK(!e.is_one());
  CHECK(e.pow(Fr::kModulus).is_one());
  CHECK((e * e.conjugate()).is_one());
  CHECK(e.cyclotomic_sqr() == e.sqr());
}

TEST_CASE("Pairing: multi_pairing equals the product of pairings", "[crypto]") {
  std::vector<PairingInput> pairs;
  Fp12 product = Fp12::one();
  Fp12 ml_product = Fp12::one();
  for (int i = 0; i < 3; ++i) {
    pairs.emplace_back(g1_mul(g1_generator(), random_fr()), g2_mul(g2_generator(), random_fr()));
    product = product * pairing(pairs.back().first, pairs.back().second);
    ml_product = ml_product * miller_loop(pairs.back().first, pairs.back().second);
  }
  CHECK(multi_pairing(pairs) == product);
  CHECK(multi_miller_loop(pairs) == ml_product);
  CHECK(multi_pairing(std::span<const PairingInput>()) == Fp12::one());
}

TEST_CASE("Pairing: product check accepts a built identity and rejects a tampered one",
          "[crypto]") {
  const Fr a = random_fr();
  const G1Affine p = g1_mul(g1_generator(), random_fr());
  const G2Affine q = g2_mul(g2_generator(), random_fr());
  // e(aP, Q) e(-P, aQ) = 1.
  std::vector<PairingInput> good{{g1_mul(p, a), q}, {-p, g2_mul(q, a)}};
  CHECK(pairing_product_is_one(good));
  std::vector<PairingInput> bad{{g1_mul(p, a + Fr::one()), q}, {-p, g2_mul(q, a)}};
  CHECK(!pairing_product_is_one(bad));
  std::vector<PairingInput> swapped{{g1_mul(p, a), q}, {p, g2_mul(q, a)}};
  CHECK(!pairing_product_is_one(swapped));

  const G2Prepared q_prep(q), aq_prep(g2_mul(q, a));
  std::vector<PreparedPairingInput> good_prep{{g1_mul(p, a), &q_prep}, {-p, &aq_prep}};
  CHECK(pairing_product_is_one(good_prep));
  std::vector<PreparedPairingInput> bad_prep{{g1_mul(p, a + a), &q_prep}, {-p, &aq_prep}};
  CHECK(!pairing_product_is_one(bad_prep));
}

TEST_CASE("Pairing: G2Prepared gives the same Miller loop as the plain point", "[crypto]") {
  for (int i = 0; i < 3; ++i) {
    G1Affine p = g1_mul(g1_generator(), random_fr());
    G2Affine q = g2_mul(g2_generator(), random_fr());
    const G2Prepared prep(q);
    CHECK(!prep.is_identity());
    CHECK(miller_loop(p, prep) == miller_loop(p, q));
  }
  std::vector<PairingInput> pairs;
  std::vector<G2Prepared> preps;
  preps.reserve(3);
  std::vector<PreparedPairingInput> prep_pairs;
  for (int i = 0; i < 3; ++i) {
    pairs.emplace_back(g1_mul(g1_generator(), random_fr()), g2_mul(g2_generator(), random_fr()));
    preps.emplace_back(pairs.back().second);
    prep_pairs.emplace_back(pairs.back().first, &preps.back());
  }
  CHECK(multi_miller_loop(prep_pairs) == multi_miller_loop(pairs));
  CHECK(multi_pairing(prep_pairs) == multi_pairing(pairs));
}

TEST_CASE("Pairing: the identity in either argument gives 1", "[crypto]") {
  const G1Affine& p = g1_generator();
  const G2Affine& q = g2_generator();
  CHECK(pairing(G1Affine::identity(), q).is_one());
  CHECK(pairing(p, G2Affine::identity()).is_one());
  CHECK(pairing(G1Affine::identity(), G2Affine::identity()).is_one());
  CHECK(miller_loop(G1Affine::identity(), q).is_one());
  const G2Prepared none;
  CHECK(none.is_identity());
  CHECK(G2Prepared(G2Affine::identity()).is_identity());
  CHECK(miller_loop(p, none).is_one());
  // An identity pair does not change a product.
  std::vector<PairingInput> pairs{{p, q}, {G1Affine::identity(), q}, {p, G2Affine::identity()}};
  CHECK(multi_pairing(pairs) == pairing(p, q));
  std::vector<PreparedPairingInput> prep_pairs{{p, &none}, {G1Affine::identity(), &none}};
  CHECK(multi_pairing(prep_pairs).is_one());
}
