// bellperson's and storage-proofs-core's small gadgets (zkpipe/filecoin_circuit/gadgets.h).
#include "zkpipe/filecoin_circuit/gadgets.h"

#include <cassert>
#include <stdexcept>

namespace zkpipe::filecoin_circuit {
namespace {

const Fr kOne = Fr::one();

Variable bit_variable(const Boolean& b, const char* what) {
  if (b.is_constant() || b.is_negated()) {
    throw std::invalid_argument(std::string(what) + ": bits must be allocated and unnegated");
  }
  return b.variable();
}

}  // namespace

Num inputize(ConstraintSystem& cs, const Num& n) {
  const Num input = Num::input(cs, n.value);
  cs.enforce_with([&](LinearCombination& a) { a += input.var; },
                  [](LinearCombination& b) { b += Variable::one(); },
                  [&](LinearCombination& c) { c += n.var; });
  return input;
}

void equal(ConstraintSystem& cs, const Num& a, const Num& b) {
  cs.enforce_with([&](LinearCombination& l) { l += a.var; },
                  [](LinearCombination& l) { l += Variable::one(); },
                  [&](LinearCombination& l) { l += b.var; });
}

Num square(ConstraintSystem& cs, const Num& n) {
  const Num r = Num::alloc(cs, n.value * n.value);
  cs.enforce_with([&](LinearCombination& a) { a += n.var; },
                  [&](LinearCombination& b) { b += n.var; },
                  [&](LinearCombination& c) { c += r.var; });
  return r;
}

Boolean alloc_bit(ConstraintSystem& cs, bool value) {
  const Variable v = cs.alloc(value ? kOne : Fr::zero());
  cs.enforce_with(
      [&](LinearCombination& a) {
        a += Variable::one();
        a -= v;
      },
      [&](LinearCombination& b) { b += v; }, [](LinearCombination&) {});
  return Boolean::from_bit_variable(v, value);
}

Boolean bit_and(ConstraintSystem& cs, const Boolean& a, const Boolean& b) {
  const Variable va = bit_variable(a, "and"), vb = bit_variable(b, "and");
  const bool value = a.value() && b.value();
  const Variable r = cs.alloc(value ? kOne : Fr::zero());
  cs.enforce_with([&](LinearCombination& l) { l += va; }, [&](LinearCombination& l) { l += vb; },
                  [&](LinearCombination& l) { l += r; });
  return Boolean::from_bit_variable(r, value);
}

Boolean bit_nor(ConstraintSystem& cs, const Boolean& a, const Boolean& b) {
  const Variable va = bit_variable(a, "nor"), vb = bit_variable(b, "nor");
  const bool value = !a.value() && !b.value();
  const Variable r = cs.alloc(value ? kOne : Fr::zero());
  cs.enforce_with(
      [&](LinearCombination& l) {
        l += Variable::one();
        l -= va;
      },
      [&](LinearCombination& l) {
        l += Variable::one();
        l -= vb;
      },
      [&](LinearCombination& l) { l += r; });
  return Boolean::from_bit_variable(r, value);
}

Num pick(ConstraintSystem& cs, const Boolean& condition, const Num& a, const Num& b) {
  const Num c = Num::alloc(cs, condition.value() ? a.value : b.value);
  cs.enforce_with(
      [&](LinearCombination& l) {
        l += b.var;
        l -= a.var;
      },
      [&](LinearCombination& l) { condition.add_to(l, kOne); },
      [&](LinearCombination& l) {
        l += b.var;
        l -= c.var;
      });
  return c;
}

namespace {

std::vector<Num> insert_2(ConstraintSystem& cs, const Num& x, std::span<const Boolean> bits,
                          std::span<const Num> e) {
  Num p0 = pick(cs, bits[0], e[0], x);
  Num p1 = pick(cs, bits[0], x, e[0]);
  return {p0, p1};
}

std::vector<Num> insert_4(ConstraintSystem& cs, const Num& a, std::span<const Boolean> bits,
                          std::span<const Num> e) {
  const Boolean &b0 = bits[0], &b1 = bits[1];
  const Num &b = e[0], &c = e[1], &d = e[2];
  const Num p0_x0 = pick(cs, b0, b, a);
  const Num p0 = pick(cs, b1, b, p0_x0);
  const Num p1_x0 = pick(cs, b0, a, b);
  const Num p1 = pick(cs, b1, c, p1_x0);
  const Num p2_x1 = pick(cs, b0, d, a);
  const Num p2 = pick(cs, b1, p2_x1, c);
  const Num p3_x1 = pick(cs, b0, a, d);
  const Num p3 = pick(cs, b1, p3_x1, d);
  return {p0, p1, p2, p3};
}

std::vector<Num> insert_8(ConstraintSystem& cs, const Num& a, std::span<const Boolean> bits,
                          std::span<const Num> e) {
  const Boolean &b0 = bits[0], &b1 = bits[1], &b2 = bits[2];
  const Num &b = e[0], &c = e[1], &d = e[2], &ee = e[3], &f = e[4], &g = e[5], &h = e[6];
  const Boolean b0_nor_b1 = bit_nor(cs, b0, b1);
  const Boolean b0_and_b1 = bit_and(cs, b0, b1);

  const Num p0_xx0 = pick(cs, b0_nor_b1, a, b);
  const Num p0 = pick(cs, b2, b, p0_xx0);

  const Num p1_x00 = pick(cs, b0, a, b);
  const Num p1_xx0 = pick(cs, b1, c, p1_x00);
  const Num p1 = pick(cs, b2, c, p1_xx0);

  const Num p2_x10 = pick(cs, b0, d, a);
  const Num p2_xx0 = pick(cs, b1, p2_x10, c);
  const Num p2 = pick(cs, b2, d, p2_xx0);

  const Num p3_xx0 = pick(cs, b0_and_b1, a, d);
  const Num p3 = pick(cs, b2, ee, p3_xx0);

  const Num p4_xx1 = pick(cs, b0_nor_b1, a, f);
  const Num p4 = pick(cs, b2, p4_xx1, ee);

  const Num p5_x01 = pick(cs, b0, a, f);
  const Num p5_xx1 = pick(cs, b1, g, p5_x01);
  const Num p5 = pick(cs, b2, p5_xx1, f);

  const Num p6_x11 = pick(cs, b0, h, a);
  const Num p6_xx1 = pick(cs, b1, p6_x11, g);
  const Num p6 = pick(cs, b2, p6_xx1, g);

  const Num p7_xx1 = pick(cs, b0_and_b1, a, h);
  const Num p7 = pick(cs, b2, p7_xx1, h);
  return {p0, p1, p2, p3, p4, p5, p6, p7};
}

}  // namespace

Num select(ConstraintSystem& cs, std::span<const Num> from, std::span<const Boolean> bits) {
  if (from.size() != (size_t{1} << bits.size())) {
    throw std::invalid_argument("select: from.size() must be 2^bits.size()");
  }
  std::vector<Num> state(from.begin(), from.end());
  size_t half = from.size() / 2;
  // Most significant bit first, as the reference consumes them.
  for (size_t k = bits.size(); k-- > 0;) {
    std::vector<Num> next;
    next.reserve(half);
    for (size_t j = 0; j < half; ++j) next.push_back(pick(cs, bits[k], state[half + j], state[j]));
    state = std::move(next);
    half /= 2;
  }
  return state[0];
}

std::vector<Num> insert(ConstraintSystem& cs, const Num& element, std::span<const Boolean> bits,
                        std::span<const Num> elements) {
  const size_t size = elements.size() + 1;
  if (bits.size() >= 32 || size != (size_t{1} << bits.size())) {
    throw std::invalid_argument("insert: elements.size() + 1 must be 2^bits.size()");
  }
  if (size == 2) return insert_2(cs, element, bits, elements);
  if (size == 4) return insert_4(cs, element, bits, elements);
  if (size == 8) return insert_8(cs, element, bits, elements);
  // The general case: position pos takes candidate `index`'s element at pos, selected by bits.
  std::vector<Num> result;
  result.reserve(size);
  for (size_t pos = 0; pos < size; ++pos) {
    std::vector<Num> choices;
    choices.reserve(size);
    for (size_t index = 0; index < size; ++index) {
      choices.push_back(pos < index ? elements[pos] : pos == index ? element : elements[pos - 1]);
    }
    result.push_back(select(cs, choices, bits));
  }
  return result;
}

void pack_into_inputs(ConstraintSystem& cs, std::span<const Boolean> bits) {
  for (size_t start = 0; start < bits.size(); start += kFrCapacity) {
    const size_t end = std::min(bits.size(), start + kFrCapacity);
    Fr value = Fr::zero(), coeff = kOne;
    std::vector<Fr> coeffs;
    coeffs.reserve(end - start);
    for (size_t i = start; i < end; ++i) {
      coeffs.push_back(coeff);
      if (bits[i].value()) value += coeff;
      coeff = coeff.dbl();
    }
    const Variable input = cs.alloc_input(value);
    cs.enforce_with(
        [&](LinearCombination& l) {
          for (size_t i = start; i < end; ++i) bits[i].add_to(l, coeffs[i - start]);
        },
        [](LinearCombination& l) { l += Variable::one(); },
        [&](LinearCombination& l) { l += input; });
  }
}

}  // namespace zkpipe::filecoin_circuit
