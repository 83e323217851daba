// post/common/vanilla.h: the vanilla (out-of-circuit) proofs of window_post and winning_post, the
// request the circuit proves: the sectors (id, comm_r), and per proven sector comm_c,
// comm_r_last and per challenge the leaf of tree R with its path. Made from sealed sectors
// (make_vanilla_proofs); check_vanilla verifies all of it natively before any proving work,
// naming the sector, the challenge and what does not match.
// WindowPoSt: every listed sector is proven, in order; partition k proves sectors [k*S, (k+1)*S)
// (S = shape.sectors), a short last partition padded by repeating its last sector.
// WinningPoSt: `sectors` is the eligible set; the one proof is of the sector the randomness draws.
// Thread-safety: values; the functions are reentrant.
//
// Binary layout v1 (integers little-endian, field elements 32-byte canonical little-endian):
//   "ZKPVANIL" | u32 version = 1 | u32 type = 3 (window_post) or 4 (winning_post)
//   u64 nodes | u32 sectors per partition | u32 challenges per sector       (the shape, offset 16)
//   randomness (32 bytes)                                                             (offset 32)
//   u32 sector count N, then N x (u64 sector id | comm_r)                             (offset 64)
//   u32 proof count (window: N; winning: 1), then per proof:
//     u64 sector id | comm_c | comm_r_last | per challenge: u64 leaf index | leaf
//     | tree R path (7 per level, leaf level first)
//   The file ends exactly after the last proof.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "shape.h"
#include "zkpipe/crypto/fields.h"
#include "zkpipe/sector/seal.h"

namespace zkpipe::plugins {
struct JsonShape;  // zkpipe/sdk/json_shape.h
}  // namespace zkpipe::plugins

namespace zkpipe::post {

using crypto::Fr;

struct SectorRef {
  uint64_t id = 0;
  Fr comm_r;
};

struct ChallengeOpening {
  uint64_t leaf_index = 0;
  Fr leaf;
  std::vector<Fr> path;  // tree R
};

struct SectorProof {
  uint64_t sector_id = 0;
  Fr comm_c, comm_r_last;
  std::vector<ChallengeOpening> challenges;
};

struct VanillaProofs {
  Shape shape;
  Seed randomness{};
  std::vector<SectorRef> sectors;
  std::vector<SectorProof> proofs;
};

// A sealed sector and the id it is proven under.
struct SectorInput {
  uint64_t id = 0;
  const porep::SealedSector* sector = nullptr;
  std::string what;  // names it in messages (its file)
};

// The vanilla proofs of `sectors` (window: all of them; winning: the drawn one, the others only
// listed). INVALID_ARGUMENT for a sector whose nodes are not the shape's, an id listed twice, or
// a sector count the shape cannot take.
Result<VanillaProofs> make_vanilla_proofs(const Shape& shape, const Seed& randomness,
                                          std::span<const SectorInput> sectors);

// Everything a verifier of the vanilla proofs checks: the shape, the counts, distinct sector ids,
// which sectors are proven, comm_r = Poseidon(comm_c, comm_r_last), each challenge's leaf index
// against its derivation and each path against comm_r_last. `what` prefixes messages.
Status check_vanilla(const VanillaProofs& v, const std::string& what);

// Partitions of the request: window_partitions(shape, sectors) or 1.
uint32_t partitions(const VanillaProofs& v);

// The sector proven in slot `slot` of partition `partition` (window: padded with the last
// sector): an index into v.proofs.
size_t slot_proof(const VanillaProofs& v, uint32_t partition, uint32_t slot);

// The public inputs of a partition, without the constant one, as a verifier derives them from the
// randomness and the sectors' ids and comm_r (not read from the proofs): per slot comm_r, then
// each challenge's leaf index.
std::vector<Fr> public_inputs(const VanillaProofs& v, uint32_t partition);

// The comm_r of the sector proven by v.proofs[proof] (from v.sectors).
const Fr& proof_comm_r(const VanillaProofs& v, size_t proof);

std::vector<uint8_t> encode_vanilla(const VanillaProofs& v);
// Validates as it reads: magic, version, type (`kind`), shape, counts, sizes, canonical elements,
// leaf indices below nodes; errors name `what` and the byte offset. Does not run check_vanilla.
Result<VanillaProofs> decode_vanilla(Kind kind, std::span<const uint8_t> bytes,
                                     const std::string& what);

// A request: the binary layout, or JSON when its first non-blank byte is '{'
// (zkpipe/sdk/request.h: JSON syntax errors name the byte), held to request_shape(kind) while it
// streams (unknown keys and oversized arrays refused before any tree is built). Does not run
// check_vanilla.
// The JSON request's keys and bounds (zkpipe/sdk/json_shape.h): the most a request of `kind` can
// hold (kMaxPartitions x kMaxSectorsPerPartition sectors for window, kMaxWinningSet for winning).
const plugins::JsonShape& request_shape(Kind kind);
// The longest Merkle path a sector's opening can have (a tree of 2^63 nodes).
inline constexpr size_t kMaxPathLength = 7 * (63 / 3);

Result<VanillaProofs> decode_request(Kind kind, std::span<const uint8_t> bytes,
                                     const std::string& what);

nlohmann::json vanilla_to_json(const VanillaProofs& v);
// Errors name `what` and the JSON path.
Result<VanillaProofs> vanilla_from_json(Kind kind, const nlohmann::json& j,
                                        const std::string& what);

}  // namespace zkpipe::post
