// plugins/filecoin/plugin/post_type.h: what the filecoin_window_post and filecoin_winning_post
// proof types share: the job over Filecoin's fallback PoSt circuit (zkpipe::filecoin_circuit),
// parse (the request of post_request.h, checked natively), sample requests (sectors sealed here
// with Filecoin's SDR), and the command line (`zkpipe-tool proof-type T info|check|sample`).
// Thread-safety: reentrant; a parsed job is immutable.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "zkpipe/filecoin/post_inputs.h"
#include "zkpipe/sdk/proof_type_plugin.h"

namespace zkpipe::filecoin_circuit {

// "filecoin-window-post-2KiB" / "filecoin-winning-post-32GiB": one circuit per kind and size
// (the API versions change the challenges, not the circuit).
std::string post_circuit_id(const filecoin::PostConfig& c);
// Constraints, inputs and aux of one partition (counted once per circuit id).
plugins::CircuitCounts post_counts(const filecoin::PostConfig& c);

Result<std::unique_ptr<plugins::ProofJob>> parse_post_job(bool winning,
                                                          std::span<const uint8_t> bytes,
                                                          const std::string& what);
// The sample request of a preset (named after its registered proof).
Result<std::vector<uint8_t>> sample_post(bool winning, const zkp_preset& preset, uint64_t seed);
// A preset's circuit without a request (ABI 1.7): the counts and terms of a blank partition.
Result<plugins::PresetCircuit> post_preset_circuit(const zkp_preset& preset, bool count);
// The command line; args[0] is the type's name. Exit codes: 0 yes/done, 1 no (a constraint
// fails) or failure, 2 bad usage or input.
int run_post_command(bool winning, std::span<const std::string> args);

}  // namespace zkpipe::filecoin_circuit
