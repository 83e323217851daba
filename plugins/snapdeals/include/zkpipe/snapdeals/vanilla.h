// zkpipe/snapdeals/vanilla.h: vanilla proofs of a SnapDeals-style update, the input the snapdeals
// circuit proves: per partition and challenge, the new data (tree D), the sector key (old tree R)
// and the new replica (new tree R) at the challenged node. A native check verifies all of it
// before any proving work, naming the partition and challenge.
// Binary layout v1 (integers little-endian, field elements 32-byte canonical little-endian):
//   "ZKPVANIL" | u32 version = 1 | u32 proof type = 2 (snapdeals)
//   u64 nodes | u32 h | u32 challenges | u32 partitions                     (the shape)
//   comm_r_old | comm_d_new | comm_r_new | comm_c | comm_r_last_old | comm_r_last_new
//   u32 partition count, then per partition: u32 partition index, then per challenge:
//     u64 challenge | data | data path (depth) | old replica | old path (7·depth/3)
//     | new replica | new path (7·depth/3)
//   The file ends exactly after the last partition.
// Thread-safety: values; the functions are reentrant.
#pragma once

#include <span>

#include <nlohmann/json_fwd.hpp>

#include "zkpipe/snapdeals/update.h"

namespace zkpipe::plugins {
struct JsonShape;  // zkpipe/sdk/json_shape.h
}  // namespace zkpipe::plugins

namespace zkpipe::snapdeals {

inline constexpr uint32_t kVanillaTypeSnapdeals = 2;

struct ChallengeProof {
  uint64_t challenge = 0;
  Fr data;
  std::vector<Fr> data_path;
  Fr old_replica;
  std::vector<Fr> old_path;
  Fr new_replica;
  std::vector<Fr> new_path;
};

struct PartitionProof {
  uint32_t partition = 0;
  std::vector<ChallengeProof> challenges;
};

struct VanillaProofs {
  Shape shape;
  Commitments comms;
  std::vector<PartitionProof> partitions;
};

VanillaProofs make_vanilla_proofs(const UpdatedSector& u, std::span<const uint32_t> partitions,
                                  unsigned threads = 0);
Status check_vanilla(const VanillaProofs& v, const std::string& what, unsigned threads = 0);
// Without the one: comm_r_old, comm_d_new, comm_r_new, then each challenge, as derived.
std::vector<Fr> public_inputs(const Shape& shape, const Commitments& comms, uint32_t partition);

// The JSON request's keys and bounds (zkpipe/sdk/json_shape.h), the largest shape validate_shape
// allows: decode_request holds a request to it while it streams.
const plugins::JsonShape& request_shape();

std::vector<uint8_t> encode_vanilla(const VanillaProofs& v);
Result<VanillaProofs> decode_vanilla(std::span<const uint8_t> bytes, const std::string& what);
nlohmann::json vanilla_to_json(const VanillaProofs& v);
Result<VanillaProofs> vanilla_from_json(const nlohmann::json& j, const std::string& what);

}  // namespace zkpipe::snapdeals
