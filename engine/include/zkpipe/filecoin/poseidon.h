// zkpipe/filecoin/poseidon.h: Filecoin's Poseidon, as neptune (Filecoin's Poseidon crate)
// defines it, for every arity 1..36 over BLS12-381 Fr: width t = arity + 1, S-box x^5, R_F = 8
// full rounds and R_P partial rounds from neptune's round-number search (Strength::Standard),
// round constants from the Grain LFSR seeded with (field 1, S-box 1, 255 bits, t, R_F, R_P),
// the Cauchy MDS M[i][j] = 1 / (i + j + t). Everything is generated here on first use by that
// documented procedure, no table is pasted; tests/filecoin/ checks the results against
// neptune's and rust-fil-proofs' test vectors.
// The hash: state = [tag, preimage..., 0...], permute, output state[1]; the tag names the hash
// type: a Merkle tree node 2^arity - 1, a constant-length hash of L elements L * 2^64, a custom
// domain id * 2^40 (SnapDeals' id 1).
// Library zkpipe::filecoin. Thread-safety: instances are built once, thread-safely, on first use;
// every function may run concurrently.
#pragma once

#include <cstdint>
#include <span>

#include "zkpipe/crypto/poseidon.h"
#include "zkpipe/filecoin/hashes.h"

namespace zkpipe::filecoin {

inline constexpr uint32_t kPoseidonMaxArity = 36;

struct PoseidonRounds {
  uint32_t full = 0, partial = 0;
};

// neptune's round numbers for `arity` (1..kPoseidonMaxArity) at Strength::Standard.
PoseidonRounds poseidon_round_numbers(uint32_t arity);

// The instance of `arity` (1..kPoseidonMaxArity); INVALID_ARGUMENT naming the range otherwise.
Result<const crypto::PoseidonParams*> find_poseidon(uint32_t arity);
// The same; throws std::invalid_argument on an unsupported arity.
const crypto::PoseidonParams& poseidon(uint32_t arity);

// A Merkle tree node over preimage.size() children (the arity): tag 2^arity - 1. rust-fil-proofs'
// tree hashes (arity 2, 4, 8), column hashes (arity 11 for SDR, 2 for its 2-layer tests) and
// comm_r = H(comm_c, comm_r_last) (arity 2) are this. Throws std::invalid_argument on an
// unsupported arity.
Fr poseidon_merkle(std::span<const Fr> preimage);
// A constant-length hash of preimage.size() elements with an instance of `arity`
// (preimage.size() <= arity; the other lanes zero): tag preimage.size() * 2^64.
Fr poseidon_constant_length(uint32_t arity, std::span<const Fr> preimage);
// neptune's HashType::Custom(Arbitrary(id)), 1 <= id <= 256: tag id * 2^40; preimage.size() is
// the arity.
Fr poseidon_custom(uint32_t id, std::span<const Fr> preimage);

// Two domains hashed as a binary tree node (rust-fil-proofs' PoseidonFunction::hash2).
// INVALID_ARGUMENT when either is not a canonical Fr.
Result<Domain> poseidon_hash2(const Domain& a, const Domain& b);

}  // namespace zkpipe::filecoin
