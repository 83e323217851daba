// verify.cpp: a Filecoin proof against its description (zkpipe/filecoin/verify.h).
#include "zkpipe/filecoin/verify.h"

#include "zkpipe/filecoin/proof_format.h"
#include "zkpipe/groth16/verifier.h"

namespace zkpipe::filecoin {

Result<std::vector<std::vector<Fr>>> public_inputs(std::string_view desc_json,
                                                   const std::string& what) {
  ZKP_ASSIGN_OR_RETURN(ProofKind kind, description_kind(desc_json, what));
  Result<std::vector<std::vector<Fr>>> inputs = invalid_argument("no description");
  if (kind == ProofKind::kPorep) {
    ZKP_ASSIGN_OR_RETURN(PorepDescription d, parse_porep_description(desc_json, what));
    inputs = porep_public_inputs(d);
  } else if (kind == ProofKind::kSnapDeals) {
    ZKP_ASSIGN_OR_RETURN(UpdateDescription d, parse_update_description(desc_json, what));
    inputs = update_public_inputs(d);
  } else {
    ZKP_ASSIGN_OR_RETURN(PostDescription d, parse_post_description(desc_json, what));
    inputs = post_public_inputs(d);
  }
  if (!inputs.ok()) return inputs.status().with_context(what);
  return inputs;
}

Result<bool> verify_partitions(const groth16::VerifyingKey& vk, std::span<const uint8_t> proof,
                               std::span<const std::vector<Fr>> inputs) {
  if (inputs.empty()) return invalid_argument("no partitions to verify");
  if (vk.ic.size() != inputs[0].size() + 1) {
    return invalid_argument("the verifying key takes " + std::to_string(vk.ic.size() - 1) +
                            " public inputs; the description yields " +
                            std::to_string(inputs[0].size()) +
                            " a partition (a key of another proof type or sector size)");
  }
  ZKP_ASSIGN_OR_RETURN(std::vector<groth16::Proof> proofs, decode_proofs(proof, inputs.size()));
  const groth16::PreparedVerifyingKey pvk(vk);
  if (proofs.size() == 1) return groth16::verify(pvk, proofs[0], inputs[0]);
  return groth16::verify_batch(pvk, proofs, inputs);
}

Result<bool> verify_proof(const groth16::VerifyingKey& vk, std::span<const uint8_t> proof,
                          std::string_view desc_json, const std::string& what) {
  ZKP_ASSIGN_OR_RETURN(std::vector<std::vector<Fr>> inputs, public_inputs(desc_json, what));
  return verify_partitions(vk, proof, inputs);
}

}  // namespace zkpipe::filecoin
