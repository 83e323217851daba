// The `filecoin_porep` proof-type plugin: Filecoin's interactive PoRep (storage-proofs-porep's
// stacked circuit in bellperson's order, zkpipe::filecoin_circuit). A request is what
// seal_commit_phase2 takes (porep_request.h): the C1 output filecoin-ffi writes, bare or with
// its prover_id and sector_id; partition k proves the C1 output's k-th partition of vanilla
// proofs. A preset per registered proof; samples seal 2KiB and 8MiB sectors here.
// Commands: `zkpipe-tool proof-type filecoin_porep info|check|sample`.
#include "porep_type.h"

namespace {

using namespace zkpipe;

constexpr const char* kName = "filecoin_porep";
constexpr plugins::Schedule kSchedule{};  // the config's default priority

constexpr zkp_preset kPresets[] = {
    {"StackedDrg2KiBV1_1", "2 KiB sector, 2 layers, 2 challenges, 1 partition (API 1.1)", 1, 0},
    {"StackedDrg2KiBV1", "2 KiB sector, 2 layers, 2 challenges, 1 partition (API 1.0)", 1, 0},
    {"StackedDrg8MiBV1_1", "8 MiB sector, 2 layers, 2 challenges, 1 partition (API 1.1)", 1, 0},
    {"StackedDrg8MiBV1", "8 MiB sector, 2 layers, 2 challenges, 1 partition (API 1.0)", 1, 0},
    {"StackedDrg512MiBV1_1", "512 MiB sector, 2 layers, 2 challenges (no sample here)", 1, 0},
    {"StackedDrg512MiBV1", "512 MiB sector, 2 layers, 2 challenges (no sample here)", 1, 0},
    {"StackedDrg32GiBV1_1", "32 GiB sector, 11 layers, 18 challenges x 10 (no sample here)", 10, 0},
    {"StackedDrg32GiBV1", "32 GiB sector, 11 layers, 18 challenges x 10 (no sample here)", 10, 0},
    {"StackedDrg64GiBV1_1", "64 GiB sector, 11 layers, 18 challenges x 10 (no sample here)", 10, 0},
    {"StackedDrg64GiBV1", "64 GiB sector, 11 layers, 18 challenges x 10 (no sample here)", 10, 0},
};

Result<std::unique_ptr<plugins::ProofJob>> parse(std::span<const uint8_t> bytes,
                                                 const std::string& what) {
  return filecoin_circuit::parse_porep_job(bytes, what);
}

Result<std::vector<uint8_t>> sample(const zkp_preset& preset, uint64_t seed) {
  return filecoin_circuit::sample_porep(preset, seed);
}

// A 2KiB sector sealed with SDR, its C1 output parsed and checked, partition 0 synthesized
// witness-only (2.4M constraints: a few seconds).
Status run_self_test() {
  return plugins::self_test_sample<parse, sample>(kPresets, "StackedDrg2KiBV1_1", 1);
}

int command(std::span<const std::string> args) {
  return filecoin_circuit::run_porep_command(args);
}

}  // namespace

ZKP_EXPORT_PROOF_TYPE_SCHEDULED(kName, "0.1.0", parse, run_self_test, kPresets, sample, kSchedule,
                                command);
