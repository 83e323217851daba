// tests/groth16/degenerate_key_test.cpp: a verifying key with gamma (or alpha, beta, delta) at
// infinity lets anyone forge a proof (A = alpha, B = beta, C = O verifies for every input, the IC
// term vanishing); such keys, and proofs whose A or B is at infinity, are refused by the verifier
// itself and by every decoder: vk bytes, proof bytes, snarkjs JSON, params files.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "temp_dir.h"
#include "zkpipe/crypto/curves.h"
#include "zkpipe/groth16/constraint_system.h"
#include "zkpipe/groth16/example_circuits.h"
#include "zkpipe/groth16/params_file.h"
#include "zkpipe/groth16/setup.h"
#include "zkpipe/groth16/snarkjs.h"
#include "zkpipe/groth16/verifier.h"

using namespace zkpipe;
using namespace zkpipe::groth16;
using Catch::Matchers::Contains;
using crypto::Fr;
using crypto::G1Affine;
using crypto::G2Affine;

namespace {

ProvingKey example_key() {
  auto cs = ConstraintSystem::recorder();
  REQUIRE(synthesize_example({"mimc", 4, 3}, cs).ok());
  auto pk = setup(cs.take_r1cs(), ToxicWaste::from_seed(11));
  REQUIRE(pk.ok());
  return std::move(pk).value();
}

const ProvingKey& key() {
  static const ProvingKey pk = example_key();
  return pk;
}

// The forgery: valid for any public inputs when gamma is the point at infinity.
Proof forged(const VerifyingKey& vk) {
  return {vk.alpha_g1, vk.beta_g2, G1Affine::identity()};
}

std::vector<Fr> some_inputs(const VerifyingKey& vk, uint64_t v) {
  return std::vector<Fr>(vk.ic.size() - 1, Fr::from_u64(v));
}

void expect_refused(const Status& s, const std::string& part) {
  INFO(s.to_string());
  REQUIRE_FALSE(s.ok());
  CHECK(s.code() == Code::kInvalidArgument);
  CHECK_THAT(s.message(), Contains(part));
}

}  // namespace

TEST_CASE("Verifier: a key with gamma at infinity refuses the forgery instead of accepting it",
          "[groth16]") {
  VerifyingKey vk = key().vk;
  vk.gamma_g2 = G2Affine::identity();
  const PreparedVerifyingKey pvk(vk);
  for (uint64_t v : {0, 1, 12345}) {
    auto r = verify(pvk, forged(vk), some_inputs(vk, v));
    expect_refused(r.status(), "verifying key: gamma_g2 is the point at infinity");
  }
  const std::vector<Proof> proofs(3, forged(vk));
  const std::vector<std::vector<Fr>> inputs(3, some_inputs(vk, 9));
  expect_refused(verify_batch(pvk, proofs, inputs, 1).status(), "gamma_g2");
  // The same forgery against the honest key is simply invalid.
  auto honest = verify(PreparedVerifyingKey(key().vk), forged(key().vk), some_inputs(vk, 1));
  REQUIRE(honest.ok());
  CHECK_FALSE(*honest);
}

TEST_CASE("Verifier: alpha, beta and delta at infinity, and proofs with A or B at infinity",
          "[groth16]") {
  for (const char* name : {"alpha_g1", "beta_g2", "delta_g2"}) {
    VerifyingKey vk = key().vk;
    if (std::string(name) == "alpha_g1") vk.alpha_g1 = G1Affine::identity();
    if (std::string(name) == "beta_g2") vk.beta_g2 = G2Affine::identity();
    if (std::string(name) == "delta_g2") vk.delta_g2 = G2Affine::identity();
    expect_refused(check_key_points(vk, "vk"), std::string("vk: ") + name);
    expect_refused(verify(PreparedVerifyingKey(vk), forged(key().vk), some_inputs(vk, 1)).status(),
                   name);
  }
  // beta_g1 and delta_g1 matter only in a proving key (snarkjs verifying keys lack them).
  VerifyingKey vk = key().vk;
  vk.delta_g1 = G1Affine::identity();
  CHECK(check_key_points(vk, "vk").ok());
  expect_refused(check_key_points(vk, "pk", true), "pk: delta_g1 is the point at infinity");

  const PreparedVerifyingKey pvk(key().vk);
  Proof p = forged(key().vk);
  p.a = G1Affine::identity();
  expect_refused(verify(pvk, p, some_inputs(key().vk, 1)).status(), "A is the point at infinity");
  p = forged(key().vk);
  p.b = G2Affine::identity();
  expect_refused(verify(pvk, p, some_inputs(key().vk, 1)).status(), "B is the point at infinity");
}

TEST_CASE("Decoders: degenerate keys and proofs are refused in bytes and snarkjs JSON",
          "[groth16]") {
  const VerifyingKey& good = key().vk;
  for (int which = 0; which < 2; ++which) {
    VerifyingKey vk = good;
    (which == 0 ? vk.gamma_g2 : vk.delta_g2) = G2Affine::identity();
    const char* name = which == 0 ? "gamma_g2" : "delta_g2";
    const std::vector<uint8_t> bytes = encode_verifying_key(vk);
    expect_refused(decode_verifying_key(bytes.data(), bytes.size()).status(),
                   std::string("verifying key: ") + name + " is the point at infinity");
    const std::string json = export_snarkjs_vk(vk);
    expect_refused(import_snarkjs_vk(json, "vk.json").status(),
                   std::string("vk.json: ") + name + " is the point at infinity");
  }
  const std::vector<uint8_t> ok_bytes = encode_verifying_key(good);
  CHECK(decode_verifying_key(ok_bytes.data(), ok_bytes.size()).ok());

  Proof p = forged(good);
  p.c = good.alpha_g1;
  p.a = G1Affine::identity();
  uint8_t raw[kProofBytes];
  encode_proof(p, raw);
  expect_refused(decode_proof(raw, sizeof raw).status(), "proof: A is the point at infinity");
  expect_refused(import_snarkjs_proof(export_snarkjs_proof(p), "proof.json").status(),
                 "proof.json: pi_a is the point at infinity");
  p = forged(good);
  p.b = G2Affine::identity();
  encode_proof(p, raw);
  expect_refused(decode_proof(raw, sizeof raw).status(), "proof: B is the point at infinity");
  expect_refused(import_snarkjs_proof(export_snarkjs_proof(p), "proof.json").status(),
                 "proof.json: pi_b is the point at infinity");
}

TEST_CASE("ParamsFile: a key with a point of the vk section at infinity is refused, even trusted",
          "[groth16]") {
  testing::TempDir dir("zkpipe_degenerate_params");
  for (int which = 0; which < 3; ++which) {
    ProvingKey pk = key();
    const char* name = which == 0 ? "gamma_g2" : which == 1 ? "delta_g2" : "delta_g1";
    if (which == 0) pk.vk.gamma_g2 = G2Affine::identity();
    if (which == 1) pk.vk.delta_g2 = G2Affine::identity();
    if (which == 2) pk.vk.delta_g1 = G1Affine::identity();
    const std::string path = dir.file(std::string(name) + ".params");
    REQUIRE(write_params(path, pk).ok());
    for (const auto& options : {ParamsLoadOptions{}, ParamsLoadOptions::trusted()}) {
      auto loaded = load_params(path, options);
      expect_refused(loaded.status(), path);
      CHECK_THAT(loaded.status().message(),
                 Contains(std::string(name) + " is the point at infinity"));
    }
  }
}
