// zkpipe/groth16/zkey.h: proving with a snarkjs 0.7.6 Groth16 .zkey (curve bls12381), so circuits
// set up by snarkjs/circom users are proved by zkpipe: a validating reader of the iden3 "zkey"
// container and a prover that reproduces snarkjs's conventions (A/B from the key's coefficient
// lists, C = A∘B, the quotient evaluated on the odd coset of the generator-5 domain, H bases with
// the division by Z folded in). Facts: docs/crypto.md.
// Thread-safety: a SnarkjsKey is immutable once read; the functions are pure and reentrant.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "zkpipe/crypto/curves.h"
#include "zkpipe/groth16/keys.h"
#include "zkpipe/groth16/prover.h"
#include "zkpipe/groth16/r1cs.h"
#include "zkpipe/sdk/status.h"

namespace zkpipe::groth16 {

struct ZkeyReadOptions {
  // Check every point on the curve and in its prime-order subgroup (coordinates are always
  // checked canonical). Off only for keys already validated, e.g. in benchmarks.
  bool check_points = true;
  unsigned threads = 0;  // for the point checks; 0: all hardware threads
};

// A snarkjs Groth16 proving key. Signals (wires) are snarkjs's: 0 is the constant one, 1..nPublic
// the public signals, the rest private. Infinity (all-zero bytes in the file) is the identity.
struct SnarkjsKey {
  VerifyingKey vk;  // alpha/beta/delta in G1 and beta/gamma/delta in G2 from the header, IC
  uint32_t n_vars = 0;
  uint32_t n_public = 0;
  uint64_t domain_size = 0;
  // The coefficient lists as matrices over rows 0..domain_size-1 (columns are signals). A holds
  // snarkjs's nPublic + 1 binding rows (row nConstraints + i: signal i with coefficient 1).
  SparseMatrix a, b;
  std::vector<G1Affine> a_query;   // n_vars
  std::vector<G1Affine> b1_query;  // n_vars
  std::vector<G2Affine> b2_query;  // n_vars
  std::vector<G1Affine> c_query;   // n_vars - n_public - 1: the private signals
  std::vector<G1Affine> h_query;   // domain_size, indexed by the odd-coset points
};

// Reads and validates a .zkey: protocol groth16, q and r of BLS12-381, consistent section sizes,
// canonical coordinates, points on the curve and in the subgroup, coefficient entries in range.
// Errors name the file, the section and the byte offset ("k.zkey: section 5 (A points) at byte
// 2756: point 0 is not on the curve").
Result<SnarkjsKey> read_snarkjs_zkey(const std::string& path, const ZkeyReadOptions& options = {});

// snarkjs's Groth16 prover over a zkey. `witness` is the full .wtns assignment (n_vars values,
// witness[0] = 1). The proof verifies against key.vk iff the witness satisfies the circuit the
// key was made for (a bad witness gives an invalid proof, as with snarkjs: verify before use).
Result<Proof> prove_with_zkey(const SnarkjsKey& key, std::span<const Fr> witness,
                              const ProverRandomness& randomness, unsigned threads = 0);

// snarkjs's (ffjavascript's) root of unity of order 2^log_n, log_n <= 32: 5^((r - 1) / 2^log_n)
// (ours, ntt.h, come from 7).
Fr snarkjs_root_of_unity(unsigned log_n);

}  // namespace zkpipe::groth16
