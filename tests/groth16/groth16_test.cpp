// tests/groth16/groth16_test.cpp: golden end-to-end tests of the Groth16 CPU prover: record,
// set up, prove, verify; then tamper with every public input and every proof element and require
// rejection; the split prover equals the one-call prover; proofs are bit-identical across thread
// counts given the same randomness; batch verification.
#include <catch2/catch.hpp>

#include <atomic>
#include <vector>

#include "zkpipe/crypto/curves.h"
#include "zkpipe/groth16/constraint_system.h"
#include "zkpipe/groth16/example_circuits.h"
#include "zkpipe/groth16/prover.h"
#include "zkpipe/groth16/setup.h"
#include "zkpipe/groth16/verifier.h"

using namespace zkpipe;
using namespace zkpipe::groth16;
using crypto::Fr;

namespace {

struct Built {
  R1cs r1cs;
  std::vector<Fr> inputs, aux;
  ProvingKey pk;
};

Built build(const ExampleCircuit& circuit, uint64_t setup_seed = 7) {
  Built b;
  auto cs = ConstraintSystem::recorder();
  REQUIRE(synthesize_example(circuit, cs).ok());
  b.r1cs = cs.take_r1cs();
  std::tie(b.inputs, b.aux) = cs.take_witness();
  REQUIRE(check_satisfied(b.r1cs, {b.inputs, b.aux}).ok());
  auto pk = setup(b.r1cs, ToxicWaste::from_seed(setup_seed));
  INFO(pk.status().to_string());
  REQUIRE(pk.ok());
  b.pk = std::move(pk).value();
  return b;
}

Proof make_proof(const Built& b, const ProverRandomness& rand, unsigned threads = 0) {
  const size_t n = b.pk.domain_size;
  std::vector<Fr> a(n), bb(n), c(n);
  const WitnessView w{b.inputs, b.aux};
  REQUIRE(evaluate_abc(b.r1cs, w, a.data(), bb.data(), c.data(), n, threads).ok());
  ProverOptions o;
  o.threads = threads;
  auto proof = prove(b.pk, {w, a.data(), bb.data(), c.data(), n}, rand, o);
  INFO(proof.status().to_string());
  REQUIRE(proof.ok());
  return *proof;
}

std::vector<Fr> public_inputs(const Built& b) {
  return {b.inputs.begin() + 1, b.inputs.end()};
}

bool verifies(const PreparedVerifyingKey& pvk, const Proof& p, const std::vector<Fr>& x) {
  auto r = verify(pvk, p, x);
  REQUIRE(r.ok());
  return *r;
}

}  // namespace

TEST_CASE("Groth16: proofs of the example circuits verify, tampered ones do not", "[groth16]") {
  for (const ExampleCircuit& circuit :
       {ExampleCircuit{"cubic", 0, 3}, ExampleCircuit{"mimc", 40, 5},
        ExampleCircuit{"synthetic", 700, 9}}) {
    INFO(circuit.name);
    const Built b = build(circuit);
    const PreparedVerifyingKey pvk(b.pk.vk);
    const Proof proof = make_proof(b, ProverRandomness::secure());
    const std::vector<Fr> x = public_inputs(b);
    REQUIRE(verifies(pvk, proof, x));
    for (size_t i = 0; i < x.size(); ++i) {
      std::vector<Fr> bad = x;
      bad[i] += Fr::one();
      CHECK_FALSE(verifies(pvk, proof, bad));
    }
    const crypto::G1 g1 = crypto::G1::from_affine(crypto::g1_generator());
    const crypto::G2 g2 = crypto::G2::from_affine(crypto::g2_generator());
    Proof bad = proof;
    bad.a = (crypto::G1::from_affine(proof.a) + g1).to_affine();
    CHECK_FALSE(verifies(pvk, bad, x));
    bad = proof;
    bad.b = (crypto::G2::from_affine(proof.b) + g2).to_affine();
    CHECK_FALSE(verifies(pvk, bad, x));
    bad = proof;
    bad.c = (crypto::G1::from_affine(proof.c) + g1).to_affine();
    CHECK_FALSE(verifies(pvk, bad, x));
    bad = proof;
    std::swap(bad.a, bad.c);
    CHECK_FALSE(verifies(pvk, bad, x));
    // A key from another seed does not accept it.
    const Built other = build(circuit, 8);
    CHECK_FALSE(verifies(PreparedVerifyingKey(other.pk.vk), proof, x));
    // Wrong input count is an error, not a verdict.
    std::vector<Fr> longer = x;
    longer.push_back(Fr::one());
    CHECK(verify(pvk, proof, longer).status().code() == Code::kInvalidArgument);
  }
}

