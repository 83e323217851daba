// zkpipe/filecoin_circuit/vanilla_post.h: Filecoin's vanilla PoSt proof of one sector
// (storage-proofs-post FallbackPoStSectorProof) in the bytes generate_single_vanilla_proof
// returns and Lotus/curio pass around (bincode, fixed-width little-endian: curio's
// lib/proof/post_vproof_bin_decode.go reads the same layout):
//   sector_id u64 | comm_r 32 | sectors u64 (1) | per sector: inclusion proofs u64 |
//   per proof: kind u32 (0 single, 1 sub, 2 top) then, for single: root, leaf, path; for sub:
//   base path, sub path, root, leaf; for top: base, sub, top paths, root, leaf |
//   comm_c 32 | comm_r_last 32;  a path: elements u64, per element: hashes u64, hashes x 32,
//   index u64 (the node's position among its parent's children).
// Checked natively against the public description before any circuit is built, and turned
// into the circuit's witness (post.h). Library zkpipe::filecoin_circuit.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "zkpipe/filecoin/post_inputs.h"
#include "zkpipe/filecoin_circuit/post.h"

namespace zkpipe::filecoin_circuit {

using filecoin::Domain;

struct InclusionProof {
  Domain root{}, leaf{};
  std::vector<std::vector<PathElement>> paths;  // base, then sub and top where the kind has them
  std::vector<std::vector<Domain>> hashes;      // the same shape, the siblings as bytes
};

struct SectorVanillaProof {
  uint64_t sector_id = 0;
  Domain comm_r{}, comm_c{}, comm_r_last{};
  std::vector<InclusionProof> inclusion_proofs;
};

// Decodes one sector's proof; INVALID_ARGUMENT naming `what`, the field and the byte offset
// (truncated, an unknown kind, counts beyond what the bytes hold, trailing bytes, a domain that
// is not a canonical Fr).
Result<SectorVanillaProof> decode_sector_proof(std::span<const uint8_t> bytes,
                                               const std::string& what);
std::vector<uint8_t> encode_sector_proof(const SectorVanillaProof& p);

// The leaf index an inclusion proof opens (its positions, least significant level first).
uint64_t opened_leaf(const InclusionProof& p, filecoin_circuit::TreeArities a);

// The sectors of partition k in circuit order (ascending sector id, the last one repeated to
// fill a short partition), as indices into d.sectors.
std::vector<size_t> partition_slots(const filecoin::PostDescription& d, uint32_t partition);
uint32_t post_partitions(const filecoin::PostDescription& d);

// Checks proofs[i] (the proof of d.sectors[i]) natively for partition k: its sector id and
// comm_r are the description's, comm_r = Poseidon(comm_c, comm_r_last), it opens exactly the
// leaves the description challenges, in order, each path has the sector size's shape and leads
// to comm_r_last (and to the root it states). Then returns the circuit's witness.
// INVALID_ARGUMENT naming "<what> sector <id> challenge <n>" and what is wrong.
Result<std::vector<PostSectorWitness>> post_witness(const filecoin::PostDescription& d,
                                                    std::span<const SectorVanillaProof> proofs,
                                                    uint32_t partition, const std::string& what);

}  // namespace zkpipe::filecoin_circuit
