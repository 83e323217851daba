// The `porep` proof-type plugin: a request is a vanilla-proof file (binary, or JSON when it
// starts with '{'); parse decodes and fully checks it; each partition in the file is one proof.
#include "proof_type_plugin.h"
#include "request.h"
#include "zkpipe/porep/circuit.h"
#include "zkpipe/porep/vanilla.h"

namespace {

using namespace zkpipe;
using plugins::CircuitCounts;

constexpr const char* kName = "porep";

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
  ZKP_ASSIGN_OR_RETURN(
      porep::VanillaProofs v,
      plugins::decode_request(bytes, what, porep::decode_vanilla, porep::vanilla_from_json));
  ZKP_RETURN_IF_ERROR(porep::check_vanilla(v, what));
  const CircuitCounts counts = plugins::counts_for(v.shape.circuit_id(), [&] {
    porep::CircuitSize size = porep::count_circuit(v.shape);
    return CircuitCounts{size.inputs, size.aux, size.constraints};
  });
  return std::unique_ptr<plugins::ProofJob>(new PorepJob(std::move(v), counts));
}

// Seals the tiny preset, makes and checks its vanilla proofs, round-trips the binary format and
// synthesizes partition 0 in witness mode: the whole input path in well under a second.
Status run_self_test() {
  ZKP_ASSIGN_OR_RETURN(porep::Shape shape, porep::find_shape("tiny"));
  auto sector = porep::seal(shape, porep::seed_from_string("porep self-test"), 1);
  uint32_t partition = 0;
  auto v = porep::make_vanilla_proofs(sector, porep::seed_from_string("challenges"),
                                      std::span<const uint32_t>(&partition, 1), 1);
  std::vector<uint8_t> bytes = porep::encode_vanilla(v);
  ZKP_ASSIGN_OR_RETURN(auto job, parse(bytes, "self-test request"));
  return plugins::self_test_job(*job);
}

}  // namespace

ZKP_EXPORT_PROOF_TYPE(kName, "0.1.0", parse, run_self_test);
