// zkpipe/porep/vanilla.h: the vanilla (out-of-circuit) proofs of a sealed sector, the input the
// porep circuit proves: per partition and challenge, the data and replica openings, the
// challenged node's column and every parent's column with their tree paths. A native check
// verifies all of it before any proving work, naming the partition, challenge and layer.
// Formats (vanilla_format.cpp): one versioned binary layout (below) and JSON for small ones.
// Thread-safety: values; the functions are reentrant.
//
// Binary layout v1 (integers little-endian, field elements 32-byte canonical little-endian):
//   "ZKPVANIL" | u32 version = 1 | u32 proof type = 1 (porep)
//   u64 nodes | u32 layers | u32 base_degree | u32 expansion_degree | u32 challenges
//   | u32 partitions                                                  (the shape)
//   challenge seed (32 bytes) | replica id | comm_d | comm_c | comm_r_last | comm_r
//   u32 partition count, then per partition: u32 partition index, then per challenge:
//     u64 challenge | data | data path (depth_D elements) | replica | replica path (7·depth_R)
//     | column | parent columns (shape.parents(), DRG first)
//   where a column is: u64 node | L labels | tree C path (7·depth_C).
//   The file ends exactly after the last partition.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "zkpipe/sector/seal.h"

namespace zkpipe::plugins {
struct JsonShape;  // zkpipe/sdk/json_shape.h
}  // namespace zkpipe::plugins

namespace zkpipe::porep {

inline constexpr uint32_t kVanillaTypePorep = 1;

struct ColumnOpening {
  uint64_t node = 0;
  std::vector<Fr> labels;  // layers 1..L
  std::vector<Fr> path;    // tree C
};

struct ChallengeProof {
  uint64_t challenge = 0;
  Fr data;
  std::vector<Fr> data_path;  // tree D
  Fr replica;
  std::vector<Fr> replica_path;  // tree R
  ColumnOpening column;
  std::vector<ColumnOpening> parents;  // DRG parents, then expander parents
};

struct PartitionProof {
  uint32_t partition = 0;
  std::vector<ChallengeProof> challenges;
};

struct VanillaProofs {
  Shape shape;
  Seed challenge_seed{};
  Fr replica_id;
  Commitments comms;
  std::vector<PartitionProof> partitions;
};

// Vanilla proofs of the given partitions (each < shape.partitions).
VanillaProofs make_vanilla_proofs(const SealedSector& sector, const Seed& challenge_seed,
                                  std::span<const uint32_t> partitions, unsigned threads = 0);

// Everything a verifier of the vanilla proofs checks: shape, sizes, challenge derivation, parent
// indices, every path, every label, the encoding and comm_r. `what` prefixes messages.
Status check_vanilla(const VanillaProofs& v, const std::string& what, unsigned threads = 0);

// The public inputs of a partition, without the constant one: replica id, comm_d, comm_r, then
// per challenge its index and its parents' indices, all derived (not read from a proof), as a
// verifier computes them.
std::vector<Fr> public_inputs(const Shape& shape, const Fr& replica_id, const Commitments& comms,
                              const Seed& challenge_seed, uint32_t partition);

std::vector<uint8_t> encode_vanilla(const VanillaProofs& v);
// Validates as it reads: magic, version, type, shape, sizes, canonical elements, partition
// indices; errors name `what` and the byte offset. Does not run check_vanilla.
Result<VanillaProofs> decode_vanilla(std::span<const uint8_t> bytes, const std::string& what);

// The JSON request's keys and bounds (zkpipe/sdk/json_shape.h), the largest shape validate_shape
// allows: decode_request holds a request to it while it streams.
const plugins::JsonShape& request_shape();

nlohmann::json vanilla_to_json(const VanillaProofs& v);
Result<VanillaProofs> vanilla_from_json(const nlohmann::json& j, const std::string& what);

}  // namespace zkpipe::porep
