// poseidon_internal.h: what poseidon.cpp (native rounds) shares with poseidon_circuit.cpp (the
// in-circuit hash): the permutation with every S-box's (x^2, x^4, x^5) recorded in round order.
// Private to zkpipe_gadgets. Thread-safety: pure functions.
#pragma once

#include <span>
#include <vector>

#include "zkpipe/gadgets/poseidon.h"

namespace zkpipe::gadgets::poseidon_detail {

// poseidon_permute, appending x^2, x^4, x^5 of each S-box (full rounds: state[0..t) in order;
// partial rounds: state[0]) to `trace`.
void permute_traced(const PoseidonParams& params, std::span<Fr> state, std::vector<Fr>& trace);
// The same, allocating x^2, x^4, x^5 of each S-box in `cs` instead (the witness-only path).
void permute_allocating(const PoseidonParams& params, std::span<Fr> state, ConstraintSystem& cs);

// The supported arities and the domain tag 2^arity - 1.
bool arity_supported(size_t arity);
Fr domain_tag(size_t arity);

}  // namespace zkpipe::gadgets::poseidon_detail
