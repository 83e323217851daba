// Filecoin's SnapDeals circuit, the Poseidon variant (zkpipe/filecoin_circuit/update.h:
// storage-proofs-update src/poseidon/circuit.rs), against the counts rust-fil-proofs' own tests
// assert (tests/circuit_poseidon.rs: 1KiB 32,164, 8KiB 47,974 and, #[ignore]d there, 32GiB
// 22,305,906 constraints); its challenge bits equal Challenges::new_poseidon natively; sectors
// over random trees (tree_d a Poseidon tree of tree_r's shape, new labels encoded with rho) are
// satisfied and give part 1's public inputs; unencoded data fails. The vanilla proof of a sector
// sealed here: re-encoded byte for byte, checked natively, damage refused by name. Equal counts
// are necessary for the same R1CS, not sufficient.
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "filecoin/circuit_helpers.h"
#include "zkpipe/filecoin/poseidon.h"
#include "zkpipe/filecoin/post_inputs.h"
#include "zkpipe/filecoin_circuit/update.h"
#include "zkpipe/filecoin_circuit/vanilla_update.h"

namespace zkpipe::filecoin_circuit {
namespace {

uint64_t count_poseidon(uint64_t nodes) {
  const UpdateShape s = update_poseidon_shape(nodes);
  ConstraintSystem cs = ConstraintSystem::counter();
  synthesize_update_poseidon(cs, s, blank_update_poseidon(s));
  REQUIRE(cs.finish().ok());
  return cs.num_constraints();
}

// A sector updated with new data over random trees, as circuit_poseidon.rs builds it.
struct PoseidonUpdatedSector {
  UpdateShape s;
  Fr comm_r_old, comm_d_new, comm_r_new;
  UpdatePoseidonWitness w;

  PoseidonUpdatedSector(uint64_t nodes, uint64_t seed) : s(update_poseidon_shape(nodes)) {
    std::vector<Fr> r_old, d_new;
    for (uint64_t i = 0; i < nodes; ++i) {
      r_old.push_back(sample(seed * 7919 + i));
      d_new.push_back(sample(seed * 104729 + i));
    }
    const std::vector<uint32_t> arities = level_arities(nodes, s.tree_r);
    const Tree tree_r_old(r_old, arities), tree_d(d_new, arities);
    const Fr comm_c = sample(seed + 5);
    const Fr old_pair[2] = {comm_c, tree_r_old.root()};
    comm_r_old = filecoin::poseidon_merkle(old_pair);
    comm_d_new = tree_d.root();
    const uint32_t h = s.hs[3];
    const Fr phi = update_phi(comm_d_new, comm_r_old);
    std::vector<Fr> r_new;
    for (uint64_t i = 0; i < nodes; ++i) {
      r_new.push_back(r_old[i] + d_new[i] * update_rho(s, phi, h, i));
    }
    const Tree tree_r_new(r_new, arities);
    const Fr new_pair[2] = {comm_c, tree_r_new.root()};
    comm_r_new = filecoin::poseidon_merkle(new_pair);

    w.h_select = update_k_and_h_select(s, 0, h);
    w.comm_r_old = comm_r_old;
    w.comm_d_new = comm_d_new;
    w.comm_r_new = comm_r_new;
    w.comm_c = comm_c;
    w.root_r_old = tree_r_old.root();
    w.root_r_new = tree_r_new.root();
    for (uint32_t c : update_challenges(s, comm_r_new, 0)) {
      UpdatePoseidonChallenge cw;
      const MerkleOpening o_old = tree_r_old.open(c), o_d = tree_d.open(c),
                          o_new = tree_r_new.open(c);
      cw.leaf_r_old = o_old.leaf;
      cw.leaf_d_new = o_d.leaf;
      cw.leaf_r_new = o_new.leaf;
      for (const PathElement& e : o_old.path) cw.path_r_old.push_back(e.siblings);
      for (const PathElement& e : o_d.path) cw.path_d_new.push_back(e.siblings);
      for (const PathElement& e : o_new.path) cw.path_r_new.push_back(e.siblings);
      w.challenges.push_back(std::move(cw));
    }
  }

