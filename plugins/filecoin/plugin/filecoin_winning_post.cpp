// The `filecoin_winning_post` proof-type plugin: Filecoin's WinningPoSt (storage-proofs-post's
// fallback circuit in bellperson's order, zkpipe::filecoin_circuit). A request is what
// generate_winning_post_with_vanilla takes (post_request.h): the registered proof, randomness,
// prover id and the challenged sector's vanilla proof (66 leaves); one partition of 66 sector
// blocks. A preset per registered proof; samples seal 2KiB and 8MiB sectors here. Deadline
// work: CRITICAL priority, a 20-second deadline unless the request or config says otherwise.
// Commands: `zkpipe-tool proof-type filecoin_winning_post info|check|sample`.
#include "post_type.h"

namespace {

using namespace zkpipe;

constexpr const char* kName = "filecoin_winning_post";
constexpr plugins::Schedule kSchedule{ZKP_PRIORITY_CRITICAL, 20000};

constexpr zkp_preset kPresets[] = {
    {"StackedDrgWinning2KiBV1", "2 KiB sector, 66 challenges", 1, 0},
    {"StackedDrgWinning8MiBV1", "8 MiB sector, 66 challenges", 1, 0},
    {"StackedDrgWinning512MiBV1", "512 MiB sector, 66 challenges (no sample here)", 1, 0},
    {"StackedDrgWinning32GiBV1", "32 GiB sector, 66 challenges (no sample here)", 1, 0},
    {"StackedDrgWinning64GiBV1", "64 GiB sector, 66 challenges (no sample here)", 1, 0},
};

Result<std::unique_ptr<plugins::ProofJob>> parse(std::span<const uint8_t> bytes,
                                                 const std::string& what) {
  return filecoin_circuit::parse_post_job(true, bytes, what);
}

Result<std::vector<uint8_t>> sample(const zkp_preset& preset, uint64_t seed) {
  return filecoin_circuit::sample_post(true, preset, seed);
}

// A 2KiB sector sealed with SDR, their request parsed and partition 0 synthesized
// witness-only: well under a second.
Status run_self_test() {
  return plugins::self_test_sample<parse, sample>(kPresets, "StackedDrgWinning2KiBV1", 1);
}

int command(std::span<const std::string> args) {
  return filecoin_circuit::run_post_command(true, args);
}

Result<plugins::PresetCircuit> preset_circuit(const zkp_preset& preset, bool count) {
  return filecoin_circuit::post_preset_circuit(preset, count);
}

}  // namespace

ZKP_EXPORT_PROOF_TYPE_PLANNED(kName, "0.1.0", parse, run_self_test, kPresets, sample, kSchedule,
                              command, preset_circuit);
