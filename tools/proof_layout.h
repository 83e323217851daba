// tools/proof_layout.h: the sidecar that states a proof file's layout. A proof file (`zkpipe prove
// --out P`, `zkpipe-tool prove-once --out DIR` -> DIR/proofs.bin) is the request's partitions'
// Groth16 proofs, 192 bytes each, in the request's order, and a request may hold any subset of a
// sector's partitions; P.json says which: {"proof_type", "circuit_id", "proof_bytes": 192,
// "partitions": [sector index of proof 0, of proof 1, ...]}.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "zkpipe/groth16/keys.h"

namespace zkpipe::tool {

inline constexpr std::string_view kProofLayoutSuffix = ".json";

inline std::string proof_layout_json(std::string_view proof_type, std::string_view circuit_id,
                                     std::span<const uint32_t> partitions) {
  nlohmann::json j = {
      {"proof_type", proof_type},
      {"circuit_id", circuit_id},
      {"proof_bytes", groth16::kProofBytes},
      {"partitions", nlohmann::json(std::vector<uint32_t>(partitions.begin(), partitions.end()))}};
  return j.dump(2) + "\n";
}

}  // namespace zkpipe::tool
