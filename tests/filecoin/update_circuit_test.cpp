// Filecoin's SnapDeals circuit (zkpipe/filecoin_circuit/update.h) against the counts
// rust-fil-proofs' own tests assert: storage-proofs-update tests/circuit.rs (1KiB 1,248,389,
// 2KiB 1,705,039, 4KiB 2,165,109, 8KiB 2,620,359, 16KiB 6,300,021, 32KiB 6,760,091 constraints)
// and its gadget tests in src/gadgets.rs (gen_challenge_bits: 568 for the small sizes, 4,544 at
// 512MiB, 5,680 at 32GiB and 64GiB). A partition over real trees (tree_r Poseidon, tree_d
// SHA-256, new labels encoded with rho) is satisfied, its challenge bits equal the native
// challenges, and its public inputs equal what part 1 derives from the description alone.
// Equal counts are necessary for the same R1CS, not sufficient.
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "filecoin/circuit_helpers.h"
#include "zkpipe/filecoin/poseidon.h"
#include "zkpipe/filecoin/post_inputs.h"
#include "zkpipe/filecoin_circuit/update.h"

namespace zkpipe::filecoin_circuit {
namespace {

uint64_t count_update(const UpdateShape& s) {
  ConstraintSystem cs = ConstraintSystem::counter();
  synthesize_update(cs, s, blank_update(s));
  REQUIRE(cs.finish().ok());
  return cs.num_constraints();
}

Fr fr32(const Fr& x) {  // a 254-bit value, as tree_d's leaves and nodes are
  filecoin::Domain d = filecoin::domain_from_fr(x);
  d[31] &= 0x3f;
  return *filecoin::fr_from_domain(d);
}

// A sector updated with new data: its trees, commitments and partition k's witness.
struct UpdatedSector {
  UpdateShape s;
  Fr comm_r_old, comm_d_new, comm_r_new;
  UpdateWitness w;
  std::vector<uint32_t> challenges;

