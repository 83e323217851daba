// post/common/circuit.h: the circuit of one window_post or winning_post partition. Public inputs
// (after the one), per sector slot: comm_r, then each challenge's leaf index (public_inputs() in
// vanilla.h derives the same list from the randomness and the sector ids, outside the circuit,
// as Filecoin's verifier does). Private: per slot comm_c, comm_r_last, and per challenge the
// leaf and its tree R path. Per slot it checks comm_r = Poseidon(comm_c, comm_r_last); per
// challenge the leaf index's bits (which also bound it below nodes) and the leaf's inclusion in
// tree R (8-ary Poseidon) under comm_r_last.
// Thread-safety: reentrant; one ConstraintSystem per thread.
#pragma once

#include "vanilla.h"
#include "zkpipe/gadgets/num.h"

namespace zkpipe::post {

// Allocates and constrains partition `partition` of `v` in `cs` (any mode). Vanilla proofs that
// fail check_vanilla give an unsatisfied witness: run check_vanilla first.
void synthesize_partition(gadgets::ConstraintSystem& cs, const VanillaProofs& v,
                          uint32_t partition);

// Zero-valued proofs of one sector with the shape's sizes: records or counts the circuit without
// a sealed sector.
VanillaProofs blank_proofs(const Shape& shape);

struct CircuitSize {
  uint32_t inputs = 0;  // public wires including the one
  uint32_t aux = 0;
  uint64_t constraints = 0;
};
// Counts the circuit of a shape without storing it (ConstraintSystem::counter()).
CircuitSize count_circuit(const Shape& shape);

}  // namespace zkpipe::post