TEST_CASE("Groth16: the proof is bit-identical across thread counts and the split API",
          "[groth16]") {
  const Built b = build({"synthetic", 3000, 4});
  const ProverRandomness rand{Fr::from_u64(12345), Fr::from_u64(67890)};
  const Proof p1 = make_proof(b, rand, 1);
  const Proof p2 = make_proof(b, rand, 2);
  CHECK(p1 == p2);
  uint8_t e1[kProofBytes], e2[kProofBytes];
  encode_proof(p1, e1);
  encode_proof(p2, e2);
  CHECK(std::equal(e1, e1 + kProofBytes, e2));

  const size_t n = b.pk.domain_size;
  std::vector<Fr> a(n), bb(n), c(n);
  const WitnessView w{b.inputs, b.aux};
  REQUIRE(evaluate_abc(b.r1cs, w, a.data(), bb.data(), c.data(), n).ok());
  auto pending = prove_start(b.pk, {w, a.data(), bb.data(), c.data(), n});
  REQUIRE(pending.ok());
  CHECK(pending->timings.ntt_ns > 0);
  auto split = prove_finish(std::move(pending).value(), rand);
  REQUIRE(split.ok());
  CHECK(*split == p1);
  // Other randomness: another valid proof.
  const Proof p3 = make_proof(b, {Fr::from_u64(1), Fr::from_u64(2)});
  CHECK_FALSE(p3 == p1);
  CHECK(verifies(PreparedVerifyingKey(b.pk.vk), p3, public_inputs(b)));
}

TEST_CASE("Groth16: a set stop flag makes prove_start ABORTED, a clear one changes nothing",
          "[groth16]") {
  const Built b = build({"mimc", 40, 3});
  const size_t n = b.pk.domain_size;
  std::vector<Fr> a(n), bb(n), c(n);
  const WitnessView w{b.inputs, b.aux};
  REQUIRE(evaluate_abc(b.r1cs, w, a.data(), bb.data(), c.data(), n).ok());
  std::atomic<uint32_t> stop{0};
  ProverInput in{w, a.data(), bb.data(), c.data(), n};
  in.stop = &stop;
  stop.store(1);
  Result<PendingProof> stopped = prove_start(b.pk, in);
  CHECK(stopped.status().code() == Code::kAborted);
  CHECK(stopped.status().message() == "prove_start stopped before the NTTs: its job was cancelled");
  CHECK(check_stop(in, "the L MSM").message() ==
        "prove_start stopped before the L MSM: its job was cancelled");
  stop.store(0);  // nothing ran: a/b/c are as evaluate_abc left them
  CHECK(check_stop(in, "the L MSM").ok());
  Result<PendingProof> pending = prove_start(b.pk, in);
  REQUIRE(pending.ok());
  const ProverRandomness rand{Fr::from_u64(5), Fr::from_u64(6)};
  auto proof = prove_finish(std::move(pending).value(), rand);
  REQUIRE(proof.ok());
  CHECK(*proof == make_proof(b, rand));
}

TEST_CASE("Groth16: witness mode fills caller buffers with the recorded assignment", "[groth16]") {
  const ExampleCircuit circuit{"mimc", 25, 11};
  const Built b = build(circuit);
  std::vector<Fr> inputs(b.r1cs.num_inputs), aux(b.r1cs.num_aux);
  auto cs = ConstraintSystem::witness({inputs, aux});
  REQUIRE(synthesize_example(circuit, cs).ok());
  CHECK(cs.num_constraints() == b.r1cs.num_constraints());
  CHECK(inputs == b.inputs);
  CHECK(aux == b.aux);
  // A buffer that is too small is a clear error, not an overflow.
  std::vector<Fr> small(b.r1cs.num_aux - 1);
  auto cs2 = ConstraintSystem::witness({inputs, small});
  const Status s = synthesize_example(circuit, cs2);
  CHECK(s.code() == Code::kInvalidArgument);
  CHECK_THAT(s.message(), Catch::Contains("aux buffer"));
}

