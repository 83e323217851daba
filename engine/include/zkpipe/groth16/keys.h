// zkpipe/groth16/keys.h: the Groth16 verifying key, proving key and proof (bellman layout).
// The proving key's bases are spans over storage it shares ownership of (vectors after a setup,
// or a read-only mapping of a params file), so a mapped key is used in place.
// Density: a_query / b_g1_query / b_g2_query hold bases only for wires whose polynomial is not
// zero (bit set in a_density / b_density, one bit per wire), so the MSMs skip unused wires.
// Thread-safety: immutable after construction; share freely between threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "zkpipe/crypto/curves.h"
#include "zkpipe/sdk/status.h"

namespace zkpipe::groth16 {

using crypto::Fr;
using crypto::G1Affine;
using crypto::G2Affine;

inline constexpr size_t kProofBytes = 192;  // A (G1), B (G2), C (G1), compressed

struct VerifyingKey {
  G1Affine alpha_g1, beta_g1, delta_g1;
  G2Affine beta_g2, gamma_g2, delta_g2;
  std::vector<G1Affine> ic;  // one per public wire, ic[0] for the constant one

  bool operator==(const VerifyingKey&) const = default;
};

// Refuses a degenerate key: alpha_g1, beta_g2, gamma_g2 or delta_g2 at infinity (with gamma = O
// the IC term vanishes and A = alpha, B = beta, C = O verifies for any input). `proving` also
// refuses beta_g1 and delta_g1 (in a proving key; snarkjs verifying keys do not carry them).
// The message is prefixed with `what` and names the element.
Status check_key_points(const VerifyingKey& vk, const std::string& what, bool proving = false);

// One bit per wire (wire j at word j / 64, bit j % 64).
struct Density {
  uint64_t wires = 0;
  std::vector<uint64_t> bits;

  bool test(uint64_t j) const { return (bits[j / 64] >> (j % 64)) & 1; }
  uint64_t count() const;
  bool operator==(const Density&) const = default;
};

struct ProvingKey {
  VerifyingKey vk;
  uint32_t num_inputs = 0;   // public wires including one
  uint32_t num_aux = 0;      // private wires
  uint64_t domain_size = 0;  // n: the NTT size of the quotient computation
  Density a_density, b_density;
  std::span<const G1Affine> h_query;     // n - 1: tau^i Z(tau) / delta
  std::span<const G1Affine> l_query;     // num_aux: (beta u + alpha v + w)(tau) / delta
  std::span<const G1Affine> a_query;     // a_density.count(): u_j(tau)
  std::span<const G1Affine> b_g1_query;  // b_density.count(): v_j(tau) in G1
  std::span<const G2Affine> b_g2_query;  // b_density.count(): v_j(tau) in G2
  std::shared_ptr<const void> storage;   // keeps the spans' memory alive

  // Sizes agree with each other and with the densities; `what` prefixes the message.
  Status check_shape(const std::string& what) const;
};

struct Proof {
  G1Affine a;
  G2Affine b;
  G1Affine c;

  bool operator==(const Proof&) const = default;
};

void encode_proof(const Proof& proof, uint8_t* out);  // kProofBytes
// Refuses a proof whose A or B is the point at infinity, naming the element.
Status check_proof_points(const Proof& proof, const std::string& what);

// Every point is checked (canonical, on the curve, in the subgroup; A and B not at infinity); the
// message names the element (A, B or C) and its byte range.
Result<Proof> decode_proof(const uint8_t* in, size_t len);

// Verifying key bytes (bellman order, uncompressed points): alpha_g1, beta_g1, beta_g2,
// gamma_g2, delta_g1, delta_g2, u32 big-endian IC count, IC points.
std::vector<uint8_t> encode_verifying_key(const VerifyingKey& vk);
Result<VerifyingKey> decode_verifying_key(const uint8_t* in, size_t len);

}  // namespace zkpipe::groth16
