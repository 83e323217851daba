// groth16/verifier.cpp: single and batched Groth16 verification.
//   single: e(A, B) e(IC(x), -gamma) e(C, -delta) == e(alpha, beta), the right side
//           precomputed, -gamma and -delta prepared.
//   batch:  with random 128-bit z_i, prod e(z_i A_i, B_i) * e(sum z_i IC(x_i), -gamma)
//           * e(sum z_i C_i, -delta) * e(-(sum z_i) alpha, beta) == 1: one Miller loop per
//           proof (split over threads) plus three prepared ones, one final exponentiation.
#include "zkpipe/groth16/verifier.h"

#include <string>

#include "zkpipe/crypto/msm.h"
#include "zkpipe/crypto/parallel.h"

namespace zkpipe::groth16 {
namespace {

using crypto::Fp12;
using crypto::G1;
using crypto::G2Prepared;

Status check_inputs(const PreparedVerifyingKey& pvk, std::span<const Fr> inputs,
                    const std::string& what) {
  ZKP_RETURN_IF_ERROR(pvk.key_status);
  if (inputs.size() + 1 != pvk.ic.size()) {
    return invalid_argument(what + std::to_string(inputs.size()) +
                            " public inputs; the verifying key expects " +
                            std::to_string(pvk.ic.size() - 1));
  }
  return ok_status();
}

G1 input_combination(const PreparedVerifyingKey& pvk, std::span<const Fr> inputs) {
  G1 acc = G1::from_affine(pvk.ic[0]);
  if (!inputs.empty()) acc += crypto::msm(pvk.ic.data() + 1, inputs.data(), inputs.size(), 1);
  return acc;
}

// A random 128-bit scalar from the OS CSPRNG (non-zero).
Fr random_128() {
  for (;;) {
    auto limbs = Fr::random_secure().to_canonical();
    limbs[2] = limbs[3] = 0;
    if (limbs[0] | limbs[1]) return Fr::from_canonical(limbs);
  }
}

}  // namespace

PreparedVerifyingKey::PreparedVerifyingKey(const VerifyingKey& vk)
    : alpha_beta(crypto::pairing(vk.alpha_g1, vk.beta_g2)),
      neg_gamma(-vk.gamma_g2),
      neg_delta(-vk.delta_g2),
      beta(vk.beta_g2),
      alpha_g1(vk.alpha_g1),
      ic(vk.ic),
      key_status(check_key_points(vk, "verifying key")) {}

Result<bool> verify(const PreparedVerifyingKey& pvk, const Proof& proof,
                    std::span<const Fr> public_inputs) {
  ZKP_RETURN_IF_ERROR(check_inputs(pvk, public_inputs, "verify: "));
  ZKP_RETURN_IF_ERROR(check_proof_points(proof, "verify: proof"));
  const G1 acc = input_combination(pvk, public_inputs);
  const crypto::G2Prepared b(proof.b);
  const crypto::PreparedPairingInput pairs[] = {
      {proof.a, &b}, {acc.to_affine(), &pvk.neg_gamma}, {proof.c, &pvk.neg_delta}};
  return crypto::final_exponentiation(crypto::multi_miller_loop(pairs)) == pvk.alpha_beta;
}

Result<bool> verify_batch(const PreparedVerifyingKey& pvk, std::span<const Proof> proofs,
                          std::span<const std::vector<Fr>> inputs, unsigned threads) {
  if (proofs.size() != inputs.size()) {
    return invalid_argument("verify_batch: " + std::to_string(proofs.size()) + " proofs but " +
                            std::to_string(inputs.size()) + " input lists");
  }
  if (proofs.empty()) return true;
  for (size_t i = 0; i < proofs.size(); ++i) {
    ZKP_RETURN_IF_ERROR(
        check_inputs(pvk, inputs[i], "verify_batch: proof " + std::to_string(i) + " has "));
    ZKP_RETURN_IF_ERROR(check_proof_points(proofs[i], "verify_batch: proof " + std::to_string(i)));
  }
  const size_t k = proofs.size();
  std::vector<Fr> z(k);
  for (auto& x : z) x = random_128();
  // sum_i z_i IC(x_i) = (sum z_i) ic[0] + sum_j (sum_i z_i x_ij) ic[j].
  std::vector<Fr> weights(pvk.ic.size(), Fr::zero());
  for (size_t i = 0; i < k; ++i) {
    weights[0] += z[i];
    for (size_t j = 0; j < inputs[i].size(); ++j) weights[j + 1] += z[i] * inputs[i][j];
  }
  std::vector<crypto::G1Affine> c_points(k);
  for (size_t i = 0; i < k; ++i) c_points[i] = proofs[i].c;
  // Chunks of the proofs' Miller loops run in parallel; chunk 0 also takes the fixed pairs.
  const size_t chunks = std::min<size_t>(crypto::resolve_threads(threads), k);
  std::vector<Fp12> partial(chunks, Fp12::one());
  crypto::parallel_for(chunks, threads, [&](size_t t) {
    const size_t begin = k * t / chunks, end = k * (t + 1) / chunks;
    std::vector<crypto::PairingInput> pairs;
    pairs.reserve(end - begin);
    for (size_t i = begin; i < end; ++i) {
      pairs.emplace_back((G1::from_affine(proofs[i].a) * z[i]).to_affine(), proofs[i].b);
    }
    partial[t] = crypto::multi_miller_loop(pairs);
    if (t != 0) return;
    const G1 acc = crypto::msm(pvk.ic.data(), weights.data(), weights.size(), 1);
    const G1 c_sum = crypto::msm(c_points.data(), z.data(), k, 1);
    const G1 alpha = G1::from_affine(pvk.alpha_g1) * -weights[0];  // e(alpha, beta)^-(sum z)
    const crypto::PreparedPairingInput fixed[] = {{acc.to_affine(), &pvk.neg_gamma},
                                                  {c_sum.to_affine(), &pvk.neg_delta},
                                                  {alpha.to_affine(), &pvk.beta}};
    partial[0] *= crypto::multi_miller_loop(fixed);
  });
  Fp12 f = partial[0];
  for (size_t t = 1; t < chunks; ++t) f *= partial[t];
  return crypto::final_exponentiation(f) == Fp12::one();
}

}  // namespace zkpipe::groth16
