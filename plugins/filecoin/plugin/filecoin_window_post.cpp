// The `filecoin_window_post` proof-type plugin: Filecoin's WindowPoSt (storage-proofs-post's
// fallback circuit in bellperson's order, zkpipe::filecoin_circuit). A request is what
// generate_window_post_with_vanilla takes (post_request.h): the registered proof, randomness,
// prover id and one vanilla proof per sector; partition k proves the k-th sector_count sectors
// in ascending sector number. A preset per registered proof; samples seal 2KiB and 8MiB sectors
// here. Deadline work: HIGH priority, a 20-minute deadline unless the request or config says so.
// Commands: `zkpipe-tool proof-type filecoin_window_post info|check|sample`.
#include "post_type.h"

namespace {

using namespace zkpipe;

constexpr const char* kName = "filecoin_window_post";
constexpr plugins::Schedule kSchedule{ZKP_PRIORITY_HIGH, 20 * 60 * 1000};

constexpr zkp_preset kPresets[] = {
    {"StackedDrgWindow2KiBV1_2", "2 KiB sectors, 2 a partition, 10 challenges (API 1.2)", 1, 0},
    {"StackedDrgWindow2KiBV1", "2 KiB sectors, 2 a partition, 10 challenges (API 1.0)", 1, 0},
    {"StackedDrgWindow8MiBV1_2", "8 MiB sectors, 2 a partition, 10 challenges (API 1.2)", 1, 0},
    {"StackedDrgWindow8MiBV1", "8 MiB sectors, 2 a partition, 10 challenges (API 1.0)", 1, 0},
    {"StackedDrgWindow512MiBV1_2", "512 MiB sectors, 2 a partition (no sample here)", 1, 0},
    {"StackedDrgWindow512MiBV1", "512 MiB sectors, 2 a partition (no sample here)", 1, 0},
    {"StackedDrgWindow32GiBV1_2", "32 GiB sectors, 2349 a partition (no sample here)", 1, 0},
    {"StackedDrgWindow32GiBV1", "32 GiB sectors, 2349 a partition (no sample here)", 1, 0},
    {"StackedDrgWindow64GiBV1_2", "64 GiB sectors, 2300 a partition (no sample here)", 1, 0},
    {"StackedDrgWindow64GiBV1", "64 GiB sectors, 2300 a partition (no sample here)", 1, 0},
};

Result<std::unique_ptr<plugins::ProofJob>> parse(std::span<const uint8_t> bytes,
                                                 const std::string& what) {
  return filecoin_circuit::parse_post_job(false, bytes, what);
}

Result<std::vector<uint8_t>> sample(const zkp_preset& preset, uint64_t seed) {
  return filecoin_circuit::sample_post(false, preset, seed);
}

// Two 2KiB sectors sealed with SDR, their request parsed and partition 0 synthesized
// witness-only: well under a second.
Status run_self_test() {
  return plugins::self_test_sample<parse, sample>(kPresets, "StackedDrgWindow2KiBV1_2", 1);
}

int command(std::span<const std::string> args) {
  return filecoin_circuit::run_post_command(false, args);
}

Result<plugins::PresetCircuit> preset_circuit(const zkp_preset& preset, bool count) {
  return filecoin_circuit::post_preset_circuit(preset, count);
}

}  // namespace

ZKP_EXPORT_PROOF_TYPE_PLANNED(kName, "0.1.0", parse, run_self_test, kPresets, sample, kSchedule,
                              command, preset_circuit);
