// zkpipe/filecoin_circuit/poseidon.h: Filecoin's Poseidon in-circuit, as neptune's circuit
// (neptune::circuit::poseidon_hash, which filecoin-hashers calls for every tree and column
// hash) builds it: the round constants compressed and the partial rounds' MDS factored into a
// dense matrix and sparse ones exactly as neptune derives them (so every allocated value, not
// only the output, is neptune's), the domain tag a constant, and per S-box: the input allocated
// when it is a linear combination (1 constraint), then x^2, x^4, x^5 + key (3 constraints);
// the first round's inputs are already allocated, and the result is allocated last
// (1 constraint). Arity 2: 311 constraints, 4: 377, 8: 505, as neptune's tests assert.
// Library zkpipe::filecoin_circuit. Thread-safety: constants are built once, thread-safely.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "zkpipe/filecoin_circuit/gadgets.h"

namespace zkpipe::filecoin_circuit {

// neptune's PoseidonConstants for a Merkle-tree hash of `arity` inputs (what the circuit uses).
struct NeptuneConstants {
  uint32_t width = 0, full_rounds = 0, partial_rounds = 0;
  Fr domain_tag;
  std::vector<Fr> compressed_round_constants;  // full_rounds * width + partial_rounds
  std::vector<Fr> mds;                         // width x width, row-major (neptune's m)
  std::vector<Fr> pre_sparse;                  // width x width, row-major
  struct Sparse {
    std::vector<Fr> w_hat;   // width: the first column
    std::vector<Fr> v_rest;  // width - 1: the first row after its first entry
  };
  std::vector<Sparse> sparse;  // partial_rounds
};

// Throws std::invalid_argument for an arity filecoin::poseidon does not support (1..36).
const NeptuneConstants& neptune_constants(uint32_t arity);

// The tree hash of preimage.size() allocated inputs (tag 2^arity - 1), constrained; the result
// equals filecoin::poseidon_merkle of their values.
Num poseidon_hash(ConstraintSystem& cs, std::span<const Num> preimage);
// The same permutation with neptune's HashType::Custom(Arbitrary(id)) tag (id * 2^40; the round
// constants depend on the width only): equals filecoin::poseidon_custom. SnapDeals' randomness
// hashes (phi, rho, challenge digests) are id 1 over 2 inputs.
Num poseidon_hash_custom(ConstraintSystem& cs, uint32_t id, std::span<const Num> preimage);

// Constraints of one such hash: 3 S-box constraints each plus the MDS allocations, as neptune
// computes it (3 (t R_F + R_P - 1) + t R_F + R_P - arity).
uint64_t poseidon_hash_constraints(uint32_t arity);

}  // namespace zkpipe::filecoin_circuit
