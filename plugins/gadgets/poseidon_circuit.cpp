// Poseidon in-circuit. Values come from the native permutation (its S-box trace); record mode
// then writes the constraints over the fast form (poseidon.h), keeping every state element as a
// dense coefficient vector over a small basis (one, the last full round's S-box outputs, the
// partial rounds' S-box outputs since), so terms are merged per variable by construction.
#include <stdexcept>
#include <string>

#include "poseidon/poseidon_internal.h"
#include "zkpipe/gadgets/poseidon.h"

namespace zkpipe::gadgets {
namespace {

using Coeffs = std::vector<Fr>;  // over CircuitState::basis

struct CircuitState {
  ConstraintSystem& cs;
  std::span<const Fr> trace;  // x2, x4, x5 per S-box, in order
  size_t next = 0;
  std::vector<Variable> basis;
  std::vector<Coeffs> s;  // one coefficient vector per state element

  LinearCombination lc(const Coeffs& c) const {
    LinearCombination out;
    for (size_t j = 0; j < c.size(); ++j)
      if (!c[j].is_zero()) out.add(c[j], basis[j]);
    return out;
  }

  // x^5 of the linear combination x: three constraints, allocating x2, x4, x5.
  Variable sbox(const Coeffs& x) {
    const LinearCombination xl = lc(x);
    const Variable x2 = cs.alloc(trace[next]);
    cs.enforce(xl, xl, x2);
    const Variable x4 = cs.alloc(trace[next + 1]);
    cs.enforce(x2, x2, x4);
    const Variable x5 = cs.alloc(trace[next + 2]);
    cs.enforce(x4, xl, x5);
    next += 3;
    return x5;
  }

  // S-box on every element (after adding c), then the layer m: the basis becomes the outputs.
  void full_round(const Fr* c, const Fr* m, size_t t) {
    std::vector<Variable> out(t);
    for (size_t i = 0; i < t; ++i) {
      Coeffs x = s[i];
      x[0] += c[i];
      out[i] = sbox(x);
    }
    basis.assign(1, Variable::one());
    basis.insert(basis.end(), out.begin(), out.end());
    for (size_t i = 0; i < t; ++i) {
      s[i].assign(t + 1, Fr::zero());
      for (size_t j = 0; j < t; ++j) s[i][j + 1] = m[i * t + j];
    }
  }

  // S-box on element 0 (after adding c), then the sparse layer sp = m00, v[1..], w[1..].
  void partial_round(const Fr& c, const Fr* sp, size_t t) {
    Coeffs x = s[0];
    x[0] += c;
    basis.push_back(sbox(x));
    const size_t k = basis.size() - 1;
    for (Coeffs& e : s) e.push_back(Fr::zero());
    Coeffs s0(basis.size(), Fr::zero());
    s0[k] = sp[0];
    for (size_t j = 1; j < t; ++j)
      for (size_t b = 0; b < k; ++b) s0[b] += sp[j] * s[j][b];
    for (size_t j = 1; j < t; ++j) s[j][k] = sp[t - 1 + j];
    s[0] = std::move(s0);
  }
};

}  // namespace

Num poseidon_hash(ConstraintSystem& cs, std::span<const Num> inputs) {
  const size_t arity = inputs.size();
  if (!poseidon_detail::arity_supported(arity))
    throw std::invalid_argument("poseidon_hash (circuit): arity " + std::to_string(arity) +
                                " is not supported (supported arities: 2, 4, 8, 11)");
  const PoseidonParams& p = poseidon_params(static_cast<uint32_t>(arity));
  const size_t t = p.width, half = p.full_rounds / 2, rp = p.partial_rounds;

  Fr state[12];
  state[0] = poseidon_detail::domain_tag(arity);
  for (size_t i = 0; i < arity; ++i) state[i + 1] = inputs[i].value;
  if (cs.witness_only()) {  // the same allocations, no linear combinations
    poseidon_detail::permute_allocating(p, std::span<Fr>(state, t), cs);
    const Num out = Num::alloc(cs, state[1]);
    for (size_t i = 0; i < 3 * (p.full_rounds * t + rp) + 1; ++i)
      cs.enforce_with([](LinearCombination&) {}, [](LinearCombination&) {},
                      [](LinearCombination&) {});
    return out;
  }
  std::vector<Fr> trace;
  trace.reserve(3 * (p.full_rounds * t + rp));
  poseidon_detail::permute_traced(p, std::span<Fr>(state, t), trace);

  CircuitState c{cs, trace, 0, {}, {}};
  c.basis.push_back(Variable::one());
  for (const Num& in : inputs) c.basis.push_back(in.var);
  c.s.assign(t, Coeffs(t, Fr::zero()));
  c.s[0][0] = poseidon_detail::domain_tag(arity);
  for (size_t i = 1; i < t; ++i) c.s[i][i] = Fr::one();

  const Fr* rc = p.round_constants.data();
  for (size_t r = 0; r < half; ++r)
    c.full_round(rc + r * t, r + 1 == half ? p.fast.pre_partial_mds.data() : p.mds.data(), t);
  for (size_t r = 0; r < rp; ++r)
    c.partial_round(p.fast.partial_constants[r], &p.fast.sparse[r * (2 * t - 1)], t);
  c.full_round(p.fast.post_partial_constants.data(), p.mds.data(), t);
  for (size_t r = half + rp + 1; r < p.full_rounds + rp; ++r)
    c.full_round(rc + r * t, p.mds.data(), t);

  const Num out = Num::alloc(cs, state[1]);
  enforce_equal(cs, c.lc(c.s[1]), out.lc());
  return out;
}

}  // namespace zkpipe::gadgets
