// zkpipe/filecoin/verify.h: verifying a Filecoin proof as a Filecoin node does: the public inputs
// derived from the proof's description (description.h), then every partition's Groth16 proof
// under the verifying key (one batch: a random linear combination, soundness error 2^-128).
// Library zkpipe::filecoin. Thread-safety: pure functions.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "zkpipe/filecoin/description.h"
#include "zkpipe/groth16/keys.h"

namespace zkpipe::filecoin {

// The public inputs of every partition the description names (PoRep, Window/Winning PoSt or
// SnapDeals). INVALID_ARGUMENT naming the field for a bad description.
Result<std::vector<std::vector<Fr>>> public_inputs(std::string_view desc_json,
                                                   const std::string& what);

// OK(true) valid, OK(false) invalid. INVALID_ARGUMENT when the description is bad, the proof
// bytes are not its partitions' proofs (length, points), or the key takes another number of
// inputs than the description yields (a key for another proof or sector size).
Result<bool> verify_proof(const groth16::VerifyingKey& vk, std::span<const uint8_t> proof,
                          std::string_view desc_json, const std::string& what);

// The same for inputs already derived.
Result<bool> verify_partitions(const groth16::VerifyingKey& vk, std::span<const uint8_t> proof,
                               std::span<const std::vector<Fr>> inputs);

}  // namespace zkpipe::filecoin
