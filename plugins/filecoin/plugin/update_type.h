// plugins/filecoin/plugin/update_type.h: the filecoin_snapdeals proof type's parts: the job over
// Filecoin's SnapDeals circuit (zkpipe::filecoin_circuit update.h), parse (vanilla_update.h,
// checked natively), sample requests (a CC sector sealed here, new data encoded into it) and the
// command line (`zkpipe-tool proof-type filecoin_snapdeals info|check|sample`).
// Thread-safety: reentrant; a parsed job is immutable.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "zkpipe/sdk/proof_type_plugin.h"

namespace zkpipe::filecoin_circuit {

// A preset: a registered update proof ("StackedDrg2KiBV1": the SHA-256 variant, which Lotus
// proves) or the same with "-Poseidon" (the Poseidon variant). INVALID_ARGUMENT otherwise.
struct UpdatePreset {
  std::string registered_proof;
  uint64_t sector_size = 0;
  bool poseidon = false;
};
Result<UpdatePreset> update_preset(const std::string& name);

// "filecoin-snapdeals-2KiB", "filecoin-snapdeals-poseidon-2KiB": one circuit a variant and size.
std::string update_circuit_id(uint64_t sector_size, bool poseidon = false);
Result<plugins::CircuitCounts> update_counts(uint64_t sector_size, bool poseidon = false);

Result<std::unique_ptr<plugins::ProofJob>> parse_update_job(std::span<const uint8_t> bytes,
                                                            const std::string& what);
Result<std::vector<uint8_t>> sample_update(const zkp_preset& preset, uint64_t seed);
// A preset's circuit without a request (ABI 1.7): the counts and terms of a blank partition.
Result<plugins::PresetCircuit> update_preset_circuit(const zkp_preset& preset, bool count);
// The command line; args[0] is the type's name. Exit codes: 0 yes/done, 1 no (a constraint
// fails) or failure, 2 bad usage or input.
int run_update_command(std::span<const std::string> args);

}  // namespace zkpipe::filecoin_circuit
