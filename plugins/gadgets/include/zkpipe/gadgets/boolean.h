// zkpipe/gadgets/boolean.h: a circuit bit. A Boolean is a constant (no variable) or an
// allocated 0/1 variable, possibly negated (so NOT costs nothing). Every operation computes its
// value natively, folds constants to zero constraints and, in witness-only mode, only allocates
// (no linear combination is built). Ops used by SHA-256 (ch, maj, 3-way xor) are here too.
// Thread-safety: values; the static functions take the ConstraintSystem of the calling thread.
#pragma once

#include <cstdint>

#include "zkpipe/gadgets/num.h"

namespace zkpipe::gadgets {

class Boolean {
 public:
  Boolean() = default;  // constant false

  static Boolean constant(bool v) { return Boolean(Kind::kConstant, Variable::one(), v); }
  // Allocates a bit with value v and enforces v * (1 - v) = 0 (one constraint).
  static Boolean alloc(ConstraintSystem& cs, bool v);
  // A variable the caller already constrains to 0/1 (no constraint here).
  static Boolean from_bit_variable(Variable var, bool v) { return Boolean(Kind::kIs, var, v); }

  bool value() const { return value_; }
  bool is_constant() const { return kind_ == Kind::kConstant; }
  bool is_negated() const { return kind_ == Kind::kNot; }
  // The underlying variable (Variable::one() for a constant).
  Variable variable() const { return var_; }
  // The value of the underlying variable (before negation).
  bool raw_value() const { return value_ != (kind_ == Kind::kNot); }

  // As a linear combination over Variable::one(): 1, 0, b or 1 - b.
  LinearCombination lc() const;
  // lc += coeff * this.
  void add_to(LinearCombination& lc, const Fr& coeff) const;

  Boolean operator!() const {
    switch (kind_) {
      case Kind::kConstant:
        return constant(!value_);
      case Kind::kIs:
        return Boolean(Kind::kNot, var_, !value_);
      case Kind::kNot:
        break;
    }
    return Boolean(Kind::kIs, var_, !value_);
  }

  // a ^ b: one constraint (2a * b = a + b - c) unless a constant folds it.
  static Boolean xor_(ConstraintSystem& cs, const Boolean& a, const Boolean& b);
  // a & b: one constraint (a * b = c) unless a constant folds it.
  static Boolean and_(ConstraintSystem& cs, const Boolean& a, const Boolean& b);
  // a | b = !(!a & !b).
  static Boolean or_(ConstraintSystem& cs, const Boolean& a, const Boolean& b) {
    return !and_(cs, !a, !b);
  }
  // a ^ b ^ c. Three variables: one allocated bit r, two constraints (r boolean and
  // (s - r)(s - r - 2) = 0 with s = a + b + c). Constants fold to xor_ or less.
  static Boolean xor3(ConstraintSystem& cs, const Boolean& a, const Boolean& b, const Boolean& c);
  // SHA-256 Ch: e ? f : g. One constraint (e * (f - g) = r - g); zero if e or both f, g are
  // constant.
  static Boolean ch(ConstraintSystem& cs, const Boolean& e, const Boolean& f, const Boolean& g);
  // SHA-256 Maj: at least two of a, b, c. Three variables: one allocated bit m, two constraints
  // (m boolean and (s - 2m)(s - 2m - 1) = 0); one constant: one constraint; two: none.
  static Boolean maj(ConstraintSystem& cs, const Boolean& a, const Boolean& b, const Boolean& c);

  // a == b: one constraint, or none when both are constant (then the values must agree; a
  // mismatch is recorded as an unsatisfiable constraint 1 * 1 = 0 so it is never hidden).
  static void enforce_equal(ConstraintSystem& cs, const Boolean& a, const Boolean& b);

 private:
  enum class Kind : uint8_t { kConstant, kIs, kNot };
  Boolean(Kind kind, Variable var, bool value) : var_(var), value_(value), kind_(kind) {}

  Variable var_ = Variable::one();
  bool value_ = false;
  Kind kind_ = Kind::kConstant;
};

// a == b for Booleans (Boolean::enforce_equal; the num.h overload takes linear combinations).
inline void enforce_equal(ConstraintSystem& cs, const Boolean& a, const Boolean& b) {
  Boolean::enforce_equal(cs, a, b);
}

}  // namespace zkpipe::gadgets
