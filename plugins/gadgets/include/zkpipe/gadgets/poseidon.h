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

#include "zkpipe/gadgets/num.h"
#include "zkpipe/sdk/status.h"

namespace zkpipe::gadgets {

// The same permutation rewritten for speed (Poseidon paper, appendix B): partial-round constants
// folded into state[0] and the first second-half full round, and each partial-round MDS
// factored as a dense matrix moved to the last first-half full round times a sparse matrix.
// Derived by poseidon_prepare; the S-box inputs are exactly those of the textbook rounds.
struct PoseidonFastForm {
  std::vector<Fr> pre_partial_mds;         // width^2: linear layer of the last first-half round
  std::vector<Fr> partial_constants;       // partial_rounds: added to state[0]
  std::vector<Fr> sparse;                  // partial_rounds * (2 width - 1): m00, v[1..], w[1..]
  std::vector<Fr> post_partial_constants;  // width: constants of the first second-half round

  bool empty() const { return sparse.empty(); }
};

struct PoseidonParams {
  uint32_t width = 0;  // t
  uint32_t full_rounds = 0;
  uint32_t partial_rounds = 0;
  std::vector<Fr> round_constants;  // (full + partial) * width, round-major
  std::vector<Fr> mds;              // width * width, row-major: state' = mds * state
  PoseidonFastForm fast;            // empty unless poseidon_prepare ran
};

// Derives params.fast from the constants and the MDS (a few ms for t = 12).
void poseidon_prepare(PoseidonParams& params);

// The instance for `arity` inputs (2, 4, 8 or 11); INVALID_ARGUMENT naming the supported ones
// otherwise.
Result<const PoseidonParams*> find_poseidon_params(uint32_t arity);
// The same; throws std::invalid_argument on an unsupported arity.
const PoseidonParams& poseidon_params(uint32_t arity);
// The reference implementation's published instances poseidonperm_x5_255_3 and _5 (width 3 or
// 5; R_P = 57 and 60), for known-answer tests of the permutation; throws otherwise.
const PoseidonParams& poseidon_reference_params(uint32_t width);

// In-place permutation: R_F/2 full rounds, R_P partial rounds (S-box on state[0] only), R_F/2
// full rounds; each round adds its constants, applies the S-box and multiplies by the MDS.
// Uses params.fast when present. Throws std::invalid_argument when state.size() != width.
void poseidon_permute(const PoseidonParams& params, std::span<Fr> state);
// The textbook rounds, ignoring params.fast (for tests).
void poseidon_permute_plain(const PoseidonParams& params, std::span<Fr> state);

// state = [2^arity - 1 (domain tag, as neptune does for Merkle trees), inputs...], permute,
// return state[1]. inputs.size() must be a supported arity (throws std::invalid_argument).
Fr poseidon_hash(std::span<const Fr> inputs);

// In-circuit: the same value, constrained. 3 constraints per S-box (x2 = x*x, x4 = x2*x2,
// x5 = x4*x) plus one binding the output: 3 (R_F t + R_P) + 1. Allocates x2, x4, x5 per S-box in
// round order, then the output; a witness-only cs gets the same allocations and no linear
// combinations.
Num poseidon_hash(ConstraintSystem& cs, std::span<const Num> inputs);

}  // namespace zkpipe::gadgets
