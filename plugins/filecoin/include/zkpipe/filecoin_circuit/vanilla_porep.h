// zkpipe/filecoin_circuit/vanilla_porep.h: Filecoin's C1 output (filecoin-proofs-api
// SealCommitPhase1Output), the input of seal_commit_phase2, in the JSON filecoin-ffi writes
// (serde_json; curio's lib/proof/porep_vproof_types.go mirrors the same names), and in curio's
// binary form (below):
//   {"registered_proof": "StackedDrg2KiBV1_1",
//    "vanilla_proofs": {"StackedDrg2KiBV1": [[Proof, ...], ...]},   (per partition, per challenge)
//    "comm_r": [32 numbers], "comm_d": [...], "replica_id": [...], "seed": [...], "ticket": [...]}
//   Proof: {"comm_d_proofs": MerkleProof, "comm_r_last_proof": MerkleProof,
//           "replica_column_proofs": {"c_x": ColumnProof, "drg_parents": [6], "exp_parents": [8]},
//           "labeling_proofs": [{"parents": [37 domains], "layer_index", "node"}, ...],
//           "encoding_proof": {"parents", "layer_index", "node"}}
//   ColumnProof: {"column": {"index", "rows": [layers domains], "_h": null},
//                 "inclusion_proof": MerkleProof}
//   MerkleProof: {"data": {"Single": {"root", "leaf", "path": {"path": [{"hashes", "index"}]}}}}
//                or "Sub" {"base_proof", "sub_proof", "root", "leaf"} or "Top" (+ "top_proof").
// The vanilla proofs are checked natively (challenges derived from replica_id and seed, every
// path's shape, index and root, the columns' hashes and parents, every label re-computed, the
// encoding) before a circuit is built, and turned into the circuit's witness (porep.h).
// Library zkpipe::filecoin_circuit. Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "zkpipe/filecoin/porep_inputs.h"
#include "zkpipe/filecoin_circuit/porep.h"
#include "zkpipe/filecoin_circuit/vanilla_post.h"

namespace zkpipe::filecoin_circuit {

struct ColumnProof {
  uint32_t index = 0;
  std::vector<Domain> rows;  // layer 1 first
  InclusionProof inclusion;  // in tree_c
};

struct LabelingProof {
  std::vector<Domain> parents;  // the 37 labels hashed
  uint32_t layer_index = 0;
  uint64_t node = 0;
};

struct SealVanillaProof {
  InclusionProof comm_d;       // tree_d (SHA-256, binary)
  InclusionProof comm_r_last;  // tree_r_last
  ColumnProof c_x;
  std::vector<ColumnProof> drg_parents, exp_parents;
  std::vector<LabelingProof> labeling;  // layers 1..L
  LabelingProof encoding;
};

struct Commit1Output {
  std::string registered_proof;  // filecoin-proofs-api's name
  filecoin::PorepConfig config;
  std::vector<std::vector<SealVanillaProof>> vanilla_proofs;  // [partition][challenge]
  Domain comm_r{}, comm_d{}, replica_id{};
  filecoin::Bytes32 seed{}, ticket{};
};

// The vanilla_proofs key for a sector size ("StackedDrg2KiBV1": the enum has V1 names only).
std::string vanilla_seal_key(uint64_t sector_size);

// INVALID_ARGUMENT naming `what` and the JSON path of the first bad field (missing, wrong type,
// a number out of range, a domain that is not 32 bytes or not a canonical Fr, an unknown
// registered proof, a proof for another sector size).
Result<Commit1Output> parse_commit1_output(std::span<const uint8_t> json, const std::string& what);
// The same of a tree already parsed (a request that wraps the C1 output: one tree, not two).
Result<Commit1Output> parse_commit1_json(const nlohmann::json& j, const std::string& what);
std::string encode_commit1_output(const Commit1Output& c);

// curio's binary form of the same (lib/proof/porep_vproof_bin_{decode,encode}.go; unsigned
// LEB128 varints as Go's binary.Uvarint, fixed integers little-endian, domains 32 raw bytes):
// comm_d, comm_r, registered_proof (varint length, bytes), replica_id, seed, ticket, then the
// vanilla proofs: a varint count of kinds (one), its key (a string), a varint count of partitions,
// per partition a varint count of challenges, per challenge comm_d_proofs and comm_r_last_proof
// (a MerkleProof: varint kind 0 Single (root, leaf, path), 1 Sub (base and sub paths, root, leaf)
// or 2 Top (base, sub and top paths, root, leaf); a path: varint elements, per element a varint
// count of hashes, the hashes, a varint index), replica_column_proofs (c_x, then varint-counted
// drg_parents and exp_parents; a column proof: index u32, varint rows, the rows, its MerkleProof),
// varint-counted labeling_proofs and the encoding_proof (varint parents, the parents,
// layer_index u32, node u64). Errors name `what`, the field path and the byte offset; the same
// checks as the JSON form (a canonical Fr where a domain is one, 1..35 siblings, the one kind for
// the registered proof's sector size), and no bytes after the last proof.
Result<Commit1Output> parse_commit1_binary(std::span<const uint8_t> bytes, const std::string& what);
std::vector<uint8_t> encode_commit1_binary(const Commit1Output& c);

// Checks partition k's vanilla proofs natively and returns its circuit witness.
// INVALID_ARGUMENT naming "<what> partition <k> challenge <i> (node <c>)" and what is wrong.
Result<PorepWitness> porep_witness(const Commit1Output& c, uint32_t partition,
                                   const std::string& what);

// A C1 output over a sector sealed here (random data from `seed`), as filecoin-ffi would write
// it: for registered proofs of at most 8MiB. Also returns prover_id and sector_id.
struct SampleCommit1 {
  Commit1Output c1;
  filecoin::Bytes32 prover_id{};
  uint64_t sector_id = 0;
};
Result<SampleCommit1> sample_commit1_output(const std::string& registered_proof, uint64_t seed);

}  // namespace zkpipe::filecoin_circuit
