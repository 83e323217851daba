// zkpipe/filecoin/post_inputs.h: the public inputs of Filecoin's Window and Winning PoSt proofs
// (rust-fil-proofs' FallbackPoStCompound), derived as the verifier derives them:
//   the randomness has its two top bits cleared (as Lotus and the FVM do before verifying);
//   sectors in ascending sector number; partition k holds sector_count of them (Window: 2 for
//   the small sizes, 2349 for 32GiB, 2300 for 64GiB; Winning: the one sector, 66 times);
//   each sector contributes comm_r and its challenged leaves, leaf = (SHA-256(randomness ||
//   sector_id u64 LE || c u64 LE)'s first 8 bytes, little-endian) mod nodes, with
//   c = (global sector position) * challenges + n under V1_0_0 and c = n under V1_2_0;
//   a short last partition repeats its last sector's block.
// Registered proofs by filecoin-proofs-api's names (StackedDrgWinning2KiBV1,
// StackedDrgWindow2KiBV1, StackedDrgWindow2KiBV1_2); Lotus/go-state-types' StackedDrgWindow*V1_1 is
// the same proof as the API's V1_2 and is accepted as its alias. Library zkpipe::filecoin.
// Thread-safety: pure functions.
#pragma once

#include <string_view>
#include <vector>

#include "zkpipe/filecoin/porep_inputs.h"

namespace zkpipe::filecoin {

struct PostConfig {
  bool winning = false;
  uint64_t sector_size = 0;
  ApiVersion api_version = ApiVersion::kV1_0_0;
  uint32_t challenges = 0;    // per sector: Window 10, Winning 66
  uint32_t sector_count = 0;  // per partition (Window); Winning: 1
};

// INVALID_ARGUMENT naming the known names otherwise.
Result<PostConfig> registered_post(std::string_view name);

struct PostSector {
  uint64_t sector_id = 0;
  Domain comm_r{};
};

struct PostDescription {
  PostConfig config;
  Bytes32 randomness{};
  Bytes32 prover_id{};
  std::vector<PostSector> sectors;
};

// The challenged leaf of one sector (randomness as given: clear its top bits first).
uint64_t post_leaf_challenge(const Bytes32& randomness, uint64_t sector_id, uint64_t index,
                             uint64_t nodes);

// Winning PoSt's choice among a sector set of `set_size` sectors: (SHA-256(prover_id ||
// randomness || n u64 LE)'s first 8 bytes, LE) mod set_size for n = 0 (randomness top bits
// cleared here).
uint64_t winning_post_sector_index(const Bytes32& prover_id, const Bytes32& randomness,
                                   uint64_t set_size);

// One input vector per partition. INVALID_ARGUMENT for no sectors, a repeated sector id, a
// comm_r that is zero or not canonical (naming sectors[i].comm_r), or a Winning PoSt of other
// than one sector.
Result<std::vector<std::vector<Fr>>> post_public_inputs(const PostDescription& d);

// ---- SnapDeals (storage-proofs-update) ---------------------------------------------------------
// Per partition k: [k | h_select << log2(partitions), comm_r_old, comm_d_new, comm_r_new] with
// partitions 1 (up to 2^8 nodes), 2 (2^10), 4 (2^19) or 16, h_select 1 (up to 2^10 nodes) or 8.
// The Poseidon variant (src/poseidon/: tree_d a Poseidon tree, one partition): one vector
// [h_select, comm_r_old, comm_d_new, comm_r_new].
struct UpdateDescription {
  uint64_t sector_size = 0;
  Domain comm_r_old{}, comm_d_new{}, comm_r_new{};
  bool poseidon = false;  // DESC "variant": "poseidon" ("sha256", the default, otherwise)
};

// filecoin-proofs-api's update proofs StackedDrg2KiBV1 ... StackedDrg64GiBV1 (ids 0..4, V1_1_0):
// the sector size.
Result<uint64_t> registered_update(std::string_view name);
uint32_t update_partitions(uint64_t nodes);
Result<std::vector<std::vector<Fr>>> update_public_inputs(const UpdateDescription& d);

}  // namespace zkpipe::filecoin
