// zkpipe/snapdeals/circuit.h: the snapdeals circuit for one partition. Public inputs (after the
// one): comm_r_old, comm_d_new, comm_r_new, then each challenge's node index (public_inputs() in
// vanilla.h). It checks comm_r_old and comm_r_new against comm_c and the two tree R roots, and
// per challenge: new data in tree D, the sector key in the old tree R, the new replica in the new
// tree R, and new replica = sector key + data * rho, rho = Poseidon(phi, high h bits of the node).
// Thread-safety: reentrant; one ConstraintSystem per thread.
#pragma once

#include "zkpipe/gadgets/num.h"
#include "zkpipe/porep/circuit.h"
#include "zkpipe/snapdeals/vanilla.h"

namespace zkpipe::snapdeals {

void synthesize_partition(gadgets::ConstraintSystem& cs, const VanillaProofs& v, size_t position);
VanillaProofs blank_proofs(const Shape& shape);
porep::CircuitSize count_circuit(const Shape& shape);

}  // namespace zkpipe::snapdeals
