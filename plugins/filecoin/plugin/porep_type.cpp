// The filecoin_porep proof type's job, parse and samples (porep_type.h).
#include "porep_type.h"

#include "zkpipe/filecoin_circuit/porep.h"
#include "zkpipe/filecoin_circuit/porep_request.h"

namespace zkpipe::filecoin_circuit {
namespace {

class PorepJob final : public plugins::ProofJob {
 public:
  PorepJob(PorepRequest r, PorepCircuitShape shape, plugins::CircuitCounts counts)
      : r_(std::move(r)), shape_(shape), counts_(counts) {}
  uint32_t partitions() const override { return static_cast<uint32_t>(r_.inputs.size()); }
  std::string circuit_id() const override { return porep_circuit_id(r_.c1.config); }
  plugins::CircuitCounts counts() const override { return counts_; }
  void synthesize(groth16::ConstraintSystem& cs, uint32_t position) const override {
    synthesize_porep(cs, r_.witnesses.at(position));
  }
  void synthesize_blank(groth16::ConstraintSystem& cs) const override {
    synthesize_porep(cs,
                     blank_porep(shape_.nodes, shape_.arities, shape_.layers, shape_.challenges));
  }
  std::vector<Fr> public_inputs(uint32_t position) const override { return r_.inputs[position]; }

 private:
  PorepRequest r_;
  PorepCircuitShape shape_;
  plugins::CircuitCounts counts_;
};

}  // namespace

std::string porep_circuit_id(const filecoin::PorepConfig& c) {
  std::string size;
  for (const filecoin::SectorSizeName& s : filecoin::kSectorSizes) {
    if (s.bytes == c.sector_size) size = s.name;
  }
  return "filecoin-porep-" + size;
}

Result<plugins::CircuitCounts> porep_counts(const filecoin::PorepConfig& c) {
  ZKP_ASSIGN_OR_RETURN(PorepCircuitShape shape, porep_circuit_shape(c));
  return plugins::counts_for(porep_circuit_id(c), [&] {
    groth16::ConstraintSystem cs = groth16::ConstraintSystem::counter();
    synthesize_porep(cs, blank_porep(shape.nodes, shape.arities, shape.layers, shape.challenges));
    return plugins::CircuitCounts{cs.num_inputs(), cs.num_aux(), cs.num_constraints()};
  });
}

Result<std::unique_ptr<plugins::ProofJob>> parse_porep_job(std::span<const uint8_t> bytes,
                                                           const std::string& what) {
  ZKP_ASSIGN_OR_RETURN(PorepRequest r, parse_porep_request(bytes, what));
  ZKP_ASSIGN_OR_RETURN(PorepCircuitShape shape, porep_circuit_shape(r.c1.config));
  ZKP_ASSIGN_OR_RETURN(plugins::CircuitCounts counts, porep_counts(r.c1.config));
  return std::unique_ptr<plugins::ProofJob>(new PorepJob(std::move(r), shape, counts));
}

Result<std::vector<uint8_t>> sample_porep(const zkp_preset& preset, uint64_t seed) {
  ZKP_ASSIGN_OR_RETURN(SampleCommit1 s, sample_commit1_output(preset.name, seed));
  const std::string text = encode_porep_request(s);
  return std::vector<uint8_t>(text.begin(), text.end());
}

Result<plugins::PresetCircuit> porep_preset_circuit(const zkp_preset& preset, bool count) {
  ZKP_ASSIGN_OR_RETURN(filecoin::PorepConfig c, filecoin::registered_porep(preset.name));
  ZKP_ASSIGN_OR_RETURN(PorepCircuitShape shape, porep_circuit_shape(c));
  return plugins::count_preset_circuit(
      porep_circuit_id(c), preset.partitions, count, [&](groth16::ConstraintSystem& cs) {
        synthesize_porep(cs,
                         blank_porep(shape.nodes, shape.arities, shape.layers, shape.challenges));
      });
}

}  // namespace zkpipe::filecoin_circuit
