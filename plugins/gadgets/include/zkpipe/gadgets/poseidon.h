// zkpipe/gadgets/poseidon.h: Poseidon (HADES, S-box x^5) over BLS12-381 Fr, native and
// in-circuit. Parameters for arities 2, 4, 8, 11 (t = arity + 1) come from the generated table
// plugins/gadgets/poseidon/poseidon_constants.inc (generate_constants.py; derivation there).
// Thread-safety: poseidon_params builds each instance once on first use (thread-safe); the
// parameters are immutable afterwards, so every function may run concurrently on distinct
// states and ConstraintSystems.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "zkpipe/crypto/poseidon.h"
#include "zkpipe/gadgets/num.h"
#include "zkpipe/sdk/status.h"

namespace zkpipe::gadgets {

// The permutation and its parameters are crypto's (zkpipe/crypto/poseidon.h); this header
// names the instances of this library and the hashes over them.
using crypto::poseidon_permute;
using crypto::poseidon_permute_plain;
using crypto::poseidon_prepare;
using crypto::PoseidonFastForm;
using crypto::PoseidonParams;

// The instance for `arity` inputs (2, 4, 8 or 11); INVALID_ARGUMENT naming the supported ones
// otherwise.
Result<const PoseidonParams*> find_poseidon_params(uint32_t arity);
// The same; throws std::invalid_argument on an unsupported arity.
const PoseidonParams& poseidon_params(uint32_t arity);
// The reference implementation's published instances poseidonperm_x5_255_3 and _5 (width 3 or
// 5; R_P = 57 and 60), for known-answer tests of the permutation; throws otherwise.
const PoseidonParams& poseidon_reference_params(uint32_t width);

// state = [2^arity - 1 (domain tag, as neptune does for Merkle trees), inputs...], permute,
// return state[1]. inputs.size() must be a supported arity (throws std::invalid_argument).
Fr poseidon_hash(std::span<const Fr> inputs);

// In-circuit: the same value, constrained. 3 constraints per S-box (x2 = x*x, x4 = x2*x2,
// x5 = x4*x) plus one binding the output: 3 (R_F t + R_P) + 1. Allocates x2, x4, x5 per S-box in
// round order, then the output; a witness-only cs gets the same allocations and no linear
// combinations.
Num poseidon_hash(ConstraintSystem& cs, std::span<const Num> inputs);

}  // namespace zkpipe::gadgets
