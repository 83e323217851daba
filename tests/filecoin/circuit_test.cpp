// Filecoin's circuits as bellperson synthesizes them (zkpipe::filecoin_circuit), against the
// numbers Filecoin's own tests assert: neptune's Poseidon circuit (311 / 377 / 505 constraints
// for arity 2 / 4 / 8, neptune circuit.rs), rust-fil-proofs' PoR circuits (storage-proofs-core
// tests/por_circuit.rs: 1,886 ... 1,907 constraints by tree shape), the fallback PoSt circuit
// (storage-proofs-post tests/fallback_circuit.rs: 16,869 / 22,674 / 27,384 / 11,246) and the
// 32GiB WindowPoSt partition (125,279,217 constraints, 25,840 inputs; issue 32). Each built
// circuit is also satisfied by a real tree's openings, its output equals the native hash, and
// its public inputs equal what zkpipe::filecoin derives from the description alone. Equal
// counts are necessary for the same R1CS, not sufficient (the README says what is not checked).
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "filecoin/circuit_helpers.h"
#include "zkpipe/filecoin/porep_config.h"
#include "zkpipe/filecoin/poseidon.h"
#include "zkpipe/filecoin/post_inputs.h"
#include "zkpipe/filecoin_circuit/poseidon.h"
#include "zkpipe/filecoin_circuit/post.h"
#include "zkpipe/groth16/r1cs.h"

