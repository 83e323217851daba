// tests/filecoin/circuit_helpers.h: what the Filecoin circuit tests share: spread-out field
// samples, a Merkle tree of either hasher built level by level with its openings, and
// record_satisfied (record a circuit, check every constraint holds, and check a witness-only
// run allocates the same values). Thread-safety: call from the Catch2 test thread.
#pragma once

#include <catch2/catch.hpp>

#include <cstdint>
#include <span>
#include <vector>

#include "zkpipe/filecoin/hashes.h"
#include "zkpipe/filecoin_circuit/por.h"
#include "zkpipe/groth16/r1cs.h"

namespace zkpipe::filecoin_circuit {

inline Fr sample(uint64_t i) {
  uint64_t z = (i + 1) * 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  const Fr a = Fr::from_u64(z ^ (z >> 31));
  return a * a * a + Fr::from_u64(i);  // spread over the field
}

// A Poseidon tree level by level: `arities` from the leaves up.
struct Tree {
  std::vector<std::vector<Fr>> levels;
  std::vector<uint32_t> arities;

  TreeHasher hasher = TreeHasher::kPoseidon;

  Tree(std::vector<Fr> leaves, std::vector<uint32_t> a, TreeHasher h = TreeHasher::kPoseidon)
      : arities(std::move(a)), hasher(h) {
    levels.push_back(std::move(leaves));
    for (uint32_t arity : arities) {
      const std::vector<Fr>& below = levels.back();
      std::vector<Fr> up;
      for (size_t i = 0; i < below.size(); i += arity) {
        up.push_back(tree_hash(hasher, std::span<const Fr>(&below[i], arity)));
      }
      levels.push_back(std::move(up));
    }
    REQUIRE(levels.back().size() == 1);
  }
  const Fr& root() const { return levels.back()[0]; }

  MerkleOpening open(uint64_t index) const {
    MerkleOpening o;
    o.hasher = hasher;
    o.leaf = levels[0][index];
    for (size_t level = 0; level < arities.size(); ++level) {
      const uint32_t arity = arities[level];
      PathElement e;
      e.position = static_cast<uint32_t>(index % arity);
      const uint64_t first = index - e.position;
      for (uint32_t k = 0; k < arity; ++k) {
        if (k != e.position) e.siblings.push_back(levels[level][first + k]);
      }
      o.path.push_back(std::move(e));
      index /= arity;
    }
    return o;
  }
};

inline std::vector<uint32_t> level_arities(uint64_t leaves, TreeArities a) {
  const uint32_t base = base_path_length(leaves, a);
  std::vector<uint32_t> out(base, a.base);
  if (a.sub) out.push_back(a.sub);
  if (a.top) out.push_back(a.top);
  return out;
}

inline Tree random_tree(uint64_t leaves, TreeArities a, uint64_t seed,
                        TreeHasher hasher = TreeHasher::kPoseidon) {
  std::vector<Fr> data;
  for (uint64_t i = 0; i < leaves; ++i) data.push_back(sample(seed * 1000003 + i));
  // SHA-256 trees hold 254-bit domain elements (as fr32 data and their hashes are)
  if (hasher == TreeHasher::kSha256) {
    for (Fr& x : data) {
      filecoin::Domain d = filecoin::domain_from_fr(x);
      d[31] &= 0x3f;
      x = *filecoin::fr_from_domain(d);
    }
  }
  return Tree(std::move(data), level_arities(leaves, a), hasher);
}

// Records a circuit, checks every constraint holds, and checks a witness-only run allocates the
// same values.
template <typename Synthesize>
inline groth16::R1cs record_satisfied(Synthesize&& synthesize,
                                      std::vector<Fr>* inputs_out = nullptr) {
  ConstraintSystem cs = ConstraintSystem::recorder();
  synthesize(cs);
  REQUIRE(cs.finish().ok());
  groth16::R1cs r1cs = cs.take_r1cs();
  auto [inputs, aux] = cs.take_witness();
  const Status sat = groth16::check_satisfied(r1cs, {inputs, aux}, 1);
  INFO(sat.to_string());
  REQUIRE(sat.ok());

  std::vector<Fr> w_inputs(inputs.size()), w_aux(aux.size());
  ConstraintSystem w = ConstraintSystem::witness({w_inputs, w_aux});
  synthesize(w);
  REQUIRE(w.finish().ok());
  CHECK(w.num_constraints() == r1cs.num_constraints());
  CHECK(w.num_aux() == aux.size());
  CHECK(w_inputs == inputs);
  CHECK(w_aux == aux);
  if (inputs_out) *inputs_out = inputs;
  return r1cs;
}

}  // namespace zkpipe::filecoin_circuit
