// The filecoin_snapdeals proof type's job, parse and samples (update_type.h).
#include "update_type.h"

#include "zkpipe/filecoin/porep_config.h"
#include "zkpipe/filecoin_circuit/vanilla_update.h"

namespace zkpipe::filecoin_circuit {
namespace {

UpdateShape shape_of(uint64_t sector_size, bool poseidon) {
  return poseidon ? update_poseidon_shape(sector_size / 32) : update_shape(sector_size / 32);
}

class UpdateJob final : public plugins::ProofJob {
 public:
  UpdateJob(UpdateRequest r, UpdateShape shape, plugins::CircuitCounts counts)
      : r_(std::move(r)), shape_(shape), counts_(counts) {}
  uint32_t partitions() const override { return static_cast<uint32_t>(r_.inputs.size()); }
  std::string circuit_id() const override {
    return update_circuit_id(r_.description.sector_size, r_.description.poseidon);
  }
  plugins::CircuitCounts counts() const override { return counts_; }
  void synthesize(groth16::ConstraintSystem& cs, uint32_t position) const override {
    if (r_.description.poseidon) {
      synthesize_update_poseidon(cs, shape_, r_.poseidon_witnesses.at(position));
    } else {
      synthesize_update(cs, shape_, r_.witnesses.at(position));
    }
  }
  void synthesize_blank(groth16::ConstraintSystem& cs) const override {
    if (r_.description.poseidon) {
      synthesize_update_poseidon(cs, shape_, blank_update_poseidon(shape_));
    } else {
      synthesize_update(cs, shape_, blank_update(shape_));
    }
  }
  std::vector<Fr> public_inputs(uint32_t position) const override { return r_.inputs[position]; }

 private:
  UpdateRequest r_;
  UpdateShape shape_;
  plugins::CircuitCounts counts_;
};

}  // namespace

Result<UpdatePreset> update_preset(const std::string& name) {
  constexpr std::string_view kPoseidon = "-Poseidon";
  UpdatePreset p;
  p.poseidon = name.ends_with(kPoseidon);
  p.registered_proof = p.poseidon ? name.substr(0, name.size() - kPoseidon.size()) : name;
  Result<uint64_t> size = filecoin::registered_update(p.registered_proof);
  if (!size.ok()) {
    return invalid_argument("preset \"" + name +
                            "\": a registered update proof (StackedDrg2KiBV1 ... "
                            "StackedDrg64GiBV1), with -Poseidon for the Poseidon variant (" +
                            size.status().message() + ")");
  }
  p.sector_size = *size;
  return p;
}

std::string update_circuit_id(uint64_t sector_size, bool poseidon) {
  std::string size;
  for (const filecoin::SectorSizeName& s : filecoin::kSectorSizes) {
    if (s.bytes == sector_size) size = s.name;
  }
  return std::string(poseidon ? "filecoin-snapdeals-poseidon-" : "filecoin-snapdeals-") + size;
}

Result<plugins::CircuitCounts> update_counts(uint64_t sector_size, bool poseidon) {
  UpdateShape shape;
  try {
    shape = shape_of(sector_size, poseidon);
  } catch (const std::invalid_argument& e) {
    return invalid_argument(e.what());
  }
  return plugins::counts_for(update_circuit_id(sector_size, poseidon), [&] {
    groth16::ConstraintSystem cs = groth16::ConstraintSystem::counter();
    if (poseidon) {
      synthesize_update_poseidon(cs, shape, blank_update_poseidon(shape));
    } else {
      synthesize_update(cs, shape, blank_update(shape));
    }
    return plugins::CircuitCounts{cs.num_inputs(), cs.num_aux(), cs.num_constraints()};
  });
}

Result<std::unique_ptr<plugins::ProofJob>> parse_update_job(std::span<const uint8_t> bytes,
                                                            const std::string& what) {
  ZKP_ASSIGN_OR_RETURN(UpdateRequest r, parse_update_request(bytes, what));
  const uint64_t size = r.description.sector_size;
  const bool poseidon = r.description.poseidon;
  const UpdateShape shape = shape_of(size, poseidon);
  ZKP_ASSIGN_OR_RETURN(plugins::CircuitCounts counts, update_counts(size, poseidon));
  return std::unique_ptr<plugins::ProofJob>(new UpdateJob(std::move(r), shape, counts));
}

Result<std::vector<uint8_t>> sample_update(const zkp_preset& preset, uint64_t seed) {
  ZKP_ASSIGN_OR_RETURN(UpdatePreset p, update_preset(preset.name));
  ZKP_ASSIGN_OR_RETURN(UpdateRequest r,
                       sample_update_request(p.registered_proof, seed, p.poseidon));
  const std::string text = encode_update_request(r);
  return std::vector<uint8_t>(text.begin(), text.end());
}

Result<plugins::PresetCircuit> update_preset_circuit(const zkp_preset& preset, bool count) {
  ZKP_ASSIGN_OR_RETURN(UpdatePreset p, update_preset(preset.name));
  const UpdateShape shape = shape_of(p.sector_size, p.poseidon);
  return plugins::count_preset_circuit(
      update_circuit_id(p.sector_size, p.poseidon), preset.partitions, count,
      [&](groth16::ConstraintSystem& cs) {
        if (p.poseidon) {
          synthesize_update_poseidon(cs, shape, blank_update_poseidon(shape));
        } else {
          synthesize_update(cs, shape, blank_update(shape));
        }
      });
}

}  // namespace zkpipe::filecoin_circuit
