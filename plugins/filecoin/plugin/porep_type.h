// plugins/filecoin/plugin/porep_type.h: the filecoin_porep proof type's parts: the job over
// Filecoin's PoRep circuit (zkpipe::filecoin_circuit), parse (porep_request.h, checked
// natively), sample requests (sectors sealed here with Filecoin's SDR) and the command line
// (`zkpipe-tool proof-type filecoin_porep info|check|sample`).
// Thread-safety: reentrant; a parsed job is immutable.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "zkpipe/filecoin/porep_config.h"
#include "zkpipe/sdk/proof_type_plugin.h"

namespace zkpipe::filecoin_circuit {

// "filecoin-porep-2KiB": one circuit a sector size (the API versions change the graph, whose
// parents are public inputs, and the challenges, not the circuit).
std::string porep_circuit_id(const filecoin::PorepConfig& c);
// Constraints, inputs and aux of one partition (counted once per circuit id).
Result<plugins::CircuitCounts> porep_counts(const filecoin::PorepConfig& c);

Result<std::unique_ptr<plugins::ProofJob>> parse_porep_job(std::span<const uint8_t> bytes,
                                                           const std::string& what);
Result<std::vector<uint8_t>> sample_porep(const zkp_preset& preset, uint64_t seed);
// A preset's circuit without a request (ABI 1.7): the counts and terms of a blank partition.
Result<plugins::PresetCircuit> porep_preset_circuit(const zkp_preset& preset, bool count);
// The command line; args[0] is the type's name. Exit codes: 0 yes/done, 1 no (a constraint
// fails) or failure, 2 bad usage or input.
int run_porep_command(std::span<const std::string> args);

}  // namespace zkpipe::filecoin_circuit
