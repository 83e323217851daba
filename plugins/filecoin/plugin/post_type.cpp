// The Filecoin PoSt proof types' job, parse and samples (post_type.h).
#include "post_type.h"

#include "zkpipe/filecoin/porep_config.h"
#include "zkpipe/filecoin_circuit/post.h"
#include "zkpipe/filecoin_circuit/post_request.h"

namespace zkpipe::filecoin_circuit {
namespace {

TreeArities arities_of(const filecoin::PostConfig& c) {
  const filecoin::SectorShape s = *filecoin::sector_shape(c.sector_size);
  return {s.base_arity, s.sub_arity, s.top_arity};
}

// Winning PoSt's circuit is 66 sector blocks of one challenge (winning_post_setup_params).
uint32_t blocks(const filecoin::PostConfig& c) {
  return c.winning ? c.challenges : c.sector_count;
}
uint32_t challenges_per_block(const filecoin::PostConfig& c) {
  return c.winning ? 1 : c.challenges;
}

class PostJob final : public plugins::ProofJob {
 public:
  PostJob(PostRequest r, std::vector<std::vector<Fr>> inputs, plugins::CircuitCounts counts)
      : r_(std::move(r)), inputs_(std::move(inputs)), counts_(counts) {}
  uint32_t partitions() const override { return static_cast<uint32_t>(inputs_.size()); }
  std::string circuit_id() const override { return post_circuit_id(r_.description.config); }
  plugins::CircuitCounts counts() const override { return counts_; }
  void synthesize(groth16::ConstraintSystem& cs, uint32_t position) const override {
    synthesize_fallback_post(cs, r_.witnesses.at(position));
  }
  void synthesize_blank(groth16::ConstraintSystem& cs) const override {
    const filecoin::PostConfig& c = r_.description.config;
    synthesize_fallback_post(
        cs, blank_post(blocks(c), challenges_per_block(c), c.sector_size / 32, arities_of(c)));
  }
  std::vector<Fr> public_inputs(uint32_t position) const override { return inputs_[position]; }

 private:
  PostRequest r_;
  std::vector<std::vector<Fr>> inputs_;
  plugins::CircuitCounts counts_;
};

}  // namespace

std::string post_circuit_id(const filecoin::PostConfig& c) {
  std::string size;
  for (const filecoin::SectorSizeName& s : filecoin::kSectorSizes) {
    if (s.bytes == c.sector_size) size = s.name;
  }
  return std::string(c.winning ? "filecoin-winning-post-" : "filecoin-window-post-") + size;
}

plugins::CircuitCounts post_counts(const filecoin::PostConfig& c) {
  return plugins::counts_for(post_circuit_id(c), [&] {
    const filecoin_circuit::CircuitCounts n =
        count_fallback_post(blocks(c), challenges_per_block(c), c.sector_size / 32, arities_of(c));
    return plugins::CircuitCounts{n.inputs, n.aux, n.constraints};
  });
}

Result<std::unique_ptr<plugins::ProofJob>> parse_post_job(bool winning,
                                                          std::span<const uint8_t> bytes,
                                                          const std::string& what) {
  ZKP_ASSIGN_OR_RETURN(PostRequest r, parse_post_request(bytes, winning, what));
  ZKP_ASSIGN_OR_RETURN(std::vector<std::vector<Fr>> inputs,
                       filecoin::post_public_inputs(r.description));
  const plugins::CircuitCounts counts = post_counts(r.description.config);
  return std::unique_ptr<plugins::ProofJob>(new PostJob(std::move(r), std::move(inputs), counts));
}

Result<std::vector<uint8_t>> sample_post(bool winning, const zkp_preset& preset, uint64_t seed) {
  ZKP_ASSIGN_OR_RETURN(filecoin::PostConfig c, filecoin::registered_post(preset.name));
  if (c.winning != winning) return invalid_argument(std::string("preset ") + preset.name);
  const uint32_t sectors = winning ? 1 : std::min<uint32_t>(c.sector_count, 2);
  ZKP_ASSIGN_OR_RETURN(PostRequest r, sample_post_request(preset.name, sectors, seed));
  const std::string text = encode_post_request(r);
  return std::vector<uint8_t>(text.begin(), text.end());
}

Result<plugins::PresetCircuit> post_preset_circuit(const zkp_preset& preset, bool count) {
  ZKP_ASSIGN_OR_RETURN(filecoin::PostConfig c, filecoin::registered_post(preset.name));
  return plugins::count_preset_circuit(
      post_circuit_id(c), preset.partitions, count, [&](groth16::ConstraintSystem& cs) {
        const std::vector<PostSectorWitness> one =
            blank_post(1, challenges_per_block(c), c.sector_size / 32, arities_of(c));
        for (uint32_t i = 0; i < blocks(c); ++i) {
          synthesize_fallback_post(cs, one);
        }
      });
}

}  // namespace zkpipe::filecoin_circuit
