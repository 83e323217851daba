// tests/pipeline/golden_test.cpp: the golden end-to-end test of each shipped proof type (porep and
// snapdeals, preset tiny, one partition): vanilla proofs made by the proof type's own library, a
// job through the engine (the plugin, params from the seeded setup, the cpu compute backend), its
// proof checked by groth16::verify against the params file with public inputs derived
// independently of the engine; then A, B and C each tampered with (a flipped bit in its encoding,
// and a valid point that is not the proof's) and each public input changed: every one rejected.
// Hidden tag [.golden]: CTest runs it as its own test (tests/CMakeLists.txt, plain builds), with
// the params kept in ZKPIPE_GOLDEN_PARAMS_DIR (the build dir) so only the first run makes them.
#include <cstdlib>
#include <span>
#include <string>
#include <vector>

#include "pipeline/engine_fixture.h"
#include "zkpipe/porep/vanilla.h"
#include "zkpipe/sector/seal.h"
#include "zkpipe/snapdeals/update.h"
#include "zkpipe/snapdeals/vanilla.h"

namespace zkpipe::testing {
namespace {

using crypto::G1;
using crypto::G2;
using groth16::Fr;
using groth16::kProofBytes;
using groth16::Proof;

// Where params are made once and kept: ZKPIPE_GOLDEN_PARAMS_DIR, else this process's scratch.
std::string params_dir() {
  const char* env = std::getenv("ZKPIPE_GOLDEN_PARAMS_DIR");
  return env != nullptr && *env != '\0' ? env : (scratch().path / "golden_params").string();
}

// A proof type's request for one partition and the public inputs a verifier derives for it.
struct Golden {
  std::string proof_type;
  std::vector<uint8_t> request;
  std::vector<Fr> public_inputs;
};

Golden porep_tiny() {
  const porep::Shape shape = porep::find_shape("tiny").value();
  const porep::SealedSector sector = porep::seal(shape, porep::seed_from_string("golden"), 2);
  const porep::Seed challenges = porep::seed_from_string("golden challenges");
  const uint32_t parts[] = {1};
  const porep::VanillaProofs v = porep::make_vanilla_proofs(sector, challenges, parts, 2);
  REQUIRE(porep::check_vanilla(v, "golden porep", 2).ok());
  return {"porep", porep::encode_vanilla(v),
          porep::public_inputs(shape, v.replica_id, v.comms, challenges, 1)};
}

Golden snapdeals_tiny() {
  const porep::SealedSector key =
      porep::seal(porep::find_shape("tiny").value(), porep::seed_from_string("golden cc"), 2, {},
                  porep::SectorData::kEmpty);
  const snapdeals::Shape shape = snapdeals::find_shape("tiny").value();
  const snapdeals::UpdatedSector u =
      snapdeals::update(key, shape, porep::seed_from_string("golden data"), 2).value();
  const uint32_t parts[] = {1};
  const snapdeals::VanillaProofs v = snapdeals::make_vanilla_proofs(u, parts, 2);
  REQUIRE(snapdeals::check_vanilla(v, "golden snapdeals", 2).ok());
  return {"snapdeals", snapdeals::encode_vanilla(v), snapdeals::public_inputs(shape, v.comms, 1)};
}

// Rejected: the bytes do not decode to a proof, or the proof does not verify (or is refused).
bool rejected(const groth16::PreparedVerifyingKey& pvk, std::span<const uint8_t> bytes,
              std::span<const Fr> inputs) {
  Result<Proof> proof = groth16::decode_proof(bytes.data(), bytes.size());
  if (!proof.ok()) return true;
  Result<bool> ok = groth16::verify(pvk, *proof, inputs);
  return !ok.ok() || !*ok;
}

bool rejected(const groth16::PreparedVerifyingKey& pvk, const Proof& proof,
              std::span<const Fr> inputs) {
  Result<bool> ok = groth16::verify(pvk, proof, inputs);
  return !ok.ok() || !*ok;
}

void prove_verify_tamper(const Golden& g) {
  auto engine = make_engine(test_config("", "threads: 0", params_dir()));
  pipeline::JobRequest request;
  request.proof_type = g.proof_type;
  request.input = g.request;
  request.input_name = "golden " + g.proof_type;
  Result<uint64_t> id = engine->submit(request);
  INFO(id.status().to_string());
  REQUIRE(id.ok());
  Result<pipeline::JobResult> r = engine->wait(*id);
  REQUIRE(r.ok());
  INFO(r->status.to_string());
  REQUIRE(r->state == pipeline::JobState::kDone);
  REQUIRE(r->partition_indices == std::vector<uint32_t>{1});
  REQUIRE(r->proof.size() == kProofBytes);
  // The engine's public inputs are the ones a verifier derives from the vanilla proofs.
  REQUIRE(r->public_inputs.size() == 1);
  REQUIRE(r->public_inputs[0] == g.public_inputs);

  // Verified independently of the engine, against the params file.
  Result<groth16::ProvingKey> pk = groth16::load_params(
      params_dir() + "/" + r->circuit_id + ".params", groth16::ParamsLoadOptions::trusted());
  REQUIRE(pk.ok());
  const groth16::PreparedVerifyingKey pvk(pk->vk);
  const std::vector<uint8_t>& bytes = r->proof;
  const std::vector<Fr>& inputs = g.public_inputs;
  const Proof proof = groth16::decode_proof(bytes.data(), bytes.size()).value();
  REQUIRE(*groth16::verify(pvk, proof, inputs));

  // A flipped bit in A (bytes 0..47), B (48..143) and C (144..191): the last byte of each holds
  // the low bits of its x coordinate, the first its compression flags.
  struct Part {
    const char* name;
    size_t first, last;
  };
  for (const Part& part : {Part{"A", 0, 47}, Part{"B", 48, 143}, Part{"C", 144, 191}}) {
    for (size_t byte : {part.first, part.first + 20, part.last}) {
      for (uint8_t bit : {uint8_t{0x01}, uint8_t{0x80}}) {
        std::vector<uint8_t> flipped = bytes;
        flipped[byte] ^= bit;
        INFO(part.name << ": byte " << byte << " ^ " << int{bit});
        CHECK(rejected(pvk, flipped, inputs));
      }
    }
  }
  // A valid point that is not the proof's, in each of A, B and C.
  const G1 g1 = G1::from_affine(crypto::g1_generator());
  const G2 g2 = G2::from_affine(crypto::g2_generator());
  Proof a = proof, b = proof, c = proof;
  a.a = (G1::from_affine(a.a) + g1).to_affine();
  b.b = (G2::from_affine(b.b) + g2).to_affine();
  c.c = (G1::from_affine(c.c) + g1).to_affine();
  CHECK(rejected(pvk, a, inputs));
  CHECK(rejected(pvk, b, inputs));
  CHECK(rejected(pvk, c, inputs));
  // Each public input changed (its lowest bit flipped: x + 1 or x - 1).
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::vector<Fr> wrong = inputs;
    const bool odd = (wrong[i].to_canonical()[0] & 1) != 0;
    wrong[i] = odd ? wrong[i] - Fr::one() : wrong[i] + Fr::one();
    INFO("public input " << i);
    CHECK(rejected(pvk, proof, wrong));
  }
}

TEST_CASE("Golden: a porep proof from the engine verifies, and every tampered part is rejected",
          "[.golden][porep]") {
  prove_verify_tamper(porep_tiny());
}

TEST_CASE("Golden: a snapdeals proof from the engine verifies, and every tampered part is rejected",
          "[.golden][snapdeals]") {
  prove_verify_tamper(snapdeals_tiny());
}

}  // namespace
}  // namespace zkpipe::testing
