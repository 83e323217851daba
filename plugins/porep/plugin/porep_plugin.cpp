// The `porep` proof-type plugin: a request is a vanilla-proof file (binary, or JSON when it
// starts with '{'); parse decodes and fully checks it; each partition in the file is one proof.
// Presets: the sector shapes of porep::shape_presets(); a sample request seals a synthetic sector
// from the seed and holds the vanilla proofs of every partition. Its command line (`zkpipe-tool
// proof-type porep shapes|seal|vanilla|check`) is in porep_command.cpp.
#include "porep_command.h"
#include "zkpipe/porep/circuit.h"
#include "zkpipe/porep/vanilla.h"
#include "zkpipe/sdk/proof_type_plugin.h"
#include "zkpipe/sdk/request.h"

namespace {

using namespace zkpipe;
using plugins::CircuitCounts;

constexpr const char* kName = "porep";

// The shapes of porep::shape_presets() (the self-test checks they agree), as a constant table.
constexpr zkp_preset kPresets[] = {
    {"tiny", "256 B sector (8 nodes), 2 layers, 2+2 parents, 1 challenge per partition", 2, 0},
    {"2KiB", "2 KiB sector (64 nodes), 2 layers, 6+8 parents, 1 challenge per partition", 2, 0},
    {"8MiB", "8 MiB sector (2^18 nodes), 2 layers, 6+8 parents, 2 challenges per partition", 2, 0},
    {"512MiB", "512 MiB sector (2^24 nodes), 2 layers, 6+8 parents, 2 challenges per partition", 2,
     0},
};

class PorepJob final : public plugins::ProofJob {
 public:
  PorepJob(porep::VanillaProofs v, CircuitCounts counts) : v_(std::move(v)), counts_(counts) {}
  uint32_t partitions() const override { return static_cast<uint32_t>(v_.partitions.size()); }
  uint32_t partition_index(uint32_t position) const override {
    return v_.partitions[position].partition;
  }
  std::string circuit_id() const override { return v_.shape.circuit_id(); }
  CircuitCounts counts() const override { return counts_; }
  void synthesize(groth16::ConstraintSystem& cs, uint32_t position) const override {
    porep::synthesize_partition(cs, v_, position);
  }
  void synthesize_blank(groth16::ConstraintSystem& cs) const override {
    porep::synthesize_partition(cs, porep::blank_proofs(v_.shape), 0);
  }
  std::vector<crypto::Fr> public_inputs(uint32_t position) const override {
    return porep::public_inputs(v_.shape, v_.replica_id, v_.comms, v_.challenge_seed,
                                v_.partitions[position].partition);
  }

 private:
  porep::VanillaProofs v_;
  CircuitCounts counts_;
};

Result<std::unique_ptr<plugins::ProofJob>> parse(std::span<const uint8_t> bytes,
                                                 const std::string& what) {
  ZKP_ASSIGN_OR_RETURN(porep::VanillaProofs v,
                       plugins::decode_request(bytes, what, &porep::request_shape(),
                                               porep::decode_vanilla, porep::vanilla_from_json));
  ZKP_RETURN_IF_ERROR(porep::check_vanilla(v, what));
  const CircuitCounts counts = plugins::counts_for(v.shape.circuit_id(), [&] {
    porep::CircuitSize size = porep::count_circuit(v.shape);
    return CircuitCounts{size.inputs, size.aux, size.constraints};
  });
  return std::unique_ptr<plugins::ProofJob>(new PorepJob(std::move(v), counts));
}

// The request of a preset: a synthetic sector sealed from `seed`, the vanilla proofs of every
// partition (challenges from `seed` too), in the binary format.
Result<std::vector<uint8_t>> sample(const zkp_preset& preset, uint64_t seed) {
  ZKP_ASSIGN_OR_RETURN(porep::Shape shape, porep::find_shape(preset.name));
  const std::string s = std::to_string(seed);
  const porep::SealedSector sector =
      porep::seal(shape, porep::seed_from_string("porep sample " + s));
  std::vector<uint32_t> partitions(shape.partitions);
  for (uint32_t k = 0; k < shape.partitions; ++k) partitions[k] = k;
  return porep::encode_vanilla(porep::make_vanilla_proofs(
      sector, porep::seed_from_string("porep sample challenges " + s), partitions));
}

// The preset table is shape_presets(); the tiny sample request (a sealed sector, every
// partition's vanilla proofs) parses and partition 0 synthesizes in witness mode: the whole input
// path in well under a second.
Status run_self_test() {
  const std::vector<porep::Shape>& shapes = porep::shape_presets();
  bool same = std::size(kPresets) == shapes.size();
  for (size_t i = 0; same && i < shapes.size(); ++i) {
    same = shapes[i].name == kPresets[i].name && shapes[i].partitions == kPresets[i].partitions;
  }
  if (!same) return internal_error("self-test: the preset table is not porep::shape_presets()");
  return plugins::self_test_sample<parse, sample>(kPresets, "tiny", 1);
}

// No scheduling defaults (normal priority, no deadline); the command line: porep_command.cpp.
constexpr plugins::Schedule kSchedule{};

}  // namespace

ZKP_EXPORT_PROOF_TYPE_SCHEDULED(kName, "0.1.0", parse, run_self_test, kPresets, sample, kSchedule,
                                zkpipe::porep::run_command);
