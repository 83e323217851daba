// zkpipe/porep/circuit.h: the porep circuit for one partition. Public inputs (after the one):
// replica id, comm_d, comm_r, then per challenge its node index and its parents' indices
// (public_inputs() in vanilla.h computes the same list). Per challenge it checks: data inclusion
// in tree D, the challenged column and every parent column in tree C, each layer's label from
// its parents' labels (SHA-256), the encoding replica = label_L + data, replica inclusion in
// tree R; once per partition comm_r = Poseidon(comm_c, comm_r_last).
// Thread-safety: reentrant; one ConstraintSystem per thread.
#pragma once

#include "zkpipe/gadgets/num.h"
#include "zkpipe/porep/vanilla.h"

namespace zkpipe::porep {

// Allocates and constrains partition `position` of `v` in `cs` (any mode). A vanilla proof that
// fails check_vanilla gives an unsatisfied witness; run check_vanilla first.
void synthesize_partition(gadgets::ConstraintSystem& cs, const VanillaProofs& v, size_t position);

// Zero-valued proofs with the shape's sizes (one partition): records or counts the circuit
// without a sealed sector.
VanillaProofs blank_proofs(const Shape& shape);

struct CircuitSize {
  uint32_t inputs = 0;  // public wires including the one
  uint32_t aux = 0;
  uint64_t constraints = 0;
};
// Counts the circuit of a shape without storing it (ConstraintSystem::counter()).
CircuitSize count_circuit(const Shape& shape);

}  // namespace zkpipe::porep
