// The `snapdeals` proof-type plugin: a request is a snapdeals vanilla-proof file (binary, or
// JSON when it starts with '{'); parse decodes and fully checks it; each partition is one proof.
#include "proof_type_plugin.h"
#include "request.h"
#include "zkpipe/snapdeals/circuit.h"
#include "zkpipe/snapdeals/vanilla.h"

namespace {

using namespace zkpipe;
using plugins::CircuitCounts;

constexpr const char* kName = "snapdeals";

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
  ZKP_ASSIGN_OR_RETURN(snapdeals::VanillaProofs v,
                       plugins::decode_request(bytes, what, snapdeals::decode_vanilla,
                                               snapdeals::vanilla_from_json));
  ZKP_RETURN_IF_ERROR(snapdeals::check_vanilla(v, what));
  const CircuitCounts counts = plugins::counts_for(v.shape.circuit_id(), [&] {
    porep::CircuitSize size = snapdeals::count_circuit(v.shape);
    return CircuitCounts{size.inputs, size.aux, size.constraints};
  });
  return std::unique_ptr<plugins::ProofJob>(new SnapdealsJob(std::move(v), counts));
}

// Seals an empty tiny sector, encodes data into it, makes and parses the vanilla proofs of
// partition 0 and synthesizes it in witness mode.
Status run_self_test() {
  ZKP_ASSIGN_OR_RETURN(porep::Shape key_shape, porep::find_shape("tiny"));
  ZKP_ASSIGN_OR_RETURN(snapdeals::Shape shape, snapdeals::find_shape("tiny"));
  auto key = porep::seal(key_shape, porep::seed_from_string("snapdeals self-test"), 1, {},
                         porep::SectorData::kEmpty);
  ZKP_ASSIGN_OR_RETURN(auto updated,
                       snapdeals::update(key, shape, porep::seed_from_string("new data"), 1));
  uint32_t partition = 0;
  auto v = snapdeals::make_vanilla_proofs(updated, std::span<const uint32_t>(&partition, 1), 1);
  ZKP_ASSIGN_OR_RETURN(auto job, parse(snapdeals::encode_vanilla(v), "self-test request"));
  return plugins::self_test_job(*job);
}

}  // namespace

ZKP_EXPORT_PROOF_TYPE(kName, "0.1.0", parse, run_self_test);
