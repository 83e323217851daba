// zkpipe/filecoin_circuit/gadgets.h: the small gadgets of bellperson (bellpepper-core's
// AllocatedNum, AllocatedBit, multipack) and storage-proofs-core (constraint::equal, insertion),
// each allocating its variables and enforcing its constraints in exactly their order and with
// the same A, B and C sides, so a circuit built from them is the R1CS bellperson builds (the
// order of a Filecoin circuit's variables and constraints is the contract with its .params).
// Every function computes its values natively; a witness-only ConstraintSystem gets the same
// allocations and no linear combinations. Library zkpipe::filecoin_circuit.
// Thread-safety: functions take the ConstraintSystem of the calling thread.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "zkpipe/gadgets/boolean.h"
#include "zkpipe/gadgets/num.h"

namespace zkpipe::filecoin_circuit {

// Fr::CAPACITY of BLS12-381: the bits a field element holds whole (multipacking's chunk size).
inline constexpr uint32_t kFrCapacity = 254;

using crypto::Fr;
using gadgets::Boolean;
using gadgets::Num;
using groth16::ConstraintSystem;
using groth16::LinearCombination;
using groth16::Variable;

// AllocatedNum::inputize: a new public input x and x * 1 = n.
Num inputize(ConstraintSystem& cs, const Num& n);
// constraint::equal: a * 1 = b.
void equal(ConstraintSystem& cs, const Num& a, const Num& b);
// AllocatedNum::square: r allocated, n * n = r.
Num square(ConstraintSystem& cs, const Num& n);

// AllocatedBit::alloc: b allocated, (1 - b) * b = 0. The result is an unnegated bit.
Boolean alloc_bit(ConstraintSystem& cs, bool value);
// AllocatedBit::and: r allocated, a * b = r. a and b must be unnegated allocated bits.
Boolean bit_and(ConstraintSystem& cs, const Boolean& a, const Boolean& b);
// AllocatedBit::nor: r allocated, (1 - a) * (1 - b) = r. The same condition on a and b.
Boolean bit_nor(ConstraintSystem& cs, const Boolean& a, const Boolean& b);

// insertion::pick: c = condition ? a : b allocated, (b - a) * condition = b - c.
Num pick(ConstraintSystem& cs, const Boolean& condition, const Num& a, const Num& b);
// insertion::insert: `elements` with `element` inserted at the position `bits` spell (least
// significant first); elements.size() + 1 == 2^bits.size(). Sizes 2, 4 and 8 use the
// hand-written networks of insert_2/4/8 (8 needs unnegated allocated bits), others select().
std::vector<Num> insert(ConstraintSystem& cs, const Num& element, std::span<const Boolean> bits,
                        std::span<const Num> elements);
// insertion::select: from[n] for the n that `bits` spell; from.size() == 2^bits.size().
Num select(ConstraintSystem& cs, std::span<const Num> from, std::span<const Boolean> bits);

// multipack::pack_into_inputs: per chunk of 254 bits (Fr::CAPACITY) one public input x and
// (sum 2^i bit_i) * 1 = x.
void pack_into_inputs(ConstraintSystem& cs, std::span<const Boolean> bits);

}  // namespace zkpipe::filecoin_circuit
