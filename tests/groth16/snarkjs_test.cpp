// snarkjs interop, JSON side: decimal strings of Fr and Fp (round trips, bounds, junk), the G1
// generator's well-known decimal coordinates, export/import round trips of the verifying key,
// proof and public inputs, and import errors that name the file and the JSON key.
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "zkpipe/crypto/group_ops.h"
#include "zkpipe/groth16/snarkjs.h"

using namespace zkpipe::groth16;
using zkpipe::crypto::Fp;
using zkpipe::crypto::Fp2;
using zkpipe::crypto::G1;
using zkpipe::crypto::G2;
using Json = nlohmann::json;

namespace {

// r - 1, r, p - 1, p in decimal (r = 0x73eda753..., p = 0x1a0111ea...).
const char* kRMinus1 =
    "52435875175126190479447740508185965837690552500527637822603658699938581184512";
const char* kR = "52435875175126190479447740508185965837690552500527637822603658699938581184513";
const char* kPMinus1 =
    "4002409555221667393417789825735904156556882819939007885332058136124031650490837864442687629129"
    "015664037894272559786";
const char* kP =
    "4002409555221667393417789825735904156556882819939007885332058136124031650490837864442687629129"
    "015664037894272559787";

G1Affine random_g1(std::mt19937_64& rng) {
  return (G1::from_affine(zkpipe::crypto::g1_generator()) * Fr::random(rng)).to_affine();
}
G2Affine random_g2(std::mt19937_64& rng) {
  return (G2::from_affine(zkpipe::crypto::g2_generator()) * Fr::random(rng)).to_affine();
}

VerifyingKey random_vk(std::mt19937_64& rng, size_t n_public) {
  VerifyingKey vk;
  vk.alpha_g1 = random_g1(rng);
  vk.beta_g1 = random_g1(rng);
  vk.delta_g1 = random_g1(rng);
  vk.beta_g2 = random_g2(rng);
  vk.gamma_g2 = random_g2(rng);
  vk.delta_g2 = random_g2(rng);
  for (size_t i = 0; i <= n_public; ++i) vk.ic.push_back(random_g1(rng));
  return vk;
}

// The import's error message after `edit` changed the exported key's JSON.
template <typename Edit>
std::string vk_error_after(Edit edit) {
  std::mt19937_64 rng(7);
  Json j = Json::parse(export_snarkjs_vk(random_vk(rng, 2)));
  edit(j);
  auto r = import_snarkjs_vk(j.dump(), "vk.json");
  REQUIRE_FALSE(r.ok());
  return r.status().message();
}

}  // namespace

TEST_CASE("snarkjs decimal: Fr and Fp round trip, including 0 and the largest value", "[groth16]") {
  CHECK(fr_to_decimal(Fr::zero()) == "0");
  CHECK(fr_to_decimal(Fr::one()) == "1");
  CHECK(fr_to_decimal(-Fr::one()) == kRMinus1);
  CHECK(fp_to_decimal(-Fp::one()) == kPMinus1);
  CHECK(fr_to_decimal(Fr::from_u64(10000000000000000000ull)) == "10000000000000000000");
  CHECK(fr_to_decimal(Fr::from_u64(9999999999999999999ull)) == "9999999999999999999");
  CHECK(fr_from_decimal(kRMinus1, "x").value() == -Fr::one());
  CHECK(fp_from_decimal(kPMinus1, "x").value() == -Fp::one());
  CHECK(fr_from_decimal("0", "x").value() == Fr::zero());
  CHECK(fr_from_decimal("000123", "x").value() == Fr::from_u64(123));
  std::mt19937_64 rng(1);
  for (int i = 0; i < 50; ++i) {
    const Fr a = Fr::random(rng);
    CHECK(fr_from_decimal(fr_to_decimal(a), "x").value() == a);
    const Fp b = Fp::random(rng);
    CHECK(fp_from_decimal(fp_to_decimal(b), "x").value() == b);
  }
}

