// The job, parse, sample requests and the preset-table check (post_plugin.h).
#include "post_plugin.h"

#include "circuit.h"
#include "vanilla.h"
#include "zkpipe/sector/seal.h"

namespace zkpipe::post {
namespace {

using plugins::CircuitCounts;

class PostJob final : public plugins::ProofJob {
 public:
  PostJob(VanillaProofs v, CircuitCounts counts) : v_(std::move(v)), counts_(counts) {}
  uint32_t partitions() const override { return post::partitions(v_); }
  std::string circuit_id() const override { return v_.shape.circuit_id(); }
  CircuitCounts counts() const override { return counts_; }
  void synthesize(groth16::ConstraintSystem& cs, uint32_t position) const override {
    synthesize_partition(cs, v_, position);
  }
  void synthesize_blank(groth16::ConstraintSystem& cs) const override {
    synthesize_partition(cs, blank_proofs(v_.shape), 0);
  }
  std::vector<Fr> public_inputs(uint32_t position) const override {
    return post::public_inputs(v_, position);
  }

 private:
  VanillaProofs v_;
  CircuitCounts counts_;
};

}  // namespace

Result<std::unique_ptr<plugins::ProofJob>> parse_request(Kind kind, std::span<const uint8_t> bytes,
                                                         const std::string& what) {
  ZKP_ASSIGN_OR_RETURN(VanillaProofs v, decode_request(kind, bytes, what));
  ZKP_RETURN_IF_ERROR(check_vanilla(v, what));
  const CircuitCounts counts = plugins::counts_for(v.shape.circuit_id(), [&] {
    const CircuitSize size = count_circuit(v.shape);
    return CircuitCounts{size.inputs, size.aux, size.constraints};
  });
  return std::unique_ptr<plugins::ProofJob>(new PostJob(std::move(v), counts));
}

Result<std::vector<uint8_t>> sample_request(Kind kind, const zkp_preset& preset, uint64_t seed) {
  ZKP_ASSIGN_OR_RETURN(const Preset p, find_preset(kind, preset.name));
  const std::string tag = std::string(kind_name(kind)) + " sample " + std::to_string(seed);
  // Porep's cheapest sealing (2 layers, 2 + 2 parents) at the preset's nodes: tree R is what a
  // PoSt reads; the layers only make comm_c.
  porep::Shape sealing{"custom", p.shape.nodes, 2, 2, 2, 1, 2};
  porep::name_after_preset(sealing);
  ZKP_RETURN_IF_ERROR(porep::validate_shape(sealing, "the sample sectors' sealing shape"));
  const uint32_t n = p.sample_sectors;
  const uint32_t replicas =
      p.shape.nodes <= kDistinctSampleNodes ? n : std::min(n, kSampleReplicas);
  std::vector<porep::SealedSector> sealed;
  for (uint32_t r = 0; r < replicas; ++r) {
    sealed.push_back(
        porep::seal(sealing, porep::seed_from_string(tag + " sector " + std::to_string(r))));
  }
  std::vector<SectorInput> inputs;
  for (uint32_t i = 0; i < n; ++i) {
    inputs.push_back(
        {1000 + uint64_t{i}, &sealed[i % replicas], "sample sector " + std::to_string(i)});
  }
  ZKP_ASSIGN_OR_RETURN(
      VanillaProofs v,
      make_vanilla_proofs(p.shape, porep::seed_from_string(tag + " randomness"), inputs));
  return encode_vanilla(v);
}

Status check_preset_table(Kind kind, std::span<const zkp_preset> table) {
  const std::vector<Preset>& want = presets(kind);
  bool same = table.size() == want.size();
  for (size_t i = 0; same && i < want.size(); ++i) {
    same = want[i].shape.name == table[i].name && want[i].partitions() == table[i].partitions;
  }
  if (!same) {
    return internal_error("self-test: the preset table is not post::presets(" +
                          std::string(kind_name(kind)) + ")");
  }
  return ok_status();
}

}  // namespace zkpipe::post
