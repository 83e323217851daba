// The `filecoin_snapdeals` proof-type plugin: Filecoin's SnapDeals (storage-proofs-update's
// EmptySectorUpdateCircuit in bellperson's order, zkpipe::filecoin_circuit). A request is what
// generate_empty_sector_update_proof_with_vanilla takes (vanilla_update.h): the registered
// update proof, comm_r_old, comm_d_new, comm_r_new and one vanilla proof a partition. A preset
// per registered update proof; samples seal a CC sector (2KiB, 8MiB) here and encode new data.
// The Poseidon variant of the circuit (src/poseidon/: tree_d a Poseidon tree, one proof of all
// challenges; Filecoin publishes its files for 32GiB and 64GiB) has the presets
// <registered proof>-Poseidon and requests with "variant": "poseidon".
// Commands: `zkpipe-tool proof-type filecoin_snapdeals info|check|sample`.
#include "update_type.h"
#include "zkpipe/filecoin/post_inputs.h"
#include "zkpipe/filecoin_circuit/vanilla_update.h"

namespace {

using namespace zkpipe;

constexpr const char* kName = "filecoin_snapdeals";
constexpr plugins::Schedule kSchedule{};  // the config's default priority

constexpr zkp_preset kPresets[] = {
    {"StackedDrg2KiBV1", "2 KiB sector, 10 challenges, 1 partition", 1, 0},
    {"StackedDrg8MiBV1", "8 MiB sector, 10 challenges, 4 partitions", 4, 0},
    {"StackedDrg512MiBV1", "512 MiB sector, 86 challenges x 16 (no sample here)", 16, 0},
    {"StackedDrg32GiBV1", "32 GiB sector, 86 challenges x 16 (no sample here)", 16, 0},
    {"StackedDrg64GiBV1", "64 GiB sector, 86 challenges x 16 (no sample here)", 16, 0},
    {"StackedDrg2KiBV1-Poseidon", "Poseidon variant: 2 KiB sector, 10 challenges", 1, 0},
    {"StackedDrg8MiBV1-Poseidon", "Poseidon variant: 8 MiB sector, 40 challenges", 1, 0},
    {"StackedDrg512MiBV1-Poseidon", "Poseidon variant: 512 MiB, 1376 challenges (no sample)", 1, 0},
    {"StackedDrg32GiBV1-Poseidon", "Poseidon variant: 32 GiB, 1376 challenges (no sample)", 1, 0},
    {"StackedDrg64GiBV1-Poseidon", "Poseidon variant: 64 GiB, 1376 challenges (no sample)", 1, 0},
};

Result<std::unique_ptr<plugins::ProofJob>> parse(std::span<const uint8_t> bytes,
                                                 const std::string& what) {
  return filecoin_circuit::parse_update_job(bytes, what);
}

Result<std::vector<uint8_t>> sample(const zkp_preset& preset, uint64_t seed) {
  return filecoin_circuit::sample_update(preset, seed);
}

// A CC 2KiB sector sealed with SDR, new data encoded, its request parsed: every vanilla proof
// checked natively (paths, apex leaves, the encoding with rho) and the job's public inputs those
// a verifier derives. No synthesis at load (1.7M constraints); the tests check the circuit.
Status run_self_test() {
  ZKP_RETURN_IF_ERROR(plugins::check_presets(kPresets));
  const zkp_preset& preset = kPresets[0];
  ZKP_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, sample(preset, 1));
  ZKP_ASSIGN_OR_RETURN(std::unique_ptr<plugins::ProofJob> job,
                       parse(bytes, "the self-test's sample request"));
  ZKP_ASSIGN_OR_RETURN(filecoin_circuit::UpdateRequest r,
                       filecoin_circuit::parse_update_request(bytes, "the self-test's sample"));
  ZKP_ASSIGN_OR_RETURN(std::vector<std::vector<crypto::Fr>> inputs,
                       filecoin::update_public_inputs(r.description));
  if (job->partitions() != preset.partitions || job->public_inputs(0) != inputs[0]) {
    return internal_error(
        "self-test: the sample's partitions or public inputs are not the "
        "verifier's");
  }
  return ok_status();
}

int command(std::span<const std::string> args) {
  return filecoin_circuit::run_update_command(args);
}

Result<plugins::PresetCircuit> preset_circuit(const zkp_preset& preset, bool count) {
  return filecoin_circuit::update_preset_circuit(preset, count);
}

}  // namespace

ZKP_EXPORT_PROOF_TYPE_PLANNED(kName, "0.1.0", parse, run_self_test, kPresets, sample, kSchedule,
                              command, preset_circuit);