TEST_CASE("snarkjs decimal: values >= the modulus and junk are refused, naming the key",
          "[groth16]") {
  const std::vector<std::string> bad = {"",   "+1",   "-1",  "12a", " 1",
                                        "1 ", "0x10", "1.5", kR,    std::string(200, '9')};
  for (const auto& text : bad) {
    auto r = fr_from_decimal(text, "public.json: [0]");
    INFO(text);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code() == zkpipe::Code::kInvalidArgument);
    CHECK_THAT(r.status().message(), Catch::StartsWith("public.json: [0]: not a decimal < r"));
  }
  CHECK_FALSE(fp_from_decimal(kP, "x").ok());
  CHECK(fp_from_decimal(kR, "x").ok());  // r < p
  CHECK_THAT(fr_from_decimal(kR, "k").status().message(), Catch::Contains(">= r"));
}

TEST_CASE("snarkjs decimal: the G1 generator has the well-known decimal coordinates", "[groth16]") {
  const auto& g = zkpipe::crypto::g1_generator();
  CHECK(fp_to_decimal(g.x) ==
        "3685416753713387016781088315183077757961620795782546409894578378688607592378376318836054"
        "947676345821548104185464507");
  CHECK(fp_to_decimal(g.y) ==
        "1339506544944476473020471379941921221584933875938349620426543736416511423956333506472724"
        "655353366534992391756441569");
}

TEST_CASE("snarkjs JSON: verifying key, proof and public inputs round trip", "[groth16]") {
  std::mt19937_64 rng(3);
  VerifyingKey vk = random_vk(rng, 3);
  vk.ic[2] = G1Affine::identity();
  const std::string text = export_snarkjs_vk(vk);
  const Json j = Json::parse(text);
  CHECK(j["protocol"] == "groth16");
  CHECK(j["curve"] == "bls12381");
  CHECK(j["nPublic"] == 3);
  CHECK(j["IC"].size() == 4);
  CHECK(j["IC"][2] == Json::array({"0", "1", "0"}));
  CHECK(j["vk_alpha_1"][2] == "1");
  CHECK(j["vk_beta_2"][2] == Json::array({"1", "0"}));
  CHECK(j["vk_beta_2"][0][0] == fp_to_decimal(vk.beta_g2.x.c0));  // real part first

  auto back = import_snarkjs_vk(text, "vk.json");
  REQUIRE(back.ok());
  VerifyingKey expected = vk;
  expected.beta_g1 = G1Affine::identity();  // not in snarkjs's key
  expected.delta_g1 = G1Affine::identity();
  CHECK(*back == expected);

  Proof proof{random_g1(rng), random_g2(rng), random_g1(rng)};
  const std::string proof_text = export_snarkjs_proof(proof);
  CHECK(Json::parse(proof_text)["protocol"] == "groth16");
  auto proof_back = import_snarkjs_proof(proof_text, "proof.json");
  REQUIRE(proof_back.ok());
  CHECK(*proof_back == proof);
  // C may be the point at infinity (A and B may not: tests/groth16/degenerate_key_test.cpp).
  Proof with_infinity{proof.a, proof.b, G1Affine::identity()};
  CHECK(*import_snarkjs_proof(export_snarkjs_proof(with_infinity), "p") == with_infinity);

  const std::vector<Fr> pub = {Fr::zero(), -Fr::one(), Fr::from_u64(42)};
  const std::string pub_text = export_snarkjs_public(pub);
  CHECK(Json::parse(pub_text) == Json::array({"0", kRMinus1, "42"}));
  CHECK(*import_snarkjs_public(pub_text, "public.json") == pub);
  CHECK(import_snarkjs_public("[]", "public.json")->empty());
}

