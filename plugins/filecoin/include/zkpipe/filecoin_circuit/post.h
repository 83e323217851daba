// zkpipe/filecoin_circuit/post.h: Filecoin's Window and Winning PoSt circuit
// (storage-proofs-post fallback/circuit.rs, FallbackPoStCircuit), one partition: per sector
// comm_r_last, comm_c and comm_r allocated, comm_r made a public input, Poseidon(comm_c,
// comm_r_last) == comm_r, then one private-root inclusion proof (por.h) per challenged leaf
// into tree_r_last. Public inputs: per sector comm_r, then its challenged leaf indices — what
// zkpipe::filecoin's post_public_inputs derives from the description alone.
// Library zkpipe::filecoin_circuit. Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "zkpipe/filecoin_circuit/por.h"

namespace zkpipe::filecoin_circuit {

struct PostSectorWitness {
  Fr comm_r, comm_c, comm_r_last;
  std::vector<MerkleOpening> openings;  // one per challenge, in challenge order
};

// Synthesizes one partition over `sectors` (already padded to the partition's sector count).
void synthesize_fallback_post(ConstraintSystem& cs, std::span<const PostSectorWitness> sectors);

// A blank partition of `sectors` sectors with `challenges` openings each over a tree of
// `leaves` leaves (every value zero: for counting).
std::vector<PostSectorWitness> blank_post(uint32_t sectors, uint32_t challenges, uint64_t leaves,
                                          TreeArities arities);

struct CircuitCounts {
  uint64_t constraints = 0;
  uint32_t inputs = 0;  // with the constant one, as bellperson counts them
  uint32_t aux = 0;
};

// Counts of one partition (synthesized in counting mode).
CircuitCounts count_fallback_post(uint32_t sectors, uint32_t challenges, uint64_t leaves,
                                  TreeArities arities);

}  // namespace zkpipe::filecoin_circuit
