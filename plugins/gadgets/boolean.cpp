// gadgets/boolean.cpp: Boolean operations. Each computes the value natively, folds constants,
// allocates at most one variable and records its rows only in record mode.
#include "zkpipe/gadgets/boolean.h"

namespace zkpipe::gadgets {
namespace {

const Fr& fr_two() {
  static const Fr kTwo = Fr::from_u64(2);
  return kTwo;
}

// l = a.lc + b.lc + c.lc - k * r
void sum3_minus(LinearCombination& l, const Boolean& a, const Boolean& b, const Boolean& c,
                const Fr& k, Variable r) {
  a.add_to(l, Fr::one());
  b.add_to(l, Fr::one());
  c.add_to(l, Fr::one());
  l.add(-k, r);
}

}  // namespace

Boolean Boolean::alloc(ConstraintSystem& cs, bool v) {
  const Variable var = cs.alloc(v ? Fr::one() : Fr::zero());
  cs.enforce_with([&](LinearCombination& l) { l = LinearCombination(Variable::one()) - var; },
                  [&](LinearCombination& l) { l = LinearCombination(var); },
                  [](LinearCombination&) {});
  return Boolean(Kind::kIs, var, v);
}

LinearCombination Boolean::lc() const {
  LinearCombination l;
  add_to(l, Fr::one());
  return l;
}

void Boolean::add_to(LinearCombination& lc, const Fr& coeff) const {
  switch (kind_) {
    case Kind::kConstant:
      if (value_) lc.add(coeff, Variable::one());
      return;
    case Kind::kIs:
      lc.add(coeff, var_);
      return;
    case Kind::kNot:
      lc.add(coeff, Variable::one());
      lc.add(-coeff, var_);
      return;
  }
}

Boolean Boolean::xor_(ConstraintSystem& cs, const Boolean& a, const Boolean& b) {
  if (a.is_constant()) return a.value_ ? !b : b;
  if (b.is_constant()) return b.value_ ? !a : a;
  // On the underlying variables x, y: r = x ^ y by 2x * y = x + y - r; the negations move to r.
  const bool raw = a.raw_value() != b.raw_value();
  const Variable x = a.var_, y = b.var_;
  const Variable r = cs.alloc(raw ? Fr::one() : Fr::zero());
  cs.enforce_with([&](LinearCombination& l) { l.add(fr_two(), x); },
                  [&](LinearCombination& l) { l = LinearCombination(y); },
                  [&](LinearCombination& l) { l = LinearCombination(x) + y - r; });
  const Boolean out(Kind::kIs, r, raw);
  return a.is_negated() != b.is_negated() ? !out : out;
}

Boolean Boolean::and_(ConstraintSystem& cs, const Boolean& a, const Boolean& b) {
  if (a.is_constant()) return a.value_ ? b : constant(false);
  if (b.is_constant()) return b.value_ ? a : constant(false);
  const bool v = a.value_ && b.value_;
  const Variable r = cs.alloc(v ? Fr::one() : Fr::zero());
  cs.enforce_with([&](LinearCombination& l) { a.add_to(l, Fr::one()); },
                  [&](LinearCombination& l) { b.add_to(l, Fr::one()); },
                  [&](LinearCombination& l) { l = LinearCombination(r); });
  return Boolean(Kind::kIs, r, v);
}

Boolean Boolean::xor3(ConstraintSystem& cs, const Boolean& a, const Boolean& b, const Boolean& c) {
  if (a.is_constant()) return a.value_ ? !xor_(cs, b, c) : xor_(cs, b, c);
  if (b.is_constant()) return b.value_ ? !xor_(cs, a, c) : xor_(cs, a, c);
  if (c.is_constant()) return c.value_ ? !xor_(cs, a, b) : xor_(cs, a, b);
  // r in {0, 1} and s - r in {0, 2} leave exactly r = s mod 2 for s = a + b + c in [0, 3].
  const Boolean r = alloc(cs, (a.value_ != b.value_) != c.value_);
  const Variable rv = r.var_;
  cs.enforce_with([&](LinearCombination& l) { sum3_minus(l, a, b, c, Fr::one(), rv); },
                  [&](LinearCombination& l) {
                    sum3_minus(l, a, b, c, Fr::one(), rv);
                    l.add(-fr_two(), Variable::one());
                  },
                  [](LinearCombination&) {});
  return r;
}

Boolean Boolean::ch(ConstraintSystem& cs, const Boolean& e, const Boolean& f, const Boolean& g) {
  if (e.is_constant()) return e.value_ ? f : g;
  if (f.is_constant() && g.is_constant()) {
    if (f.value_ == g.value_) return f;
    return f.value_ ? e : !e;
  }
  const bool v = e.value_ ? f.value_ : g.value_;
  const Variable r = cs.alloc(v ? Fr::one() : Fr::zero());
  cs.enforce_with([&](LinearCombination& l) { e.add_to(l, Fr::one()); },
                  [&](LinearCombination& l) {
                    f.add_to(l, Fr::one());
                    g.add_to(l, -Fr::one());
                  },
                  [&](LinearCombination& l) {
                    l.add(Fr::one(), r);
                    g.add_to(l, -Fr::one());
                  });
  return Boolean(Kind::kIs, r, v);
}

Boolean Boolean::maj(ConstraintSystem& cs, const Boolean& a, const Boolean& b, const Boolean& c) {
  // Two constants: equal, they decide; different, the third does.
  if (a.is_constant() && b.is_constant()) return a.value_ == b.value_ ? a : c;
  if (a.is_constant() && c.is_constant()) return a.value_ == c.value_ ? a : b;
  if (b.is_constant() && c.is_constant()) return b.value_ == c.value_ ? b : a;
  // One constant k: maj = k ? x | y : x & y.
  if (a.is_constant()) return a.value_ ? or_(cs, b, c) : and_(cs, b, c);
  if (b.is_constant()) return b.value_ ? or_(cs, a, c) : and_(cs, a, c);
  if (c.is_constant()) return c.value_ ? or_(cs, a, b) : and_(cs, a, b);
  // m in {0, 1} and s - 2m in {0, 1} leave exactly m = s >= 2 for s = a + b + c in [0, 3].
  const int s = int{a.value_} + int{b.value_} + int{c.value_};
  const Boolean m = alloc(cs, s >= 2);
  const Variable mv = m.var_;
  cs.enforce_with([&](LinearCombination& l) { sum3_minus(l, a, b, c, fr_two(), mv); },
                  [&](LinearCombination& l) {
                    sum3_minus(l, a, b, c, fr_two(), mv);
                    l.add(-Fr::one(), Variable::one());
                  },
                  [](LinearCombination&) {});
  return m;
}

void Boolean::enforce_equal(ConstraintSystem& cs, const Boolean& a, const Boolean& b) {
  if (a.is_constant() && b.is_constant()) {
    if (a.value_ == b.value_) return;
    // Two different constants: record 1 * 1 = 0, which no assignment satisfies.
    cs.enforce_with([](LinearCombination& l) { l = LinearCombination(Variable::one()); },
                    [](LinearCombination& l) { l = LinearCombination(Variable::one()); },
                    [](LinearCombination&) {});
    return;
  }
  cs.enforce_with([&](LinearCombination& l) { a.add_to(l, Fr::one()); },
                  [](LinearCombination& l) { l = LinearCombination(Variable::one()); },
                  [&](LinearCombination& l) { b.add_to(l, Fr::one()); });
}

}  // namespace zkpipe::gadgets
