// The `snapdeals` proof-type plugin: a request is a snapdeals vanilla-proof file (binary, or
// JSON when it starts with '{'); parse decodes and fully checks it; each partition is one proof.
// Presets: the shapes of snapdeals::shape_presets(); a sample request seals an empty (CC) sector
// of the same size from the seed, encodes seeded data into it and holds the vanilla proofs of
// every partition.
#include "snapdeals_command.h"
#include "zkpipe/sdk/proof_type_plugin.h"
#include "zkpipe/sdk/request.h"
#include "zkpipe/snapdeals/circuit.h"
#include "zkpipe/snapdeals/vanilla.h"

namespace {

using namespace zkpipe;
using plugins::CircuitCounts;

constexpr const char* kName = "snapdeals";

// The shapes of snapdeals::shape_presets() (the self-test checks they agree), as a constant table.
constexpr zkp_preset kPresets[] = {
    {"tiny", "256 B sector (8 nodes), h 2, 1 challenge per partition", 2, 0},
    {"2KiB", "2 KiB sector (64 nodes), h 3, 2 challenges per partition", 2, 0},
    {"8MiB", "8 MiB sector (2^18 nodes), h 4, 4 challenges per partition", 2, 0},
    {"512MiB", "512 MiB sector (2^24 nodes), h 5, 4 challenges per partition", 2, 0},
};

class SnapdealsJob final : public plugins::ProofJob {
 public:
  SnapdealsJob(snapdeals::VanillaProofs v, CircuitCounts counts)
      : v_(std::move(v)), counts_(counts) {}
  uint32_t partitions() const override { return static_cast<uint32_t>(v_.partitions.size()); }
  uint32_t partition_index(uint32_t position) const override {
    return v_.partitions[position].partition;
  }
  std::string circuit_id() const override { return v_.shape.circuit_id(); }
  CircuitCounts counts() const override { return counts_; }
  void synthesize(groth16::ConstraintSystem& cs, uint32_t position) const override {
    snapdeals::synthesize_partition(cs, v_, position);
  }
  void synthesize_blank(groth16::ConstraintSystem& cs) const override {
    snapdeals::synthesize_partition(cs, snapdeals::blank_proofs(v_.shape), 0);
  }
  std::vector<crypto::Fr> public_inputs(uint32_t position) const override {
    return snapdeals::public_inputs(v_.shape, v_.comms, v_.partitions[position].partition);
  }

 private:
  snapdeals::VanillaProofs v_;
  CircuitCounts counts_;
};

Result<std::unique_ptr<plugins::ProofJob>> parse(std::span<const uint8_t> bytes,
                                                 const std::string& what) {
  ZKP_ASSIGN_OR_RETURN(
      snapdeals::VanillaProofs v,
      plugins::decode_request(bytes, what, &snapdeals::request_shape(), snapdeals::decode_vanilla,
                              snapdeals::vanilla_from_json));
  ZKP_RETURN_IF_ERROR(snapdeals::check_vanilla(v, what));
  const CircuitCounts counts = plugins::counts_for(v.shape.circuit_id(), [&] {
    porep::CircuitSize size = snapdeals::count_circuit(v.shape);
    return CircuitCounts{size.inputs, size.aux, size.constraints};
  });
  return std::unique_ptr<plugins::ProofJob>(new SnapdealsJob(std::move(v), counts));
}

// The request of a preset: an empty (CC) sector of the porep preset of the same name sealed from
// `seed` (the sector key), seeded data encoded into it, the vanilla proofs of every partition.
Result<std::vector<uint8_t>> sample(const zkp_preset& preset, uint64_t seed) {
  ZKP_ASSIGN_OR_RETURN(snapdeals::Shape shape, snapdeals::find_shape(preset.name));
  ZKP_ASSIGN_OR_RETURN(porep::Shape key_shape, porep::find_shape(preset.name));
  const std::string s = std::to_string(seed);
  const porep::SealedSector key =
      porep::seal(key_shape, porep::seed_from_string("snapdeals sample cc " + s), 0, {},
                  porep::SectorData::kEmpty);
  ZKP_ASSIGN_OR_RETURN(
      snapdeals::UpdatedSector updated,
      snapdeals::update(key, shape, porep::seed_from_string("snapdeals sample " + s)));
  std::vector<uint32_t> partitions(shape.partitions);
  for (uint32_t k = 0; k < shape.partitions; ++k) partitions[k] = k;
  return snapdeals::encode_vanilla(snapdeals::make_vanilla_proofs(updated, partitions));
}

// The preset table is shape_presets(); the tiny sample request (an empty sector sealed, data
// encoded, every partition's vanilla proofs) parses and partition 0 synthesizes in witness mode.
Status run_self_test() {
  const std::vector<snapdeals::Shape>& shapes = snapdeals::shape_presets();
  bool same = std::size(kPresets) == shapes.size();
  for (size_t i = 0; same && i < shapes.size(); ++i) {
    same = shapes[i].name == kPresets[i].name && shapes[i].partitions == kPresets[i].partitions;
  }
  if (!same) return internal_error("self-test: the preset table is not snapdeals::shape_presets()");
  return plugins::self_test_sample<parse, sample>(kPresets, "tiny", 1);
}

// No scheduling defaults (normal priority, no deadline); the command line: snapdeals_command.cpp.
constexpr plugins::Schedule kSchedule{};

}  // namespace

ZKP_EXPORT_PROOF_TYPE_SCHEDULED(kName, "0.1.0", parse, run_self_test, kPresets, sample, kSchedule,
                                zkpipe::snapdeals::run_command);
