// zkpipe/groth16/verifier.h: Groth16 verification, e(A, B) = e(alpha, beta) e(IC(x), gamma)
// e(C, delta), with a prepared key (e(alpha, beta) and the G2 line coefficients precomputed), and
// batch verification of many proofs against one key: a random linear combination with 128-bit
// coefficients, one multi-Miller loop and one final exponentiation (soundness error 2^-128).
// Thread-safety: a PreparedVerifyingKey is immutable; verify calls may run concurrently.
#pragma once

#include <span>
#include <vector>

#include "zkpipe/crypto/fp12.h"
#include "zkpipe/crypto/pairing.h"
#include "zkpipe/groth16/keys.h"

namespace zkpipe::groth16 {

struct PreparedVerifyingKey {
  crypto::Fp12 alpha_beta;  // e(alpha, beta)
  crypto::G2Prepared neg_gamma, neg_delta, beta;
  G1Affine alpha_g1;
  std::vector<G1Affine> ic;
  Status key_status;  // check_key_points of the key: verify refuses a degenerate key

  explicit PreparedVerifyingKey(const VerifyingKey& vk);
};

// OK(true) valid, OK(false) invalid; INVALID_ARGUMENT when the number of public inputs is not
// ic.size() - 1 (inputs exclude the constant one), when the key is degenerate (alpha, beta,
// gamma or delta at infinity) or when the proof's A or B is at infinity.
Result<bool> verify(const PreparedVerifyingKey& pvk, const Proof& proof,
                    std::span<const Fr> public_inputs);

// True iff every proof is valid (with probability 1 - 2^-128 over the coefficients, drawn from
// the OS CSPRNG). inputs[i] are the public inputs of proofs[i]. The Miller loops are split over
// `threads` threads (0: all hardware threads).
Result<bool> verify_batch(const PreparedVerifyingKey& pvk, std::span<const Proof> proofs,
                          std::span<const std::vector<Fr>> inputs, unsigned threads = 0);

}  // namespace zkpipe::groth16