  UpdatedSector(uint64_t nodes, uint32_t k, uint64_t seed) : s(update_shape(nodes)) {
    std::vector<Fr> r_old, d_new;
    for (uint64_t i = 0; i < nodes; ++i) {
      r_old.push_back(sample(seed * 7919 + i));
      d_new.push_back(fr32(sample(seed * 104729 + i)));
    }
    const Tree tree_r_old(r_old, level_arities(nodes, s.tree_r));
    const Tree tree_d(d_new, std::vector<uint32_t>(s.challenge_bit_len, 2), TreeHasher::kSha256);
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
    const Tree tree_r_new(r_new, level_arities(nodes, s.tree_r));
    const Fr new_pair[2] = {comm_c, tree_r_new.root()};
    comm_r_new = filecoin::poseidon_merkle(new_pair);

    w.k_and_h_select = update_k_and_h_select(s, k, h);
    w.comm_r_old = comm_r_old;
    w.comm_d_new = comm_d_new;
    w.comm_r_new = comm_r_new;
    w.comm_c = comm_c;
    w.root_r_old = tree_r_old.root();
    w.root_r_new = tree_r_new.root();
    const std::vector<Fr>& apex_row =
        tree_d.levels[s.challenge_bit_len - s.partition_bit_len - s.apex_leaf_bit_len];
    w.apex_leafs.assign(apex_row.begin() + k * s.apex_leaf_count,
                        apex_row.begin() + (k + 1) * s.apex_leaf_count);
    challenges = update_challenges(s, comm_r_new, k);
    for (uint32_t c : challenges) {
      UpdateChallengeWitness cw;
      const MerkleOpening o_old = tree_r_old.open(c), o_new = tree_r_new.open(c);
      const MerkleOpening o_d = tree_d.open(c);
      cw.leaf_r_old = o_old.leaf;
      cw.leaf_r_new = o_new.leaf;
      cw.leaf_d_new = o_d.leaf;
      for (const PathElement& e : o_old.path) cw.path_r_old.push_back(e.siblings);
      for (const PathElement& e : o_new.path) cw.path_r_new.push_back(e.siblings);
      for (const PathElement& e : o_d.path) cw.path_d_new.push_back(e.siblings.at(0));
      w.challenges.push_back(std::move(cw));
    }
  }
};

TEST_CASE("Filecoin SnapDeals circuit: constraint counts of storage-proofs-update's tests",
          "[filecoin][circuit][heavy]") {
  const std::pair<uint64_t, uint64_t> cases[] = {
      {1 << 5, 1'248'389}, {1 << 6, 1'705'039}, {1 << 7, 2'165'109},
      {1 << 8, 2'620'359}, {1 << 9, 6'300'021}, {1 << 10, 6'760'091},
  };
  for (const auto& [nodes, expected] : cases) {
    INFO("nodes " << nodes);
    CHECK(count_update(update_shape(nodes)) == expected);
  }
  // test_empty_sector_update_constraints_32gib (an #[ignore]d test there): one partition.
  CHECK(count_update(update_shape(uint64_t{1} << 30)) == 81'049'499);
}

TEST_CASE("Filecoin SnapDeals circuit: gen_challenge_bits counts and equals the native challenges",
          "[filecoin][circuit]") {
  // src/gadgets.rs test_gen_challenge_bits_gadget, ALLOWED_SECTOR_SIZES in order
  const std::pair<uint64_t, uint64_t> cases[] = {
      {1 << 5, 568},
      {1 << 6, 568},
      {1 << 7, 568},
      {1 << 8, 568},
      {1 << 9, 568},
      {1 << 10, 568},
      {1 << 18, 568},
      {1 << 19, 568},
      {1 << 24, 4'544},
      {uint64_t{1} << 30, 5'680},
      {uint64_t{1} << 31, 5'680},
  };
  for (const auto& [nodes, expected] : cases) {
    const UpdateShape s = update_shape(nodes);
    const Fr comm_r_new = sample(nodes);
    for (uint32_t k = 0; k < s.partition_count; k += std::max(1u, s.partition_count - 1)) {
      INFO("nodes " << nodes << " k " << k);
      ConstraintSystem cs = ConstraintSystem::recorder();
      const Num r = Num::alloc(cs, comm_r_new);
      const Num partition = Num::alloc(cs, Fr::from_u64(k));
      const uint64_t before = cs.num_constraints();
      const std::vector<std::vector<Boolean>> bits = update_challenge_bits(cs, s, r, partition);
      CHECK(cs.num_constraints() - before == expected);
      const std::vector<uint32_t> native = update_challenges(s, comm_r_new, k);
      REQUIRE(bits.size() == native.size());
      const uint32_t random_bits = s.challenge_bit_len - s.partition_bit_len;
      for (size_t c = 0; c < bits.size(); ++c) {
        uint32_t v = k << random_bits;
        for (size_t i = 0; i < bits[c].size(); ++i) v |= uint32_t{bits[c][i].value()} << i;
        CHECK(v == native[c]);
      }
      groth16::R1cs r1cs = cs.take_r1cs();
      auto [inputs, aux] = cs.take_witness();
      CHECK(groth16::check_satisfied(r1cs, {inputs, aux}, 1).ok());
    }
  }
}

TEST_CASE("Filecoin SnapDeals circuit: shapes and native challenges", "[filecoin][circuit]") {
  const UpdateShape s32g = update_shape(uint64_t{1} << 30);
  CHECK(s32g.partition_count == 16);
  CHECK(s32g.challenge_count == 86);
  CHECK(s32g.apex_leaf_count == 128);
  CHECK(s32g.hs[3] == 10);
  CHECK(update_k_and_h_select(s32g, 5, 10) == (5 | 8 << 4));
  CHECK_THROWS_AS(update_shape(1 << 11), std::invalid_argument);
  CHECK_THROWS_AS(update_k_and_h_select(s32g, 0, 13), std::invalid_argument);
  // Every challenge lies in its partition's slice of the sector.
  const Fr comm_r_new = sample(77);
  for (uint32_t k = 0; k < s32g.partition_count; ++k) {
    const std::vector<uint32_t> c = update_challenges(s32g, comm_r_new, k);
    REQUIRE(c.size() == 86);
    for (uint32_t x : c) CHECK(x >> 26 == k);
  }
}

TEST_CASE("Filecoin SnapDeals circuit: a 2KiB update is satisfied, with part 1's inputs",
          "[filecoin][circuit][heavy]") {
  const UpdatedSector u(1 << 6, 0, 3);
  std::vector<Fr> inputs;
  const groth16::R1cs r1cs =
      record_satisfied([&](ConstraintSystem& cs) { synthesize_update(cs, u.s, u.w); }, &inputs);
  CHECK(r1cs.num_constraints() == 1'705'039);

  filecoin::UpdateDescription d;
  d.sector_size = 2048;
  d.comm_r_old = filecoin::domain_from_fr(u.comm_r_old);
  d.comm_d_new = filecoin::domain_from_fr(u.comm_d_new);
  d.comm_r_new = filecoin::domain_from_fr(u.comm_r_new);
  const Result<std::vector<std::vector<Fr>>> derived = filecoin::update_public_inputs(d);
  REQUIRE(derived.ok());
  REQUIRE(derived->size() == 1);
  REQUIRE(inputs.size() == 5);
  CHECK(std::vector<Fr>(inputs.begin() + 1, inputs.end()) == (*derived)[0]);
}

TEST_CASE("Filecoin SnapDeals circuit: new data that was not encoded fails",
          "[filecoin][circuit][heavy]") {
  UpdatedSector u(1 << 6, 0, 4);
  // label_r_new = label_r_old + label_d_new * rho no longer opens in tree_r_new
  u.w.challenges[4].leaf_d_new += Fr::one();
  ConstraintSystem cs = ConstraintSystem::recorder();
  synthesize_update(cs, u.s, u.w);
  groth16::R1cs r1cs = cs.take_r1cs();
  auto [inputs, aux] = cs.take_witness();
  CHECK_FALSE(groth16::check_satisfied(r1cs, {inputs, aux}, 1).ok());
}

TEST_CASE("Filecoin SnapDeals circuit: a 16KiB sector's second partition is satisfied",
          "[filecoin][circuit][heavy]") {
  // Two partitions: the partition bits position the apex root under comm_d and the challenges.
  const UpdatedSector u(1 << 9, 1, 5);
  for (uint32_t c : u.challenges) CHECK(c >> 8 == 1);
  ConstraintSystem cs = ConstraintSystem::recorder();
  synthesize_update(cs, u.s, u.w);
  REQUIRE(cs.finish().ok());
  CHECK(cs.num_constraints() == 6'300'021);
  groth16::R1cs r1cs = cs.take_r1cs();
  auto [inputs, aux] = cs.take_witness();
  CHECK(groth16::check_satisfied(r1cs, {inputs, aux}, 1).ok());
  REQUIRE(inputs.size() == 5);
  CHECK(inputs[1] == Fr::from_u64(1 | 1 << 1));  // k = 1, h_select = 1 << 0
}

TEST_CASE("Filecoin SnapDeals circuit: a witness of the wrong shape is refused",
          "[filecoin][circuit]") {
  const UpdateShape s = update_shape(1 << 6);
  UpdateWitness w = blank_update(s);
  w.challenges.pop_back();
  ConstraintSystem cs = ConstraintSystem::counter();
  CHECK_THROWS_WITH(synthesize_update(cs, s, w), Catch::Contains("challenge count"));
  w = blank_update(s);
  w.challenges[3].path_r_new.pop_back();
  CHECK_THROWS_WITH(synthesize_update(cs, s, w), Catch::Contains("challenge 3"));
}

}  // namespace
}  // namespace zkpipe::filecoin_circuit