TEST_CASE("Groth16: an unsatisfied witness names the constraint and cannot be proved",
          "[groth16]") {
  const Built b = build({"mimc", 10, 2});
  std::vector<Fr> aux = b.aux;
  aux[7] += Fr::one();  // round 3's cube
  const Status s = check_satisfied(b.r1cs, {b.inputs, aux});
  REQUIRE_FALSE(s.ok());
  CHECK_THAT(s.message(), Catch::Contains("constraint 7 (in 'round 3')"));
  const size_t n = b.pk.domain_size;
  std::vector<Fr> a(n), bb(n), c(n);
  REQUIRE(evaluate_abc(b.r1cs, {b.inputs, aux}, a.data(), bb.data(), c.data(), n).ok());
  auto proof =
      prove(b.pk, {{b.inputs, aux}, a.data(), bb.data(), c.data(), n}, ProverRandomness::secure());
  CHECK(proof.status().code() == Code::kInvalidArgument);
}

TEST_CASE("Groth16: proof bytes round trip and bad bytes are refused", "[groth16]") {
  const Built b = build({"cubic", 0, 5});
  const Proof p = make_proof(b, ProverRandomness::secure());
  uint8_t bytes[kProofBytes];
  encode_proof(p, bytes);
  auto back = decode_proof(bytes, kProofBytes);
  REQUIRE(back.ok());
  CHECK(*back == p);
  CHECK(decode_proof(bytes, kProofBytes - 1).status().code() == Code::kInvalidArgument);
  uint8_t bad[kProofBytes];
  std::copy(bytes, bytes + kProofBytes, bad);
  bad[48] ^= 0x80;  // B loses its compression flag
  auto r = decode_proof(bad, kProofBytes);
  REQUIRE_FALSE(r.ok());
  CHECK_THAT(r.status().message(), Catch::Contains("proof: B (bytes 48-143)"));
  std::copy(bytes, bytes + kProofBytes, bad);
  bad[150] ^= 0x01;  // C's x changes: off the curve or outside the subgroup
  CHECK_FALSE(decode_proof(bad, kProofBytes).ok());

  const std::vector<uint8_t> vk_bytes = encode_verifying_key(b.pk.vk);
  auto vk = decode_verifying_key(vk_bytes.data(), vk_bytes.size());
  REQUIRE(vk.ok());
  CHECK(*vk == b.pk.vk);
  CHECK_FALSE(decode_verifying_key(vk_bytes.data(), vk_bytes.size() - 1).ok());
}

TEST_CASE("Groth16: batch verification accepts 16 valid proofs and rejects one bad one",
          "[groth16]") {
  const Built b = build({"mimc", 8, 3});
  const PreparedVerifyingKey pvk(b.pk.vk);
  std::vector<Proof> proofs;
  std::vector<std::vector<Fr>> inputs;
  for (int i = 0; i < 16; ++i) {
    proofs.push_back(make_proof(b, ProverRandomness::secure()));
    inputs.push_back(public_inputs(b));
  }
  auto ok = verify_batch(pvk, proofs, inputs);
  REQUIRE(ok.ok());
  CHECK(*ok);
  inputs[5][0] += Fr::one();
  CHECK_FALSE(*verify_batch(pvk, proofs, inputs));
  inputs[5][0] -= Fr::one();
  std::swap(proofs[3].c, proofs[4].c);
  CHECK_FALSE(*verify_batch(pvk, proofs, inputs));
  CHECK(verify_batch(pvk, proofs, std::span<const std::vector<Fr>>(inputs).first(3))
            .status()
            .code() == Code::kInvalidArgument);
}
