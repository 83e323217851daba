// zkpipe/filecoin_circuit/update.h: Filecoin's SnapDeals circuit (storage-proofs-update
// circuit.rs, EmptySectorUpdateCircuit: tree_d SHA-256, tree_r Poseidon) synthesized in
// bellperson's order, with its gadgets (gadgets.rs: apex_por, gen_challenge_bits,
// get_challenge_high_bits, label_r_new) and its constants (constants.rs: partitions,
// challenges, apex leaves, h values and tree_r shapes per sector size); the challenges natively
// (challenges.rs). A partition proves, for each of its challenges c, that
//   label_r_new[c] = label_r_old[c] + label_d_new[c] * rho(c),
//   rho(c) = Poseidon(phi, c >> (bits - h)), phi = Poseidon(comm_d_new, comm_r_old),
// with openings of c in tree_r_old, tree_r_new (roots bound to comm_r_old / comm_r_new through
// comm_c) and tree_d_new (through the partition's apex leaves up to comm_d_new).
// Public inputs: k_and_h_select, comm_r_old, comm_d_new, comm_r_new.
// The Poseidon variant (storage-proofs-update src/poseidon/circuit.rs, the files
// empty-sector-update-poseidon-* of parameters.json) proves the same encoding with tree_d a
// Poseidon tree of tree_r's shape and no partitions: one proof of challenge_count x partitions
// challenges, all three openings of tree_r's shape, public inputs h_select, comm_r_old,
// comm_d_new, comm_r_new.
// Library zkpipe::filecoin_circuit. Thread-safety: pure functions.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "zkpipe/filecoin_circuit/por.h"

namespace zkpipe::filecoin_circuit {

// PublicParams::from_sector_size and the constants of one sector size.
struct UpdateShape {
  uint64_t sector_nodes = 0;
  uint32_t challenge_count = 0, challenge_bit_len = 0;
  uint32_t partition_count = 0, partition_bit_len = 0;
  uint32_t apex_leaf_count = 0, apex_leaf_bit_len = 0;
  std::array<uint32_t, 6> hs{};  // the allowed h values
  TreeArities tree_r;            // validate_tree_r_shape's arities
};

// The allowed sizes: 1, 2, 4, 8, 16, 32 KiB (test sizes), 8 and 16 MiB, 512 MiB, 32 and
// 64 GiB, in 32-byte nodes. Throws std::invalid_argument naming the size otherwise.
UpdateShape update_shape(uint64_t sector_nodes);
// PublicParams::from_sector_size_poseidon: one partition (partition_bit_len 0) of
// challenge_count x partition_count challenges, no apex leaves. update_challenges(s, r, 0) and
// update_challenge_bits over this shape are then Challenges::new_poseidon and its circuit.
UpdateShape update_poseidon_shape(uint64_t sector_nodes);

// Challenges::new: partition k's challenges (node indices) for comm_r_new.
std::vector<uint32_t> update_challenges(const UpdateShape& s, const Fr& comm_r_new, uint32_t k);
// phi = Poseidon_custom1(comm_d_new, comm_r_old) and rho(c) for a node c under h.
Fr update_phi(const Fr& comm_d_new, const Fr& comm_r_old);
Fr update_rho(const UpdateShape& s, const Fr& phi, uint32_t h, uint64_t node);
// PublicInputs::new's first input: k | h_select << partition_bit_len (h must be one of hs).
uint64_t update_k_and_h_select(const UpdateShape& s, uint32_t k, uint32_t h);

// gen_challenge_bits: per digest j, digest_index = k * digests + j allocated and constrained,
// Poseidon_custom1(comm_r_new, digest_index), its 255 bits allocated; the challenges' random
// bits (without the partition bits), least significant first.
std::vector<std::vector<Boolean>> update_challenge_bits(ConstraintSystem& cs, const UpdateShape& s,
                                                        const Num& comm_r_new,
                                                        const Num& partition);

// One challenge's openings: siblings per level from the leaf up (tree_r: base, sub, top levels;
// tree_d: binary, one sibling a level, all challenge_bit_len of them).
struct UpdateChallengeWitness {
  Fr leaf_r_old, leaf_d_new, leaf_r_new;
  std::vector<std::vector<Fr>> path_r_old, path_r_new;
  std::vector<Fr> path_d_new;
};

// A partition's circuit witness (public and private inputs).
struct UpdateWitness {
  uint64_t k_and_h_select = 0;
  Fr comm_r_old, comm_d_new, comm_r_new;
  Fr comm_c, root_r_old, root_r_new;
  std::vector<Fr> apex_leafs;                      // apex_leaf_count
  std::vector<UpdateChallengeWitness> challenges;  // challenge_count
};

// An all-zero witness of the right shape (counting, blank circuits).
UpdateWitness blank_update(const UpdateShape& s);

// The Poseidon variant's witness: h_select (one bit of hs' six), the commitments, and per
// challenge the three openings, each of tree_r's shape (siblings per level from the leaf up).
struct UpdatePoseidonChallenge {
  Fr leaf_r_old, leaf_d_new, leaf_r_new;
  std::vector<std::vector<Fr>> path_r_old, path_d_new, path_r_new;
};
struct UpdatePoseidonWitness {
  uint64_t h_select = 0;
  Fr comm_r_old, comm_d_new, comm_r_new;
  Fr comm_c, root_r_old, root_r_new;
  std::vector<UpdatePoseidonChallenge> challenges;  // challenge_count of the Poseidon shape
};
UpdatePoseidonWitness blank_update_poseidon(const UpdateShape& s);
// poseidon::EmptySectorUpdateCircuit::synthesize (s from update_poseidon_shape). Throws
// std::invalid_argument when the witness does not have the shape's sizes.
void synthesize_update_poseidon(ConstraintSystem& cs, const UpdateShape& s,
                                const UpdatePoseidonWitness& w);

// The gadgets both variants share (storage-proofs-update gadgets.rs): get_challenge_high_bits
// (the selected h's high bits of c, packed) and label_r_new (r_old + d_new * rho, two
// constraints).
Num update_challenge_high_bits(ConstraintSystem& cs, const UpdateShape& s,
                               std::span<const Boolean> c_bits,
                               std::span<const Boolean> h_select_bits);
Num update_label_r_new(ConstraintSystem& cs, const Num& r_old, const Num& d_new, const Num& rho);
// Poseidon_custom1(a, b) in the circuit (neptune's poseidon_hash, HASH_TYPE_GEN_RANDOMNESS).
Num update_gen_randomness(ConstraintSystem& cs, const Num& a, const Num& b);

// EmptySectorUpdateCircuit::synthesize. Throws std::invalid_argument when the witness does not
// have the shape's sizes (apex leaves, challenges, path lengths, the shared partition path).
void synthesize_update(ConstraintSystem& cs, const UpdateShape& s, const UpdateWitness& w);

}  // namespace zkpipe::filecoin_circuit
