// zkpipe/crypto/poseidon.h: the Poseidon permutation (HADES: full and partial rounds, S-box
// x^5) over BLS12-381 Fr for any instance (its width, round numbers, round constants and MDS):
// the textbook rounds and the fast form (Poseidon paper, appendix B) derived from them. The
// instances live with their users: zkpipe/gadgets/poseidon.h (the hadeshash recipe) and
// zkpipe/filecoin/poseidon.h (Filecoin's, as neptune generates it).
// Thread-safety: pure functions; a PoseidonParams is immutable once prepared.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "zkpipe/crypto/fields.h"

namespace zkpipe::crypto {

inline constexpr size_t kPoseidonMaxFastWidth = 16;  // wider instances run the textbook rounds

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

// Derives params.fast from the constants and the MDS (a few ms for t = 12). Leaves it empty
// (textbook rounds) for a width above kPoseidonMaxFastWidth or inconsistent sizes.
void poseidon_prepare(PoseidonParams& params);

// In-place permutation: R_F/2 full rounds, R_P partial rounds (S-box on state[0] only), R_F/2
// full rounds; each round adds its constants, applies the S-box and multiplies by the MDS.
// Uses params.fast when present. Throws std::invalid_argument when state.size() != width.
void poseidon_permute(const PoseidonParams& params, std::span<Fr> state);
// The textbook rounds, ignoring params.fast (for tests).
void poseidon_permute_plain(const PoseidonParams& params, std::span<Fr> state);

}  // namespace zkpipe::crypto
