// zkpipe/filecoin_circuit/vanilla_update.h: Filecoin's SnapDeals vanilla partition proof
// (storage-proofs-update PartitionProof, the bytes generate_partition_proofs returns and
// generate_empty_sector_update_proof_with_vanilla takes), bincode (bincode.h):
//   comm_c 32 | apex_leafs: u64 count, 32 each | challenge_proofs: u64 count, per challenge
//   proof_r_old, proof_d_new, proof_r_new (MerkleProofs: tree_r Poseidon, tree_d SHA-256 binary).
// The request of the filecoin_snapdeals proof type (JSON):
//   {"registered_proof": "StackedDrg2KiBV1", "comm_r_old": ..., "comm_d_new": ...,
//    "comm_r_new": ..., "vanilla_proofs": ["<a partition's proof: hex or base64>", ...]}
// Checked natively as rust-fil-proofs' vanilla verify does (challenges from comm_r_new, every
// path's shape, index and root, comm_r_old/new = Poseidon(comm_c, root), the apex leaves under
// comm_d_new, label_r_new = label_r_old + label_d_new * rho) before any circuit is built, and
// turned into the circuit's witness (update.h).
// The Poseidon variant ("variant": "poseidon" in the request; storage-proofs-update
// src/poseidon/, whose vanilla prover rust-fil-proofs leaves unimplemented) has one proof,
// poseidon::PartitionProof in bincode:
//   comm_c 32 | challenge_proofs: u64 count, per challenge proof_r_old, proof_d_new, proof_r_new
//   (all three Poseidon MerkleProofs of tree_r's shape; tree_d_new's root is comm_d_new),
// checked natively the same way over Challenges::new_poseidon.
// Library zkpipe::filecoin_circuit.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "zkpipe/filecoin/post_inputs.h"
#include "zkpipe/filecoin_circuit/update.h"
#include "zkpipe/filecoin_circuit/vanilla_post.h"

namespace zkpipe::filecoin_circuit {

struct UpdateChallengeProof {
  InclusionProof r_old, d_new, r_new;
};

struct UpdatePartitionProof {
  Domain comm_c{};
  std::vector<Domain> apex_leafs;  // none in the Poseidon variant
  std::vector<UpdateChallengeProof> challenges;
};

// INVALID_ARGUMENT naming `what`, the field and the byte offset. `poseidon`: the Poseidon
// variant's layout (no apex leaves).
Result<UpdatePartitionProof> decode_update_proof(std::span<const uint8_t> bytes,
                                                 const std::string& what, bool poseidon = false);
std::vector<uint8_t> encode_update_proof(const UpdatePartitionProof& p, bool poseidon = false);

// Checks partition k's proof natively against the description (h = the size's default, as
// filecoin-proofs uses) and returns the circuit's witness. INVALID_ARGUMENT naming
// "<what> partition <k> challenge <i> (node <c>)" and what is wrong.
Result<UpdateWitness> update_witness(const filecoin::UpdateDescription& d,
                                     const UpdatePartitionProof& p, uint32_t partition,
                                     const std::string& what);

// The Poseidon variant's check (d.poseidon): its one proof against the description, the
// circuit's witness. INVALID_ARGUMENT naming "<what> challenge <i> (node <c>)".
Result<UpdatePoseidonWitness> update_poseidon_witness(const filecoin::UpdateDescription& d,
                                                      const UpdatePartitionProof& p,
                                                      const std::string& what);

struct UpdateRequest {
  std::string registered_proof;
  filecoin::UpdateDescription description;   // description.poseidon: the Poseidon variant
  std::vector<UpdatePartitionProof> proofs;  // one a partition (Poseidon: one)
  std::vector<UpdateWitness> witnesses;      // one a partition (Poseidon: none)
  std::vector<UpdatePoseidonWitness> poseidon_witnesses;  // Poseidon: one
  std::vector<std::vector<Fr>> inputs;                    // as the verifier derives them
};

Result<UpdateRequest> parse_update_request(std::span<const uint8_t> bytes, const std::string& what);
std::string encode_update_request(const UpdateRequest& r);

// A request over a sector sealed here (zero data, then random new data encoded into it): update
// proofs of at most 8MiB sectors, of either variant.
Result<UpdateRequest> sample_update_request(const std::string& registered_proof, uint64_t seed,
                                            bool poseidon = false);

}  // namespace zkpipe::filecoin_circuit