namespace zkpipe::filecoin_circuit {
namespace {

TEST_CASE("Filecoin circuit: neptune's Poseidon circuit counts, satisfied, equal to the hash",
          "[filecoin][circuit]") {
  const std::pair<uint32_t, uint64_t> cases[] = {{2, 311}, {4, 377}, {8, 505}};
  for (const auto& [arity, expected] : cases) {
    INFO("arity " << arity);
    CHECK(poseidon_hash_constraints(arity) == expected);
    std::vector<Fr> values;
    for (uint32_t i = 0; i < arity; ++i) values.push_back(sample(arity * 100 + i));
    Fr out;
    const groth16::R1cs r1cs = record_satisfied([&](ConstraintSystem& cs) {
      std::vector<Num> in;
      for (const Fr& v : values) in.push_back(Num::alloc(cs, v));
      out = poseidon_hash(cs, in).value;
    });
    CHECK(r1cs.num_constraints() == expected);
    CHECK(r1cs.num_aux == arity + expected);  // every constraint allocates one variable
    CHECK(out == filecoin::poseidon_merkle(values));
  }
  // Arity 11 (SDR's column hash): neptune's formula, and the native hash.
  std::vector<Fr> values;
  for (uint32_t i = 0; i < 11; ++i) values.push_back(sample(1100 + i));
  ConstraintSystem cs = ConstraintSystem::recorder();
  std::vector<Num> in;
  for (const Fr& v : values) in.push_back(Num::alloc(cs, v));
  CHECK(poseidon_hash(cs, in).value == filecoin::poseidon_merkle(values));
  CHECK(cs.num_constraints() == poseidon_hash_constraints(11));
}

TEST_CASE("Filecoin circuit: a wrong hash input leaves a constraint unsatisfied",
          "[filecoin][circuit]") {
  ConstraintSystem cs = ConstraintSystem::recorder();
  const Num a = Num::alloc(cs, sample(1)), b = Num::alloc(cs, sample(2));
  const Num pair[2] = {a, b};
  const Num h = poseidon_hash(cs, pair);
  const Num claimed = Num::alloc(cs, h.value + Fr::one());
  equal(cs, h, claimed);
  groth16::R1cs r1cs = cs.take_r1cs();
  auto [inputs, aux] = cs.take_witness();
  CHECK_FALSE(groth16::check_satisfied(r1cs, {inputs, aux}, 1).ok());
}

TEST_CASE("Filecoin circuit: insertion puts the element at every position", "[filecoin][circuit]") {
  for (uint32_t bits : {1u, 2u, 3u, 4u}) {
    const uint32_t size = 1u << bits;
    for (uint32_t pos = 0; pos < size; ++pos) {
      INFO("size " << size << " position " << pos);
      std::vector<Fr> got;
      const groth16::R1cs r1cs = record_satisfied([&](ConstraintSystem& cs) {
        std::vector<Boolean> index;
        for (uint32_t i = 0; i < bits; ++i) index.push_back(alloc_bit(cs, (pos >> i) & 1));
        const Num x = Num::alloc(cs, Fr::from_u64(1000));
        std::vector<Num> others;
        for (uint32_t i = 0; i + 1 < size; ++i) others.push_back(Num::alloc(cs, Fr::from_u64(i)));
        got.clear();
        for (const Num& n : insert(cs, x, index, others)) got.push_back(n.value);
      });
      std::vector<Fr> want;
      for (uint32_t i = 0; i + 1 < size; ++i) want.push_back(Fr::from_u64(i));
      want.insert(want.begin() + pos, Fr::from_u64(1000));
      CHECK(got == want);
      // insert_2: 2 picks, insert_4: 8, insert_8: 2 bit gadgets + 20 picks, select: size^2 - size.
      const uint64_t picks = size == 2 ? 2 : size == 4 ? 8 : size == 8 ? 22 : size * (size - 1);
      CHECK(r1cs.num_constraints() == bits + picks);
    }
  }
}

TEST_CASE("Filecoin circuit: PoR constraint counts of storage-proofs-core's tests",
          "[filecoin][circuit]") {
  struct Case {
    TreeArities a;
    bool private_root;
    uint64_t constraints;
  };
  // tests/por_circuit.rs at rust-fil-proofs 87348a7 (leaves = 64 x the base-tree count).
  const Case cases[] = {
      {{2, 0, 0}, false, 1'887}, {{4, 0, 0}, false, 1'164}, {{8, 0, 0}, false, 1'063},
      {{8, 2, 0}, false, 1'377}, {{8, 4, 2}, false, 1'764}, {{8, 8, 0}, false, 1'593},
      {{8, 8, 2}, false, 1'907}, {{8, 2, 4}, false, 1'764}, {{2, 0, 0}, true, 1'886},
      {{4, 0, 0}, true, 1'163},  {{8, 0, 0}, true, 1'062},
  };
  for (const Case& c : cases) {
    const uint64_t leaves = 64 * std::max(1u, c.a.sub) * std::max(1u, c.a.top);
    INFO("arities " << c.a.base << "-" << c.a.sub << "-" << c.a.top << " private "
                    << c.private_root);
    const Tree tree = random_tree(leaves, c.a, c.a.base + 10 * c.a.sub + 100 * c.a.top);
    const uint64_t challenge = leaves / 3 + 1;
    const MerkleOpening o = tree.open(challenge);
    CHECK(opening_root(o) == tree.root());
    std::vector<Fr> inputs;
    const groth16::R1cs r1cs = record_satisfied(
        [&](ConstraintSystem& cs) { por_standalone(cs, o, tree.root(), c.private_root); }, &inputs);
    CHECK(r1cs.num_constraints() == c.constraints);
    REQUIRE(inputs.size() == (c.private_root ? 2u : 3u));
    CHECK(inputs[1] == Fr::from_u64(challenge));  // the packed path bits: the leaf index
    if (!c.private_root) CHECK(inputs[2] == tree.root());
  }
}

TEST_CASE("Filecoin circuit: a wrong sibling fails the PoR", "[filecoin][circuit]") {
  const Tree tree = random_tree(64, {8, 0, 0}, 7);
  MerkleOpening o = tree.open(9);
  o.path[1].siblings[3] += Fr::one();
  ConstraintSystem cs = ConstraintSystem::recorder();
  por_standalone(cs, o, tree.root(), true);
  groth16::R1cs r1cs = cs.take_r1cs();
  auto [inputs, aux] = cs.take_witness();
  CHECK_FALSE(groth16::check_satisfied(r1cs, {inputs, aux}, 1).ok());
}

// A fallback-PoSt partition over `sectors` random sectors with `challenges` leaves each.
std::vector<PostSectorWitness> random_post(uint32_t sectors, uint32_t challenges, uint64_t leaves,
                                           TreeArities a) {
  std::vector<PostSectorWitness> out;
  for (uint32_t s = 0; s < sectors; ++s) {
    const Tree tree = random_tree(leaves, a, 50 + s);
    PostSectorWitness w;
    w.comm_r_last = tree.root();
    w.comm_c = sample(900 + s);
    const Fr pair[2] = {w.comm_c, w.comm_r_last};
    w.comm_r = filecoin::poseidon_merkle(pair);
    for (uint32_t c = 0; c < challenges; ++c)
      w.openings.push_back(tree.open((c * 37 + s) % leaves));
    out.push_back(std::move(w));
  }
  return out;
}

TEST_CASE("Filecoin circuit: fallback PoSt counts of storage-proofs-post's tests",
          "[filecoin][circuit]") {
  struct Case {
    TreeArities a;
    uint32_t sectors;
    uint64_t constraints;
  };
  // tests/fallback_circuit.rs: 5 challenges a sector, 64 x base-tree-count leaves; the
  // partition's sector count is the circuit's (3, or 2 for the two-partition case).
  const Case cases[] = {{{8, 0, 0}, 3, 16'869},
                        {{8, 4, 0}, 3, 22'674},
                        {{8, 4, 2}, 3, 27'384},
                        {{8, 0, 0}, 2, 11'246}};
  for (const Case& c : cases) {
    const uint64_t leaves = 64 * std::max(1u, c.a.sub) * std::max(1u, c.a.top);
    INFO("arities " << c.a.base << "-" << c.a.sub << "-" << c.a.top << " sectors " << c.sectors);
    const std::vector<PostSectorWitness> w = random_post(c.sectors, 5, leaves, c.a);
    const groth16::R1cs r1cs =
        record_satisfied([&](ConstraintSystem& cs) { synthesize_fallback_post(cs, w); });
    CHECK(r1cs.num_constraints() == c.constraints);
    CHECK(r1cs.num_inputs == 1 + c.sectors * 6);  // 19 for 3 sectors, as the test asserts
    const CircuitCounts n = count_fallback_post(c.sectors, 5, leaves, c.a);
    CHECK(n.constraints == c.constraints);
    CHECK(n.inputs == r1cs.num_inputs);
    CHECK(n.aux == r1cs.num_aux);
  }
}

TEST_CASE("Filecoin circuit: a 2KiB WindowPoSt partition's inputs are part 1's derived inputs",
          "[filecoin][circuit]") {
  Result<filecoin::PostConfig> config = filecoin::registered_post("StackedDrgWindow2KiBV1_2");
  REQUIRE(config.ok());
  Result<filecoin::SectorShape> shape = filecoin::sector_shape(config->sector_size);
  REQUIRE(shape.ok());
  const TreeArities a{shape->base_arity, shape->sub_arity, shape->top_arity};
  filecoin::PostDescription d;
  d.config = *config;
  for (size_t i = 0; i < 32; ++i) d.randomness[i] = static_cast<uint8_t>(i * 7 + 3);
  d.randomness[31] &= 0x3f;

  std::vector<PostSectorWitness> sectors;
  const uint64_t ids[2] = {4, 19};
  for (uint32_t s = 0; s < 2; ++s) {
    const Tree tree = random_tree(shape->nodes, a, 70 + s);
    PostSectorWitness w;
    w.comm_r_last = tree.root();
    w.comm_c = sample(700 + s);
    const Fr pair[2] = {w.comm_c, w.comm_r_last};
    w.comm_r = filecoin::poseidon_merkle(pair);
    for (uint32_t n = 0; n < config->challenges; ++n) {
      w.openings.push_back(
          tree.open(filecoin::post_leaf_challenge(d.randomness, ids[s], n, shape->nodes)));
    }
    d.sectors.push_back({ids[s], filecoin::domain_from_fr(w.comm_r)});
    sectors.push_back(std::move(w));
  }
  Result<std::vector<std::vector<Fr>>> derived = filecoin::post_public_inputs(d);
  REQUIRE(derived.ok());
  REQUIRE(derived->size() == 1);

  std::vector<Fr> inputs;
  record_satisfied([&](ConstraintSystem& cs) { synthesize_fallback_post(cs, sectors); }, &inputs);
  REQUIRE(inputs.size() == 1 + (*derived)[0].size());
  CHECK(std::vector<Fr>(inputs.begin() + 1, inputs.end()) == (*derived)[0]);
}

TEST_CASE("Filecoin circuit: 32GiB PoSt partitions count as Filecoin's", "[filecoin][circuit]") {
  Result<filecoin::SectorShape> shape = filecoin::sector_shape(uint64_t{32} << 30);
  REQUIRE(shape.ok());
  const TreeArities a{shape->base_arity, shape->sub_arity, shape->top_arity};
  // One sector of the WindowPoSt partition (2,349 sectors, 10 challenges): 53,333 constraints,
  // so the partition is 125,279,217 with 25,840 inputs (the figures).
  const CircuitCounts sector = count_fallback_post(1, 10, shape->nodes, a);
  CHECK(sector.constraints * 2349 == 125'279'217);
  CHECK(1 + (sector.inputs - 1) * 2349 == 25'840);
  // WinningPoSt: filecoin-proofs' winning_post_setup_params turns 66 challenges of 1 sector
  // into a circuit of 66 sector blocks with 1 challenge each: 370,590 constraints, 133 inputs.
  const CircuitCounts winning = count_fallback_post(66, 1, shape->nodes, a);
  CHECK(winning.constraints == 370'590);
  CHECK(winning.inputs == 133);
}

}  // namespace
}  // namespace zkpipe::filecoin_circuit
