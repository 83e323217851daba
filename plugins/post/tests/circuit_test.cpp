// The fallback-PoSt circuit against the native check: honest partitions (padded ones included)
// satisfy it, tampered ones do not, witness mode writes what record mode recorded, the public
// inputs are the derived ones, and the counted sizes are the recorded ones.
#include <catch2/catch.hpp>

#include "circuit.h"
#include "fixtures.h"
#include "zkpipe/groth16/r1cs.h"

namespace post_test {
namespace {

// Records partition `k` of `v`, checks it against count_circuit and the derived public inputs,
// and returns the R1CS with its witness.
struct Recorded {
  groth16::R1cs r1cs;
  std::vector<Fr> inputs, aux;
};
Recorded record(const VanillaProofs& v, uint32_t k) {
  const CircuitSize size = count_circuit(v.shape);
  auto cs = groth16::ConstraintSystem::recorder();
  synthesize_partition(cs, v, k);
  REQUIRE(cs.finish().ok());
  REQUIRE(cs.num_constraints() == size.constraints);
  REQUIRE(cs.num_inputs() == size.inputs);
  REQUIRE(cs.num_inputs() == v.shape.num_public_inputs());
  REQUIRE(cs.num_aux() == size.aux);
  Recorded out{cs.take_r1cs(), {}, {}};
  std::tie(out.inputs, out.aux) = cs.take_witness();
  return out;
}

// A witness-mode synthesis of partition `k` of `v` checked against `r`'s constraints.
Status satisfied(const Recorded& r, const VanillaProofs& v, uint32_t k) {
  std::vector<Fr> wi(r.inputs.size()), wa(r.aux.size());
  auto ws = groth16::ConstraintSystem::witness({wi, wa});
  synthesize_partition(ws, v, k);
  ZKP_RETURN_IF_ERROR(ws.finish());
  return groth16::check_satisfied(r.r1cs, {wi, wa}, 1);
}

TEST_CASE("PoSt circuit: honest partitions satisfy it, witness mode = record mode",
          "[post][circuit]") {
  for (const VanillaProofs* v : {&window_vanilla(), &winning_vanilla()}) {
    for (uint32_t k = 0; k < partitions(*v); ++k) {
      INFO(v->shape.circuit_id() << " partition " << k);
      Recorded r = record(*v, k);
      REQUIRE(groth16::check_satisfied(r.r1cs, {r.inputs, r.aux}, 1).ok());
      REQUIRE(std::vector<Fr>(r.inputs.begin() + 1, r.inputs.end()) == public_inputs(*v, k));
      std::vector<Fr> wi(r.inputs.size()), wa(r.aux.size());
      auto ws = groth16::ConstraintSystem::witness({wi, wa});
      synthesize_partition(ws, *v, k);
      REQUIRE(ws.finish().ok());
      REQUIRE(wi == r.inputs);
      REQUIRE(wa == r.aux);
    }
  }
}

TEST_CASE("PoSt circuit: tampered witnesses do not satisfy it", "[post][circuit]") {
  const VanillaProofs& good = window_vanilla();
  const Recorded r = record(good, 0);
  REQUIRE(satisfied(r, good, 0).ok());
  auto rejects = [&](auto&& change, const std::string& where) {
    VanillaProofs v = good;
    change(v);
    Status s = satisfied(r, v, 0);
    REQUIRE_FALSE(s.ok());
    CHECK_THAT(s.message(), Catch::Contains(where));
  };
  rejects([](VanillaProofs& v) { v.proofs[1].challenges[0].leaf += Fr::one(); },
          "sector slot 1/challenge 0");
  rejects([](VanillaProofs& v) { v.proofs[0].challenges[1].path[0] += Fr::one(); },
          "sector slot 0/challenge 1");
  rejects([](VanillaProofs& v) { v.proofs[0].comm_c += Fr::one(); }, "sector slot 0/comm_r");
  rejects([](VanillaProofs& v) { v.sectors[1].comm_r += Fr::one(); }, "sector slot 1/comm_r");
  // Another leaf index with the same opening: the path no longer leads to comm_r_last.
  rejects(
      [](VanillaProofs& v) {
        auto& c = v.proofs[0].challenges[0];
        c.leaf_index = (c.leaf_index + 1) % 8;
      },
      "sector slot 0/challenge 0");
}

TEST_CASE("PoSt circuit: sizes grow with sectors, challenges and tree levels", "[post][circuit]") {
  const CircuitSize one = count_circuit({"x", Kind::kWindow, 8, 1, 1});
  const CircuitSize two_sectors = count_circuit({"x", Kind::kWindow, 8, 2, 1});
  const CircuitSize two_challenges = count_circuit({"x", Kind::kWindow, 8, 1, 2});
  const CircuitSize deeper = count_circuit({"x", Kind::kWindow, 64, 1, 1});
  CHECK(two_sectors.constraints == 2 * one.constraints);
  CHECK(two_challenges.constraints > one.constraints);
  CHECK(deeper.constraints > one.constraints);
  CHECK(two_sectors.inputs == 1 + 2 * 2);
  CHECK(count_circuit(tiny(Kind::kWinning)).inputs == 1 + 1 + 4);
}

}  // namespace
}  // namespace post_test
