// The filecoin_snapdeals proof type's job, parse and samples (update_type.h).
#include "update_type.h"

#include "zkpipe/filecoin/porep_config.h"
#include "zkpipe/filecoin_circuit/vanilla_update.h"

namespace zkpipe::filecoin_circuit {
namespace {

class UpdateJob final : public plugins::ProofJob {
 public:
  UpdateJob(UpdateRequest r, UpdateShape shape, plugins::CircuitCounts counts)
      : r_(std::move(r)), shape_(shape), counts_(counts) {}
  uint32_t partitions() const override { return static_cast<uint32_t>(r_.inputs.size()); }
  std::string circuit_id() const override { return update_circuit_id(r_.description.sector_size); }
  plugins::CircuitCounts counts() const override { return counts_; }
  void synthesize(groth16::ConstraintSystem& cs, uint32_t position) const override {
    synthesize_update(cs, shape_, r_.witnesses.at(position));
  }
  void synthesize_blank(groth16::ConstraintSystem& cs) const override {
    synthesize_update(cs, shape_, blank_update(shape_));
  }
  std::vector<Fr> public_inputs(uint32_t position) const override { return r_.inputs[position]; }

 private:
  UpdateRequest r_;
  UpdateShape shape_;
  plugins::CircuitCounts counts_;
};

}  // namespace

std::string update_circuit_id(uint64_t sector_size) {
  std::string size;
  for (const filecoin::SectorSizeName& s : filecoin::kSectorSizes) {
    if (s.bytes == sector_size) size = s.name;
  }
  return "filecoin-snapdeals-" + size;
}

Result<plugins::CircuitCounts> update_counts(uint64_t sector_size) {
  UpdateShape shape;
  try {
    shape = update_shape(sector_size / 32);
  } catch (const std::invalid_argument& e) {
    return invalid_argument(e.what());
  }
  return plugins::counts_for(update_circuit_id(sector_size), [&] {
    groth16::ConstraintSystem cs = groth16::ConstraintSystem::counter();
    synthesize_update(cs, shape, blank_update(shape));
    return plugins::CircuitCounts{cs.num_inputs(), cs.num_aux(), cs.num_constraints()};
  });
}

Result<std::unique_ptr<plugins::ProofJob>> parse_update_job(std::span<const uint8_t> bytes,
                                                            const std::string& what) {
  ZKP_ASSIGN_OR_RETURN(UpdateRequest r, parse_update_request(bytes, what));
  const UpdateShape shape = update_shape(r.description.sector_size / 32);
  ZKP_ASSIGN_OR_RETURN(plugins::CircuitCounts counts, update_counts(r.description.sector_size));
  return std::unique_ptr<plugins::ProofJob>(new UpdateJob(std::move(r), shape, counts));
}

Result<std::vector<uint8_t>> sample_update(const zkp_preset& preset, uint64_t seed) {
  ZKP_ASSIGN_OR_RETURN(UpdateRequest r, sample_update_request(preset.name, seed));
  const std::string text = encode_update_request(r);
  return std::vector<uint8_t>(text.begin(), text.end());
}

}  // namespace zkpipe::filecoin_circuit
