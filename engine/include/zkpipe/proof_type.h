// zkpipe/proof_type.h: the engine's side of a proof-type plugin (abi/proof_type.h): the R1CS a
// plugin recorded, copied out of its view into the engine's R1cs and checked.
// Thread-safety: pure functions.
#pragma once

#include <string>

#include "zkpipe/abi/proof_type.h"
#include "zkpipe/groth16/r1cs.h"

namespace zkpipe {

// Copies the view (the plugin keeps its storage until destroy_r1cs) and validates the matrices;
// `what` names the plugin in messages.
inline Result<groth16::R1cs> r1cs_from_view(const zkp_r1cs_view& view, const std::string& what) {
  static_assert(sizeof(zkp_fr) == sizeof(crypto::Fr));
  groth16::R1cs r;
  r.num_inputs = view.num_inputs;
  r.num_aux = view.num_aux;
  auto copy = [&](groth16::SparseMatrix& m, const zkp_sparse_matrix& s) {
    m.row_begin.assign(s.row_begin, s.row_begin + view.num_constraints + 1);
    m.column.assign(s.column, s.column + s.terms);
    const auto* values = reinterpret_cast<const crypto::Fr*>(s.value);
    m.value.assign(values, values + s.terms);
  };
  copy(r.a, view.a);
  copy(r.b, view.b);
  copy(r.c, view.c);
  ZKP_RETURN_IF_ERROR(r.validate(what + ": the recorded R1CS"));
  return r;
}

}  // namespace zkpipe
