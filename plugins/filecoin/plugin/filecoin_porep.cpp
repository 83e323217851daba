// The `filecoin_porep` proof-type plugin: Filecoin's interactive PoRep (storage-proofs-porep's
// stacked circuit in bellperson's order, zkpipe::filecoin_circuit). A request is what
// seal_commit_phase2 takes (porep_request.h): the C1 output filecoin-ffi writes, bare or with
// its prover_id and sector_id; partition k proves the C1 output's k-th partition of vanilla
// proofs. A preset per registered proof; samples seal 2KiB and 8MiB sectors here.
// Commands: `zkpipe-tool proof-type filecoin_porep info|check|sample`.
#include "porep_type.h"
#include "zkpipe/filecoin/porep_inputs.h"
#include "zkpipe/filecoin_circuit/porep_request.h"

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

// A 2KiB sector sealed with SDR and its C1 output parsed: every vanilla proof checked natively
// (labels re-computed, paths, columns, encoding), replica_id derived from prover and sector,
// and the job's public inputs those a verifier derives. No synthesis here: the smallest
// Filecoin PoRep circuit has 2.7M constraints, too many for a load-time check in a sanitizer
// build; the tests check witness against counts and satisfaction (tests/filecoin).
Status run_self_test() {
  ZKP_RETURN_IF_ERROR(plugins::check_presets(kPresets));
  const zkp_preset& preset = kPresets[0];
  ZKP_ASSIGN_OR_RETURN(filecoin_circuit::SampleCommit1 s,
                       filecoin_circuit::sample_commit1_output(preset.name, 1));
  const std::string text = filecoin_circuit::encode_porep_request(s);
  ZKP_ASSIGN_OR_RETURN(
      std::unique_ptr<plugins::ProofJob> job,
      parse(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size()),
            "the self-test's sample request"));
  filecoin::PorepDescription d;
  d.config = s.c1.config;
  d.comm_r = s.c1.comm_r;
  d.comm_d = s.c1.comm_d;
  d.prover_id = s.prover_id;
  d.sector_id = s.sector_id;
  d.ticket = s.c1.ticket;
  d.seed = s.c1.seed;
  ZKP_ASSIGN_OR_RETURN(std::vector<std::vector<crypto::Fr>> inputs,
                       filecoin::porep_public_inputs(d));
  if (job->partitions() != preset.partitions || job->public_inputs(0) != inputs[0]) {
    return internal_error(
        "self-test: the sample's partitions or public inputs are not the "
        "verifier's");
  }
  return ok_status();
}

int command(std::span<const std::string> args) {
  return filecoin_circuit::run_porep_command(args);
}

Result<plugins::PresetCircuit> preset_circuit(const zkp_preset& preset, bool count) {
  return filecoin_circuit::porep_preset_circuit(preset, count);
}

}  // namespace

ZKP_EXPORT_PROOF_TYPE_PLANNED(kName, "0.1.0", parse, run_self_test, kPresets, sample, kSchedule,
                              command, preset_circuit);
