// zkpipe/filecoin_circuit/porep.h: Filecoin's PoRep circuit (storage-proofs-porep
// stacked/circuit: StackedCircuit, params.rs Proof::synthesize, create_label.rs, column.rs,
// hash.rs; storage-proofs-core gadgets uint64.rs, encode.rs, por.rs) synthesized in bellperson's
// order. Per partition:
//   replica_id (an input, then its 255 bits, byte-reversed), comm_d and comm_r (inputs),
//   comm_r_last and comm_c (private), Poseidon(comm_c, comm_r_last) = comm_r;
// per challenge:
//   the data leaf and its inclusion in tree_d (SHA-256, binary);
//   the 6 DRG and 8 expander parents' columns (one label per layer), each hashed (Poseidon of
//   the layer count: 2 or 11) and included in tree_c;
//   the challenge's 64 bits (one input);
//   per layer, the label re-computed: SHA-256 of replica_id, the layer (u32), the node (u64),
//   and 37 parent labels (layer 1: the 6 DRG parents' labels of that layer six times and the
//   first once more; later layers: the 6 DRG parents of the layer and the 8 expander parents
//   of the layer before, twice, then the first 9), truncated to 254 bits;
//   the last label + data leaf = the replica node, included in tree_r_last;
//   the challenge's column of labels hashed and included in tree_c.
// Every inclusion (PoRCircuit, private root) packs its path bits into one public input.
// Library zkpipe::filecoin_circuit. Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <vector>

#include "zkpipe/filecoin_circuit/por.h"

namespace zkpipe::filecoin_circuit {

// A parent's column of labels (layer 1 first) and its opening in tree_c (the opening's leaf,
// the column hash, is computed in circuit; opening.leaf is not used).
struct ColumnOpening {
  std::vector<Fr> rows;
  MerkleOpening path;
};

struct PorepChallengeWitness {
  uint64_t challenge = 0;
  Fr data_leaf;
  MerkleOpening comm_d_path;               // tree_d: SHA-256, arity 2
  MerkleOpening comm_r_last_path;          // tree_r_last: Poseidon, the sector's shape
  MerkleOpening comm_c_path;               // tree_c: Poseidon, the sector's shape
  std::vector<ColumnOpening> drg_parents;  // 6
  std::vector<ColumnOpening> exp_parents;  // 8
};

// A partition: its public values and its challenges' openings.
struct PorepWitness {
  Fr replica_id, comm_d, comm_r, comm_r_last, comm_c;
  std::vector<PorepChallengeWitness> challenges;
};

// An all-zero witness of the right shape: `nodes` leaves, tree_c/tree_r_last arities `a`,
// `layers` labels a column, `challenges` challenges (challenge 1 each).
PorepWitness blank_porep(uint64_t nodes, TreeArities a, uint32_t layers, uint32_t challenges);

// StackedCircuit::synthesize. Throws std::invalid_argument when a challenge has other than 6
// DRG and 8 expander parents, columns of different lengths, or a column of other than 2 or 11
// labels (hash_single_column's arities).
void synthesize_porep(ConstraintSystem& cs, const PorepWitness& w);

}  // namespace zkpipe::filecoin_circuit