TEST_CASE("snarkjs JSON: import errors name the file and the key", "[groth16]") {
  CHECK_THAT(vk_error_after([](Json& j) { j["IC"][1][1] = kP; }),
             Catch::StartsWith("vk.json: IC[1][1]: not a decimal < p"));
  CHECK_THAT(vk_error_after([](Json& j) { j["vk_beta_2"][0][1] = "x"; }),
             Catch::StartsWith("vk.json: vk_beta_2[0][1]: not a decimal < p"));
  CHECK_THAT(vk_error_after([](Json& j) { j["vk_gamma_2"][1][0] = 5; }),
             Catch::StartsWith("vk.json: vk_gamma_2[1][0]: expected a decimal string"));
  CHECK_THAT(vk_error_after([](Json& j) { j["protocol"] = "plonk"; }),
             Catch::StartsWith("vk.json: protocol: expected \"groth16\""));
  CHECK_THAT(vk_error_after([](Json& j) { j["curve"] = "bn128"; }),
             Catch::StartsWith("vk.json: curve: expected \"bls12381\""));
  CHECK_THAT(vk_error_after([](Json& j) { j["nPublic"] = 3; }),
             Catch::StartsWith("vk.json: nPublic: expected 2"));
  CHECK_THAT(vk_error_after([](Json& j) { j.erase("vk_delta_2"); }),
             Catch::Equals("vk.json: missing key 'vk_delta_2'"));
  CHECK_THAT(vk_error_after([](Json& j) { j["IC"][0][2] = "2"; }),
             Catch::StartsWith("vk.json: IC[0][2]: expected 1"));
  CHECK_THAT(vk_error_after([](Json& j) {
               j["IC"][1] = Json::array({"5", "1", "0"});
             }),
             Catch::StartsWith("vk.json: IC[1]: the point at infinity must be written"));
  CHECK_THAT(vk_error_after([](Json& j) { j["vk_alpha_1"] = "1"; }),
             Catch::StartsWith("vk.json: vk_alpha_1: expected [x, y, \"1\"]"));

  // Off the curve: the generator with y + 1.
  const auto& g = zkpipe::crypto::g1_generator();
  CHECK_THAT(vk_error_after([&](Json& j) { j["IC"][2][1] = fp_to_decimal(g.y + Fp::one()); }),
             Catch::Equals("vk.json: IC[2]: not on the curve"));
  // On the curve, outside the subgroup: the first x >= 0 with x^3 + 4 a square (the cofactor
  // is large, so such a point is in G1 with negligible probability; checked below).
  G1Affine outside{};
  for (uint64_t x = 1;; ++x) {
    const Fp fx = Fp::from_u64(x);
    Fp y;
    if ((fx.sqr() * fx + Fp::from_u64(4)).sqrt(y)) {
      outside = {fx, y, false};
      break;
    }
  }
  REQUIRE_FALSE(zkpipe::crypto::g1_in_subgroup(outside));
  CHECK_THAT(
      vk_error_after([&](Json& j) {
        j["vk_alpha_1"] = Json::array({fp_to_decimal(outside.x), fp_to_decimal(outside.y), "1"});
      }),
      Catch::Equals("vk.json: vk_alpha_1: not in the prime-order subgroup"));

  CHECK_THAT(import_snarkjs_vk("{\"IC\": [", "vk.json").status().message(),
             Catch::StartsWith("vk.json: not valid JSON"));
  CHECK_THAT(
      import_snarkjs_proof("{\"pi_a\": [\"0\", \"1\", \"0\"]}", "proof.json").status().message(),
      Catch::Equals("proof.json: missing key 'pi_b'"));
  CHECK_THAT(import_snarkjs_public("[\"1\", \"x\"]", "public.json").status().message(),
             Catch::StartsWith("public.json: [1]: not a decimal < r"));
  CHECK_THAT(import_snarkjs_public("[1]", "public.json").status().message(),
             Catch::Equals("public.json: [0]: expected a decimal string"));
  CHECK_THAT(import_snarkjs_public("{}", "public.json").status().message(),
             Catch::Equals("public.json: expected an array of decimal strings"));
}