  std::vector<Fr> derived_inputs() const {
    filecoin::UpdateDescription d;
    d.sector_size = s.sector_nodes * 32;
    d.poseidon = true;
    d.comm_r_old = filecoin::domain_from_fr(comm_r_old);
    d.comm_d_new = filecoin::domain_from_fr(comm_d_new);
    d.comm_r_new = filecoin::domain_from_fr(comm_r_new);
    const Result<std::vector<std::vector<Fr>>> derived = filecoin::update_public_inputs(d);
    REQUIRE(derived.ok());
    REQUIRE(derived->size() == 1);
    return (*derived)[0];
  }
};

TEST_CASE("Filecoin SnapDeals Poseidon circuit: counts of storage-proofs-update's tests",
          "[filecoin][circuit]") {
  CHECK(count_poseidon(1 << 5) == 32'164);
  CHECK(count_poseidon(1 << 8) == 47'974);
}

TEST_CASE("Filecoin SnapDeals Poseidon circuit: the 32GiB count", "[filecoin][circuit][heavy]") {
  // test_empty_sector_update_constraints_32gib of tests/circuit_poseidon.rs
  CHECK(count_poseidon(uint64_t{1} << 30) == 22'305'906);
}

TEST_CASE("Filecoin SnapDeals Poseidon circuit: shape and challenges over the whole sector",
          "[filecoin][circuit]") {
  const UpdateShape s = update_poseidon_shape(uint64_t{1} << 30);
  CHECK(s.partition_count == 1);
  CHECK(s.partition_bit_len == 0);
  CHECK(s.challenge_count == 86 * 16);
  CHECK(s.challenge_bit_len == 30);
  CHECK(update_poseidon_shape(1 << 6).challenge_count == 10);
  CHECK(update_poseidon_shape(1 << 18).challenge_count == 40);
  const Fr comm_r_new = sample(91);
  const std::vector<uint32_t> native = update_challenges(s, comm_r_new, 0);
  REQUIRE(native.size() == 1376);
  bool high = false, low = false;
  for (uint32_t c : native) {
    high = high || c >= (1u << 29);
    low = low || c < (1u << 29);
  }
  CHECK((high && low));  // no partition slice: challenges anywhere in the sector
  ConstraintSystem cs = ConstraintSystem::recorder();
  const Num r = Num::alloc(cs, comm_r_new);
  const Num zero = Num::alloc(cs, Fr::zero());
  const std::vector<std::vector<Boolean>> bits = update_challenge_bits(cs, s, r, zero);
  REQUIRE(bits.size() == native.size());
  for (size_t c = 0; c < bits.size(); ++c) {
    REQUIRE(bits[c].size() == 30);
    uint32_t v = 0;
    for (size_t i = 0; i < bits[c].size(); ++i) v |= uint32_t{bits[c][i].value()} << i;
    CHECK(v == native[c]);
  }
}

TEST_CASE("Filecoin SnapDeals Poseidon circuit: updates over random trees are satisfied",
          "[filecoin][circuit]") {
  for (const uint64_t nodes : {uint64_t{1} << 5, uint64_t{1} << 8, uint64_t{1} << 10}) {
    INFO("nodes " << nodes);
    const PoseidonUpdatedSector u(nodes, nodes + 1);
    std::vector<Fr> inputs;
    record_satisfied([&](ConstraintSystem& cs) { synthesize_update_poseidon(cs, u.s, u.w); },
                     &inputs);
    REQUIRE(inputs.size() == 5);
    CHECK(std::vector<Fr>(inputs.begin() + 1, inputs.end()) == u.derived_inputs());
  }
}

TEST_CASE("Filecoin SnapDeals Poseidon circuit: unencoded data and wrong shapes fail",
          "[filecoin][circuit]") {
  PoseidonUpdatedSector u(1 << 5, 9);
  u.w.challenges[3].leaf_d_new += Fr::one();
  ConstraintSystem cs = ConstraintSystem::recorder();
  synthesize_update_poseidon(cs, u.s, u.w);
  groth16::R1cs r1cs = cs.take_r1cs();
  auto [inputs, aux] = cs.take_witness();
  CHECK_FALSE(groth16::check_satisfied(r1cs, {inputs, aux}, 1).ok());

  UpdatePoseidonWitness w = blank_update_poseidon(u.s);
  w.challenges.pop_back();
  ConstraintSystem counter = ConstraintSystem::counter();
  CHECK_THROWS_WITH(synthesize_update_poseidon(counter, u.s, w),
                    Catch::Contains("challenge count"));
  w = blank_update_poseidon(u.s);
  w.challenges[2].path_d_new.pop_back();
  CHECK_THROWS_WITH(synthesize_update_poseidon(counter, u.s, w), Catch::Contains("challenge 2"));
}

const UpdateRequest& poseidon_sample_2kib() {
  static const UpdateRequest r = *sample_update_request("StackedDrg2KiBV1", 5, true);
  return r;
}

Status check_poseidon(const UpdatePartitionProof& p) {
  return update_poseidon_witness(poseidon_sample_2kib().description, p, "update").status();
}

TEST_CASE("Filecoin SnapDeals Poseidon vanilla proofs: a sealed sector's update",
          "[filecoin][circuit]") {
  const UpdateRequest& r = poseidon_sample_2kib();
  REQUIRE(r.description.poseidon);
  REQUIRE(r.proofs.size() == 1);
  REQUIRE(r.poseidon_witnesses.size() == 1);
  CHECK(r.witnesses.empty());
  const std::vector<uint8_t> bytes = encode_update_proof(r.proofs[0], true);
  Result<UpdatePartitionProof> back = decode_update_proof(bytes, "p", true);
  REQUIRE(back.ok());
  CHECK(encode_update_proof(*back, true) == bytes);
  CHECK(back->apex_leafs.empty());
  CHECK(back->challenges.size() == 10);
  // comm_c, the count, then proof_r_old: the layouts differ by the apex leaves alone
  CHECK_FALSE(decode_update_proof(bytes, "p").ok());

  std::vector<Fr> inputs;
  const UpdateShape s = update_poseidon_shape(64);
  record_satisfied(
      [&](ConstraintSystem& cs) { synthesize_update_poseidon(cs, s, r.poseidon_witnesses[0]); },
      &inputs);
  REQUIRE(inputs.size() == 5);
  CHECK(std::vector<Fr>(inputs.begin() + 1, inputs.end()) == r.inputs[0]);
  CHECK(r.inputs[0][0] == Fr::from_u64(1));  // h_select: h = 1 is hs[0] for small sectors
}

TEST_CASE("Filecoin SnapDeals Poseidon vanilla proofs: damage is refused by name",
          "[filecoin][circuit]") {
  const UpdatePartitionProof good = poseidon_sample_2kib().proofs[0];
  REQUIRE(check_poseidon(good).ok());
  struct Case {
    const char* expect;
    void (*damage)(UpdatePartitionProof&);
  };
  const Case cases[] = {
      {"Poseidon(comm_c, root_r_old) is not comm_r_old",
       [](UpdatePartitionProof& p) { p.comm_c[0] ^= 1; }},
      {"challenge 2 (node", [](UpdatePartitionProof& p) { p.challenges[2].d_new.leaf[0] ^= 1; }},
      {"another root", [](UpdatePartitionProof& p) { p.challenges[4].d_new.root[0] ^= 1; }},
      {"proof_d_new: the path opens leaf",
       [](UpdatePartitionProof& p) { p.challenges[1].d_new.paths[0][0].position ^= 1; }},
      {"challenge proofs; the sector has",
       [](UpdatePartitionProof& p) { p.challenges.pop_back(); }},
  };
  for (const Case& k : cases) {
    INFO(k.expect);
    UpdatePartitionProof p = good;
    k.damage(p);
    const Status st = check_poseidon(p);
    REQUIRE_FALSE(st.ok());
    CHECK_THAT(st.message(), Catch::Contains(k.expect));
  }
}

}  // namespace
}  // namespace zkpipe::filecoin_circuit
