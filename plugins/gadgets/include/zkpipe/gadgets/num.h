// zkpipe/gadgets/num.h: the shared vocabulary of the gadgets: an allocated field element with
// its value (Num), and equality of linear combinations. Every gadget computes its values
// natively first and allocates them, so a witness-mode ConstraintSystem only stores values
// (enforce builds nothing); gadgets skip building linear combinations when cs.witness_only().
// Thread-safety: values; functions take the ConstraintSystem of the calling thread.
#pragma once

#include "zkpipe/groth16/constraint_system.h"

namespace zkpipe::gadgets {

using crypto::Fr;
using groth16::ConstraintSystem;
using groth16::LinearCombination;
using groth16::Namespace;
using groth16::Variable;

// An allocated field element and its value.
struct Num {
  Variable var;
  Fr value;

  static Num alloc(ConstraintSystem& cs, const Fr& v) { return {cs.alloc(v), v}; }
  static Num input(ConstraintSystem& cs, const Fr& v) { return {cs.alloc_input(v), v}; }
  LinearCombination lc() const { return LinearCombination(var); }
};

// a == b, as a * 1 = b (one constraint).
inline void enforce_equal(ConstraintSystem& cs, const LinearCombination& a,
                          const LinearCombination& b) {
  cs.enforce_with([&](LinearCombination& l) { l = a; },
                  [](LinearCombination& l) { l = LinearCombination(Variable::one()); },
                  [&](LinearCombination& l) { l = b; });
}

}  // namespace zkpipe::gadgets
